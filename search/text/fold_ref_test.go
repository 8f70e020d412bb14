package text

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"unicode"

	"golang.org/x/text/cases"
	"golang.org/x/text/runes"
	"golang.org/x/text/transform"
	"golang.org/x/text/unicode/norm"
)

// referenceFold is Fold as first written: a new transform chain per call, then the letters.
// Fold must give the same key for every string, since both backends sort and match on it.
func referenceFold(s string) string {
	t := transform.Chain(norm.NFD, runes.Remove(runes.In(unicode.Mn)), norm.NFC)
	out, _, err := transform.String(t, s)
	if err != nil {
		out = s
	}
	return cases.Fold().String(strings.TrimSpace(letterReplacer.Replace(out)))
}

// foldCorpus is strings that exercise each step of folding: case, accents, scripts, whitespace
// (ASCII and not), lone combining marks, invalid UTF-8, and lengths past the transforms' buffers.
var foldCorpus = []string{
	"", " ", "a", "A", "Élan", "ÉLAN", "elan", "  Straße ", "STRASSE", "羅生門", "Ηλέκτρα", "ΟΔΥΣΣΕΥΣ",
	"Jöns Jakob", "Berzelius, Jöns Jakob, friherre", "İstanbul", "ıi", "ﬁne ﬂow", "Ǆemal", "Å Å", "ÅNGSTRÖM",
	"\u00a0Nbsp\u00a0", "\u0085next\u0085", "\u3000全角\u3000", " \u0301x", "\u0301", "x\u0301\u0302",
	"e\u0301\u0323", "Ṩ", "ǅ", "ﾊﾝｶｸ", "Ａｂｃ", "ᾼ", "ΐ", "ſ", "K", "Ω", "Ⅻ", "ⓐⒷ", "𝔄𝔅", "🙂 Smile",
	"Ørsted", "ŁÓDŹ", "Æsop œuvre", "Þór ðe", "\xffØ", "\xff", "a\xffB", "\xc3", "É\xc3", "\t\n\v\f\r mixed\r\n",
	"a" + strings.Repeat("\u0323\u0301", 35) + "B", "\u1100\u1161\u11a8", "각\u0301", "क\u093f\u0902", "o\u20dd\u0301",
	strings.Repeat("Ab", 100), strings.Repeat("Éa", 200), strings.Repeat("x\u0301", 3000),
	strings.Repeat("É", 5000) + " ", strings.Repeat("a", 129) + "É",
}

// realFoldStrings is every title, author, tag and keyword of the real catalogue, or nil when it is absent.
func realFoldStrings(t testing.TB) []string {
	f, err := os.Open(filepath.Join("..", "..", "shared", "data", "catalogue.ndjson"))
	if err != nil {
		return nil
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var it struct {
			Title, Author, CategoryName string
			Tags, Keywords              []string
		}
		if err := json.Unmarshal(sc.Bytes(), &it); err != nil {
			continue
		}
		out = append(out, it.Title, it.Author, it.CategoryName)
		out = append(out, it.Tags...)
		out = append(out, it.Keywords...)
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("read real catalogue: %v", err)
	}
	return out
}

func TestFoldIsTheReference(t *testing.T) {
	for _, s := range foldCorpus {
		if got, want := Fold(s), referenceFold(s); got != want {
			t.Errorf("Fold(%q) = %q, want %q", s, got, want)
		}
	}
}

func TestFoldIsTheReferenceOnRealCatalogue(t *testing.T) {
	real := realFoldStrings(t)
	if real == nil {
		t.Skip("no real catalogue at ../shared/data/catalogue.ndjson beside the module root")
	}
	bad := 0
	for _, s := range real {
		if got, want := Fold(s), referenceFold(s); got != want {
			t.Errorf("Fold(%q) = %q, want %q", s, got, want)
			if bad++; bad > 10 {
				t.Fatal("too many differences")
			}
		}
	}
}

// TestFoldConcurrently folds from several goroutines at once: pooled transforms must never be
// shared (run with -race).
func TestFoldConcurrently(t *testing.T) {
	want := make([]string, len(foldCorpus))
	for i, s := range foldCorpus {
		want[i] = referenceFold(s)
	}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 20 {
				for i, s := range foldCorpus {
					if got := Fold(s); got != want[i] {
						t.Errorf("Fold(%q) = %q, want %q", s, got, want[i])
						return
					}
				}
			}
		})
	}
	wg.Wait()
}

func FuzzFold(f *testing.F) {
	for _, s := range foldCorpus {
		// Long seeds make the fuzzer's minimizing crawl; TestFoldIsTheReference covers them.
		if len(s) <= 256 {
			f.Add(s)
		}
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := Fold(s), referenceFold(s); got != want {
			t.Errorf("Fold(%q) = %q, want %q", s, got, want)
		}
	})
}
