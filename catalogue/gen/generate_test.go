package gen

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/language"

	"mediagw/catalogue"
)

// sampleN is the size `make run` uses: the distributions must look real at this size.
const sampleN = 20000

var sample = sync.OnceValues(func() ([]byte, error) {
	var buf bytes.Buffer
	err := Generate(&buf, sampleN, 42)
	return buf.Bytes(), err
})

func generated(t testing.TB, n int, seed int64) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := Generate(&buf, n, seed); err != nil {
		t.Fatalf("Generate(%d, %d): %v", n, seed, err)
	}
	return buf.Bytes()
}

func sampleLines(t *testing.T) [][]byte {
	t.Helper()
	out, err := sample()
	if err != nil {
		t.Fatalf("Generate: %v", err)
	}
	return bytes.SplitAfter(out, []byte("\n"))[:sampleN]
}

func TestGenerateDeterministic(t *testing.T) {
	a, b := generated(t, 2000, 7), generated(t, 2000, 7)
	if !bytes.Equal(a, b) {
		t.Fatal("two runs with the same seed and size differ")
	}
	if c := generated(t, 2000, 8); bytes.Equal(a, c) {
		t.Fatal("seeds 7 and 8 gave the same catalogue")
	}
	// A short run is the start of a long one, so a small catalogue is a sample of a big one.
	if short := generated(t, 300, 7); !bytes.HasPrefix(a, short) {
		t.Fatal("the 300-item run is not a prefix of the 2000-item run with the same seed")
	}
}

func TestGenerateCount(t *testing.T) {
	for _, n := range []int{0, 1, 10, 1000} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			out := generated(t, n, 1)
			if got := bytes.Count(out, []byte("\n")); got != n {
				t.Errorf("got %d lines, want %d", got, n)
			}
			if n > 0 && out[len(out)-1] != '\n' {
				t.Error("the last line has no newline")
			}
		})
	}
}

func TestGenerateRejectsNegative(t *testing.T) {
	if err := Generate(io.Discard, -1, 1); err == nil {
		t.Error("Generate(-1) = nil, want an error")
	}
}

type failingWriter struct{ err error }

func (w failingWriter) Write([]byte) (int, error) { return 0, w.err }

func TestGenerateWriteError(t *testing.T) {
	boom := errors.New("disk full")
	if err := Generate(failingWriter{boom}, 10000, 1); !errors.Is(err, boom) {
		t.Errorf("Generate to a failing writer = %v, want it to wrap %v", err, boom)
	}
}

var (
	genIDPattern   = regexp.MustCompile(`^[A-Za-z0-9._-]{1,128}$`)
	genSlugPattern = regexp.MustCompile(`^[a-z0-9-]+$`)
	genSHAPattern  = regexp.MustCompile(`^[0-9a-f]{64}$`)
)

