package gen

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
)

// TestGenerateIDsAndSource: line k is gen-<type>-k, and every item names the seed it came from,
// so a catalogue's items can be traced back to the command that made them.
func TestGenerateIDsAndSource(t *testing.T) {
	for _, seed := range []int64{0, 1, -3, 1 << 40} {
		t.Run(strconv.FormatInt(seed, 10), func(t *testing.T) {
			lines := bytes.SplitAfter(generated(t, 500, seed), []byte("\n"))
			for k, line := range lines[:500] {
				var it struct{ ID, Type, Source string }
				if err := json.Unmarshal(line, &it); err != nil {
					t.Fatal(err)
				}
				if want := "gen-" + it.Type + "-" + strconv.Itoa(k+1); it.ID != want {
					t.Fatalf("line %d: id %q, want %q", k+1, it.ID, want)
				}
				if want := "generated:seed=" + strconv.FormatInt(seed, 10); it.Source != want {
					t.Fatalf("line %d: source %q, want %q", k+1, it.Source, want)
				}
			}
		})
	}
}

// TestGenerateSize: a line is one compact JSON object of a few hundred bytes to a few kilobytes,
// so `mediactl gen` sizes are predictable (about 1 GB per million items at most).
func TestGenerateSize(t *testing.T) {
	out, err := sample()
	if err != nil {
		t.Fatal(err)
	}
	if avg := len(out) / sampleN; avg < 200 || avg > 1000 {
		t.Errorf("%d bytes per item on average, want 200 to 1000", avg)
	}
	for i, line := range sampleLines(t) {
		if len(line) > 8<<10 || line[0] != '{' || !bytes.HasSuffix(line, []byte("}\n")) {
			t.Fatalf("line %d: %d bytes, want one object under 8 KB\n%.200s", i+1, len(line), line)
		}
		var compact bytes.Buffer
		if err := json.Compact(&compact, line[:len(line)-1]); err != nil || compact.Len() != len(line)-1 {
			t.Fatalf("line %d is not compact JSON\n%.200s", i+1, line)
		}
	}
}

// TestItemWords: within an item, tags do not repeat, and a talk from a conference on a date
// carries the conference and its year as its first keyword.
func TestItemWords(t *testing.T) {
	conferences := 0
	for i, line := range sampleLines(t) {
		var it struct {
			Type, Date     string
			CategoryName   string `json:"category_name"`
			Tags, Keywords []string
		}
		if err := json.Unmarshal(line, &it); err != nil {
			t.Fatal(err)
		}
		seen := map[string]bool{}
		for _, tag := range it.Tags {
			if seen[tag] {
				t.Fatalf("line %d repeats tag %q\n%s", i+1, tag, line)
			}
			seen[tag] = true
		}
		if it.Type == "video" && it.Date != "" && it.CategoryName != "" && len(it.Keywords) > 0 {
			conferences++
			if want := it.CategoryName + " " + it.Date[:4]; it.Keywords[0] != want {
				t.Fatalf("line %d: first keyword %q, want %q\n%s", i+1, it.Keywords[0], want, line)
			}
		}
		if strings.TrimSpace(strings.Join(it.Keywords, "")) == "" && len(it.Keywords) > 0 {
			t.Fatalf("line %d: blank keywords", i+1)
		}
	}
	if conferences == 0 {
		t.Error("no talk carries its conference and year")
	}
}
