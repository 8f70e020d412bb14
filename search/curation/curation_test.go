package curation

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	r, err := Parse(Files{
		Synonyms: "# comment\n\ntv, television\nlaptop => notebook\ncolour, color\nColour, hue\n",
		Pins:     "# query => ids\nThe TV => pg-2, pg-1\n",
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		word string
		want []string
	}{
		{"tv", []string{"tv", "television"}},
		{"TV", []string{"tv", "television"}},
		{"television", []string{"tv", "television"}},
		{"laptop", []string{"notebook"}},
		{"notebook", nil},
		{"colour", []string{"colour", "color", "hue"}},
		{"hue", []string{"Colour", "hue"}},
		{"radio", nil},
	} {
		if got := r.Alternatives(c.word); !slices.Equal(got, c.want) {
			t.Errorf("Alternatives(%q) = %q, want %q", c.word, got, c.want)
		}
	}
	for _, c := range []struct {
		q    string
		want []string
	}{
		{"the tv", []string{"pg-2", "pg-1"}},
		{"  THE   tv!", []string{"pg-2", "pg-1"}},
		{"tv the", nil},
		{"tv", nil},
	} {
		if got := r.Pinned(c.q); !slices.Equal(got, c.want) {
			t.Errorf("Pinned(%q) = %q, want %q", c.q, got, c.want)
		}
	}
	if r.Digest() == "" {
		t.Error("a set with rules has no digest")
	}
	if empty, err := Parse(Files{Synonyms: "# nothing\n", Pins: "\n"}); err != nil || !empty.Empty() || empty.Digest() != "" {
		t.Errorf("comments only: %v, empty %v, digest %q", err, empty.Empty(), empty.Digest())
	}
}