// TestGenerateLinesValid checks every line against CATALOGUE.md on its own terms, independently
// of the reader, plus the consistency between type and media fields.
func TestGenerateLinesValid(t *testing.T) {
	ids := make(map[string]bool, sampleN)
	for i, line := range sampleLines(t) {
		fail := func(format string, args ...any) {
			t.Helper()
			t.Fatalf("line %d: %s\n%s", i+1, fmt.Sprintf(format, args...), line)
		}
		if !utf8.Valid(line) {
			fail("not valid UTF-8")
		}
		var obj map[string]any
		dec := json.NewDecoder(bytes.NewReader(line))
		dec.UseNumber()
		if err := dec.Decode(&obj); err != nil {
			fail("not a JSON object: %v", err)
		}
		str := func(key string) (string, bool) {
			v, ok := obj[key]
			if !ok || v == nil {
				return "", false
			}
			s, isStr := v.(string)
			if !isStr {
				fail("%s is %T, want a string", key, v)
			}
			return s, true
		}
		id, _ := str("id")
		if !genIDPattern.MatchString(id) || ids[id] {
			fail("id %q is malformed or repeated", id)
		}
		ids[id] = true
		typ, _ := str("type")
		if typ != "photo" && typ != "video" && typ != "document" {
			fail("type %q", typ)
		}
		if title, _ := str("title"); strings.TrimSpace(title) == "" {
			fail("empty title")
		}
		for _, key := range []string{"summary", "description", "author", "permalink", "license", "rights", "source", "thumbnail_url", "media_url"} {
			str(key)
		}
		for _, key := range []string{"tags", "keywords"} {
			if v, ok := obj[key]; ok && v != nil {
				arr, isArr := v.([]any)
				if !isArr {
					fail("%s is %T, want an array", key, v)
				}
				for _, e := range arr {
					if s, isStr := e.(string); !isStr || strings.TrimSpace(s) == "" {
						fail("%s holds %#v, want non-empty strings", key, e)
					}
				}
			}
		}
		cat, hasCat := str("category")
		if hasCat && !genSlugPattern.MatchString(cat) {
			fail("category %q is not a slug", cat)
		}
		if _, hasName := str("category_name"); hasName && !hasCat {
			fail("category_name without category")
		}
		if lang, ok := str("language"); ok {
			base, err := language.ParseBase(lang)
			if len(lang) != 2 || err != nil || base.String() != lang {
				fail("language %q is not an ISO 639-1 code", lang)
			}
		}
		if date, ok := str("date"); ok {
			if _, err := time.Parse(time.DateOnly, date); err != nil || len(date) != 10 || date < "1950" || date > "2026" {
				fail("date %q is not a real YYYY-MM-DD in 1950..2025", date)
			}
		}
		if v, ok := obj["downloads"]; ok && v != nil {
			n, isNum := v.(json.Number)
			d, err := n.Int64()
			if !isNum || err != nil || d < 0 {
				fail("downloads %v is not an integer >= 0", v)
			}
		}
		if sha, ok := str("sha256"); ok && !genSHAPattern.MatchString(sha) {
			fail("sha256 %q is not 64 lower-case hex digits", sha)
		}
		if mime, ok := str("mime_type"); ok {
			prefix := map[string]string{"photo": "image/", "video": "video/", "document": ""}[typ]
			if !strings.HasPrefix(mime, prefix) {
				fail("mime_type %q for a %s", mime, typ)
			}
		}
		_, hasWidth := obj["width"]
		_, hasDuration := obj["duration_seconds"]
		if (hasWidth && typ != "photo") || (hasDuration && typ != "video") {
			fail("dimensions that do not fit a %s", typ)
		}
	}
}

// TestGenerateAcceptedByReader: what the generator writes, the loader takes, every line of it.
func TestGenerateAcceptedByReader(t *testing.T) {
	out, err := sample()
	if err != nil {
		t.Fatal(err)
	}
	r := catalogue.NewReader(bytes.NewReader(out))
	n := 0
	for {
		item, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("the reader rejects a generated line: %v\n%s", err, r.Raw())
		}
		if item.ID == "" || item.Title == "" {
			t.Fatalf("item without id or title from %s", r.Raw())
		}
		n++
	}
	if n != sampleN {
		t.Errorf("reader returned %d items, want %d", n, sampleN)
	}
	st := r.Stats()
	if st.Rejected != 0 || st.Accepted != sampleN {
		t.Errorf("stats %+v, want %d accepted and none rejected", st, sampleN)
	}
	if len(st.UnknownKeys) == 0 {
		t.Error("no unknown keys: real exports carry extra keys and the generator should too")
	}
}

var scriptTables = map[string]*unicode.RangeTable{
	"Han": unicode.Han, "Cyrillic": unicode.Cyrillic, "Greek": unicode.Greek,
	"Hebrew": unicode.Hebrew, "Arabic": unicode.Arabic, "Hangul": unicode.Hangul,
}

