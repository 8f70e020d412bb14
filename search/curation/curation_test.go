package curation

import (
	"errors"
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

func TestEncodeDecode(t *testing.T) {
	r, err := Parse(Files{Synonyms: "tv, television", Pins: "tv => a"})
	if err != nil {
		t.Fatal(err)
	}
	b, err := r.Encode()
	if err != nil {
		t.Fatal(err)
	}
	back, err := Decode(b)
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
		if back, err := Decode(b); err != nil || back.Digest() != r.Digest() {
			t.Fatalf("Decode: %v", err)
		}
		for w := range r.synonyms {
			_ = r.Alternatives(w)
		}
	})
}