func TestParseRefusesWithLineNumbers(t *testing.T) {
	for _, c := range []struct {
		name  string
		files Files
		want  []string
	}{
		{"multi-word", Files{Synonyms: "tv, television\nbig apple, new york\n"}, []string{"synonyms line 2", "multi-word"}},
		{"one word", Files{Synonyms: "\n\ntv\n"}, []string{"synonyms line 3", "one word is no synonym"}},
		{"empty entry", Files{Synonyms: "tv,,television"}, []string{"synonyms line 1", "empty synonym"}},
		{"two arrows", Files{Synonyms: "a => b => c"}, []string{"synonyms line 1", "more than one"}},
		{"empty side", Files{Synonyms: "laptop =>"}, []string{"synonyms line 1", "empty synonym"}},
		{"escape", Files{Synonyms: `a\,b, c`}, []string{"synonyms line 1", "escapes"}},
		{"no arrow", Files{Pins: "# c\nthe tv pg-1\n"}, []string{"pins line 2", "no =>"}},
		{"no query", Files{Pins: "!! => pg-1"}, []string{"pins line 1", "holds no word"}},
		{"bad id", Files{Pins: "tv => pg 1"}, []string{"pins line 1", `id "pg 1"`}},
		{"no id", Files{Pins: "tv =>"}, []string{"pins line 1", `id ""`}},
		{"twice", Files{Pins: "tv => a\nTV => b"}, []string{"pins line 2", "earlier line"}},
		{"both files", Files{Synonyms: "tv", Pins: "x"}, []string{"synonyms line 1", "pins line 1"}},
		{"too many ids", Files{Pins: "tv => a\nradio => " + idList(MaxPinned+1)}, []string{"pins line 2", "51 ids, past 50"}},
		{"long query", Files{Pins: strings.Repeat("a", 201) + " => a"}, []string{"pins line 1", "over 200 characters"}},
		{"long word", Files{Synonyms: "tv, " + strings.Repeat("a", 201)}, []string{"synonyms line 1", "over 200 characters"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse(c.files)
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("Parse: %v, want an *Error", err)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}

// idList is n ids, comma-separated.
func idList(n int) string {
	ids := make([]string, n)
	for i := range ids {
		ids[i] = fmt.Sprintf("id-%d", i)
	}
	return strings.Join(ids, ", ")
}

// TestErrorNamesTheFirstLines: a refusal names its first MaxReported bad lines and counts the rest.
func TestErrorNamesTheFirstLines(t *testing.T) {
	_, err := Parse(Files{Synonyms: strings.Repeat("tv\n", MaxReported+10)})
	msg := err.Error()
	if !strings.Contains(msg, fmt.Sprintf("synonyms line %d:", MaxReported)) || strings.Contains(msg, fmt.Sprintf("line %d:", MaxReported+1)) ||
		!strings.HasSuffix(msg, "; and 10 more bad lines") {
		t.Errorf("refusal of %d bad lines: %q", MaxReported+10, msg)
	}
	var e *Error
	if !errors.As(err, &e) || len(e.Lines) != MaxReported+10 {
		t.Errorf("the error holds %v, want every bad line", err)
	}
}

func TestPinsUpToMax(t *testing.T) {
	r, err := Parse(Files{Pins: "tv => " + idList(MaxPinned)})
	if err != nil || len(r.Pinned("tv")) != MaxPinned {
		t.Fatalf("a pin of %d ids: %v", MaxPinned, err)
	}
}

// TestDecodeUnchanged: a stored set that is the one held is not decoded again (Decode returns
// the held set itself), nor read whole when its digest alone says so (Unchanged); a changed one is.
func TestDecodeUnchanged(t *testing.T) {
	held, b := encoded(t, Files{Synonyms: "tv, television", Pins: "tv => a"})
	if got, err := Decode(b, held); err != nil || got != held {
		t.Errorf("Decode of the held set's stored form: %p, %v; want the held set %p", got, err, held)
	}
	var s struct {
		Digest string `json:"digest"`
	}
	if err := json.Unmarshal(b, &s); err != nil || !Unchanged(s.Digest, held) {
		t.Errorf("the stored digest %q (%v) does not say the held set is unchanged", s.Digest, err)
	}
	if Unchanged("", held) || Unchanged(s.Digest, nil) {
		t.Error("no digest, or no held set, is unchanged")
	}
	other, ob := encoded(t, Files{Synonyms: "tv, telly"})
	got, err := Decode(ob, held)
	if err != nil || got == held || got.Digest() != other.Digest() || !slices.Equal(got.Alternatives("tv"), []string{"tv", "telly"}) {
		t.Errorf("Decode of another set: %v, %v", got, err)
	}
	// A stored form from before sets carried their digest still reads.
	old, err := json.Marshal(Files{Synonyms: "tv, telly"})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := Decode(old, nil); err != nil || got.Digest() != other.Digest() {
		t.Errorf("Decode of a stored form without its digest: %v", err)
	}
}

// BenchmarkParse parses synonyms files of lines of 16 words, of growing size: the time a byte
// (MB/s) stays the same, parsing is linear in the file's size.
func BenchmarkParse(b *testing.B) {
	for _, size := range []int{64 << 10, 256 << 10, MaxBytes} {
		var sb strings.Builder
		for line := 0; ; line++ {
			var words []string
			for w := range 16 {
				words = append(words, fmt.Sprintf("w%dx%d", line, w))
			}
			l := strings.Join(words, ", ") + "\n"
			if sb.Len()+len(l) > size {
				break
			}
			sb.WriteString(l)
		}
		f := Files{Synonyms: sb.String()}
		b.Run(fmt.Sprintf("%dKiB", size>>10), func(b *testing.B) {
			b.SetBytes(int64(len(f.Synonyms)))
			for b.Loop() {
				if _, err := Parse(f); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// encoded is the set of f and its stored form.
func encoded(t *testing.T, f Files) (*Rules, []byte) {
	t.Helper()
	r, err := Parse(f)
	if err != nil {
		t.Fatal(err)
	}
	b, err := r.Encode()
	if err != nil {
		t.Fatal(err)
	}
	return r, b
}

func TestEncodeDecode(t *testing.T) {
	r, b := encoded(t, Files{Synonyms: "tv, television", Pins: "tv => a"})
	back, err := Decode(b, nil)
	if err != nil || back.Files() != r.Files() || back.Digest() != r.Digest() {
		t.Fatalf("Decode(Encode) = %+v, %v; want %+v", back.Files(), err, r.Files())
	}
}

// FuzzParse: no file makes Parse panic, and a set it accepts decodes to itself.
func FuzzParse(f *testing.F) {
	f.Add("tv, television\nlaptop => notebook\n# c\n", "the tv => a, b\n")
	f.Add("a => b => c", "x")
	f.Fuzz(func(t *testing.T, syn, pins string) {
		r, err := Parse(Files{Synonyms: syn, Pins: pins})
		if err != nil {
			return
		}
		b, err := r.Encode()
		if err != nil {
			t.Fatal(err)
		}
		if back, err := Decode(b, nil); err != nil || back.Digest() != r.Digest() {
			t.Fatalf("Decode: %v", err)
		}
		for w := range r.synonyms {
			_ = r.Alternatives(w)
		}
	})
}