// TestGenerateDistributions checks that the catalogue has the shape of a real one: what search,
// filters, facets and sorting are tested against.
func TestGenerateDistributions(t *testing.T) {
	types := map[string]int{}
	langs := map[string]int{}
	cats := map[string]bool{}
	titles := map[string]int{}
	authors := map[string]int{}
	scripts := map[string]bool{}
	var noDate, zeroDownloads, maxDownloads, noAuthor, noDescription int
	for _, line := range sampleLines(t) {
		var it struct {
			Type, Title, Language, Category, Date, Author, Description string
			Downloads                                                  int
		}
		if err := json.Unmarshal(line, &it); err != nil {
			t.Fatal(err)
		}
		types[it.Type]++
		langs[it.Language]++
		cats[it.Category] = true
		titles[it.Title]++
		if it.Author == "" {
			noAuthor++
		} else {
			authors[it.Author]++
		}
		if it.Date == "" {
			noDate++
		}
		if it.Description == "" {
			noDescription++
		}
		if it.Downloads == 0 {
			zeroDownloads++
		}
		maxDownloads = max(maxDownloads, it.Downloads)
		for _, r := range it.Title + it.Author {
			for name, table := range scriptTables {
				if unicode.Is(table, r) {
					scripts[name] = true
				}
			}
			if r > 0x7f && unicode.IsLetter(r) && unicode.Is(unicode.Latin, r) {
				scripts["accented Latin"] = true
			}
		}
	}
	share := func(k int) float64 { return float64(k) / sampleN }

	for _, typ := range []string{"photo", "video", "document"} {
		if s := share(types[typ]); s < 0.15 {
			t.Errorf("%s: %.1f%% of items, want a plausible share (>= 15%%)", typ, 100*s)
		}
	}
	if len(types) != 3 {
		t.Errorf("types %v, want exactly photo, video and document", types)
	}
	if len(langs) < 10 || share(langs["en"]) > 0.7 || langs[""] == 0 {
		t.Errorf("languages %v: want >= 10, English not overwhelming, some items without one", langs)
	}
	if len(scripts) < 7 {
		t.Errorf("scripts in titles and authors: %v, want accented Latin, Han, Cyrillic, Greek, Hebrew, Arabic, Hangul", scripts)
	}
	if len(cats) < 30 || len(cats) > 61 {
		t.Errorf("%d categories, want 30 to 60 (and some items without)", len(cats))
	}
	if s := share(noDate); s == 0 || s > 0.03 {
		t.Errorf("%.2f%% without a date, want about 1%%", 100*s)
	}
	if s := share(noDescription); s < 0.2 || s > 0.8 {
		t.Errorf("%.1f%% without a description, want some but not most", 100*s)
	}
	dupItems := 0
	for _, c := range titles {
		if c > 1 {
			dupItems += c
		}
	}
	if s := share(dupItems); s < 0.03 || s > 0.15 {
		t.Errorf("%.1f%% of items share a title, want about 5-10%% as in real data", 100*s)
	}

	counts := make([]int, 0, len(authors))
	for _, c := range authors {
		counts = append(counts, c)
	}
	slices.Sort(counts)
	top, median := counts[len(counts)-1], counts[len(counts)/2]
	if top < 50*median || share(top) > 0.05 {
		t.Errorf("top author has %d items, median %d: want a long tail, not one author owning everything", top, median)
	}
	if len(authors) < sampleN/20 || noAuthor == 0 {
		t.Errorf("%d distinct authors, %d items without one: want a large pool and some missing", len(authors), noAuthor)
	}
	if s := share(zeroDownloads); s == 0 || s > 0.15 || maxDownloads < 10000 {
		t.Errorf("downloads: %.1f%% zero, max %d: want a few zeros and a long tail", 100*s, maxDownloads)
	}
}

// TestGenerateConstantMemory guards the streaming: allocations per item stay small whatever n,
// so memory cannot grow with the catalogue.
func TestGenerateConstantMemory(t *testing.T) {
	const n = 5000
	perItem := testing.AllocsPerRun(2, func() {
		if err := Generate(io.Discard, n, 3); err != nil {
			t.Fatal(err)
		}
	}) / n
	if perItem > 0.5 {
		t.Errorf("%.2f allocations per item, want well under one (the writer must stream)", perItem)
	}
}

func BenchmarkGenerate(b *testing.B) {
	b.ReportAllocs()
	var counter countingWriter
	if err := Generate(&counter, b.N, 1); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(counter) / int64(b.N))
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "items/s")
}

type countingWriter int

func (c *countingWriter) Write(p []byte) (int, error) {
	*c += countingWriter(len(p))
	return len(p), nil
}
