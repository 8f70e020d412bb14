package elastic

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"mediagw/internal/servicetest"
	"mediagw/search"
	"mediagw/search/searchtest"
)

// engineURL is the engine the tests use (see internal/servicetest).
func engineURL(t testing.TB) string { return servicetest.EngineURL(t) }

// newBackend opens a backend on an alias of its own, whose indices are deleted after the test.
func newBackend(t testing.TB, cfg Config) *Backend {
	t.Helper()
	return servicetest.OpenEngine(t, func(e servicetest.Engine, url, alias string) (*Backend, error) {
		cfg.URLs, cfg.Product = []string{url}, Product(e.Product)
		if cfg.Alias == "" {
			cfg.Alias = alias
		}
		return New(cfg)
	})
}

// watchedBackend is newBackend with every request shown to see, its body read, before it is sent.
func watchedBackend(t testing.TB, see func(r *http.Request, body []byte)) *Backend {
	return newBackend(t, Config{Transport: roundTrip(func(r *http.Request) (*http.Response, error) {
		var body []byte
		if r.Body != nil {
			var err error
			if body, err = io.ReadAll(r.Body); err != nil {
				return nil, err
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
		}
		see(r, body)
		return http.DefaultTransport.RoundTrip(r)
	})})
}

func load(t testing.TB, b *Backend, items []search.Item) search.LoadStats {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	st, err := b.Load(ctx, search.Values(items))
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	if st.Indexed != len(items) {
		t.Fatalf("Load indexed %d items, want %d", st.Indexed, len(items))
	}
	return st
}

func open(t *testing.T, items []search.Item) search.Backend {
	b := newBackend(t, Config{})
	load(t, b, items)
	return b
}

func TestConformance(t *testing.T) {
	searchtest.Run(t, open)
}

func TestExtrasConformance(t *testing.T) {
	searchtest.RunExtras(t, open)
}

func TestRealData(t *testing.T) {
	searchtest.RunRealData(t, open)
}

func TestWalks(t *testing.T) {
	searchtest.RunWalks(t, open)
}

// TestNoIndexYet: before the first load the alias names nothing, and every read says the engine
// has nothing to serve.
func TestNoIndexYet(t *testing.T) {
	b := newBackend(t, Config{})
	ctx := t.Context()
	checks := map[string]error{
		"Ping": b.Ping(ctx),
	}
	_, checks["Search"] = b.Search(ctx, search.NewRequest(search.Query{Sort: search.SortNewest, Page: 1, PerPage: 10}))
	_, checks["Item"] = b.Item(ctx, "x")
	_, checks["Categories"] = b.Categories(ctx, search.Query{})
	_, checks["Authors"] = b.Authors(ctx, search.Query{})
	_, checks["Version"] = b.Version(ctx)
	for name, err := range checks {
		if !errors.Is(err, search.ErrUnavailable) {
			t.Errorf("%s: error %v, want one wrapping search.ErrUnavailable", name, err)
		}
	}
}

// TestUnreachable: an engine nobody listens for is unavailable, not an internal error.
func TestUnreachable(t *testing.T) {
	b, err := New(Config{URLs: []string{"http://127.0.0.1:1"}, Alias: "items"})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	checks := map[string]error{"Ping": b.Ping(ctx)}
	_, checks["Search"] = b.Search(ctx, search.NewRequest(search.Query{Text: "x", Page: 1, PerPage: 10}))
	_, checks["Item"] = b.Item(ctx, "x")
	_, checks["Categories"] = b.Categories(ctx, search.Query{})
	_, checks["Authors"] = b.Authors(ctx, search.Query{})
	_, checks["Version"] = b.Version(ctx)
	_, checks["Load"] = b.Load(ctx, search.Values(nil))
	for name, err := range checks {
		if !errors.Is(err, search.ErrUnavailable) {
			t.Errorf("%s: error %v, want one wrapping search.ErrUnavailable", name, err)
		}
	}
}

// TestTooSlow: a call that outlives its deadline says so, whether the engine is slow or the
// deadline tiny.
func TestTooSlow(t *testing.T) {
	// A listener that accepts connections and never answers stands for an engine that hangs.
	srv := hangingServer(t)
	b, err := New(Config{URLs: []string{srv}, Alias: "items"})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	ctx, cancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
	defer cancel()
	_, err = b.Search(ctx, search.NewRequest(search.Query{Text: "x", Page: 1, PerPage: 10}))
	if !errors.Is(err, context.DeadlineExceeded) || errors.Is(err, search.ErrUnavailable) {
		t.Errorf("Search on a hanging engine: error %v, want one wrapping context.DeadlineExceeded only", err)
	}

	real := newBackend(t, Config{})
	load(t, real, searchtest.Fixture(t))
	tiny, cancel2 := context.WithTimeout(t.Context(), time.Nanosecond)
	defer cancel2()
	<-tiny.Done()
	if _, err := real.Search(tiny, search.NewRequest(search.Query{Text: "harbour", Page: 1, PerPage: 10})); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Search with a spent deadline: error %v, want one wrapping context.DeadlineExceeded", err)
	}
	if _, err := real.Authors(tiny, search.Query{}); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Authors with a spent deadline: error %v, want one wrapping context.DeadlineExceeded", err)
	}
}

// TestVersion: the version names the live index and changes with every load.
func TestVersion(t *testing.T) {
	b := newBackend(t, Config{Now: stepClock()})
	items := searchtest.Fixture(t)
	first := load(t, b, items)
	v1, err := b.Version(t.Context())
	if err != nil || v1 != first.Index {
		t.Fatalf("Version = %q, %v; want %q", v1, err, first.Index)
	}
	second := load(t, b, items)
	v2, err := b.Version(t.Context())
	if err != nil || v2 != second.Index || v2 == v1 {
		t.Fatalf("Version after a second load = %q, %v; want %q", v2, err, second.Index)
	}
	if err := b.Ping(t.Context()); err != nil {
		t.Errorf("Ping: %v", err)
	}
}

// stepClock is a clock that moves a minute on every reading, so each load gets its own name.
func stepClock() func() time.Time {
	var mu sync.Mutex
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	return func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		now = now.Add(time.Minute)
		return now
	}
}

// TestListPartitions: the categories and authors lists are the same however many partitions the
// counting takes, including when partitions overflow and the counter splits them; a list too
// large for the splits allowed fails rather than coming back short.
func TestListPartitions(t *testing.T) {
	b := newBackend(t, Config{})
	load(t, b, searchtest.Fixture(t))
	ctx := t.Context()
	cats, err := b.Categories(ctx, search.Query{})
	if err != nil {
		t.Fatal(err)
	}
	authors, err := b.Authors(ctx, search.Query{})
	if err != nil {
		t.Fatal(err)
	}
	if len(authors) < 20 || len(cats) < 3 {
		t.Fatalf("the fixture has %d authors and %d categories; the test needs more", len(authors), len(cats))
	}
	for _, tc := range []struct {
		name   string
		limits listLimits
	}{
		{"one partition", listLimits{size: 1000, target: 1000}},
		{"several partitions", listLimits{size: 8, target: 4}},
		{"partitions that overflow and split", listLimits{size: 8, target: 1000}},
		{"small partitions", listLimits{size: 4, target: 2}},
	} {
		b.limits[ListCategories], b.limits[ListAuthors] = tc.limits, tc.limits
		if got, err := b.Categories(ctx, search.Query{}); err != nil || !slices.Equal(got, cats) {
			t.Errorf("%s: categories = %v, %v; want %v", tc.name, got, err, cats)
		}
		if got, err := b.Authors(ctx, search.Query{}); err != nil || !slices.Equal(got, authors) {
			t.Errorf("%s: authors = %v, %v; want %v", tc.name, got, err, authors)
		}
	}
	// One value a partition from one partition: 2^maxSplits partitions are too few.
	b.limits[ListAuthors] = listLimits{size: 1, target: 1 << 20}
	if got, err := b.Authors(ctx, search.Query{}); err == nil {
		t.Errorf("authors with room for %d = %d authors, no error; want an error", 1<<maxSplits, len(got))
	}
}

// TestCompression: the engine's answers are not compressed unless the configuration asks.
func TestCompression(t *testing.T) {
	if tr, err := NewTransport(Config{}); err != nil || !tr.DisableCompression {
		t.Errorf("the default transport asks for compressed answers (or fails: %v)", err)
	}
	if tr, err := NewTransport(Config{Compression: true}); err != nil || tr.DisableCompression {
		t.Errorf("with Compression, the transport does not ask for compressed answers (or fails: %v)", err)
	}
}

// TestMissingAlias: an engine that answers without an index behind the alias is told apart from
// one that cannot be reached: the error names the alias, and its kind is search.KindNoIndex.
func TestMissingAlias(t *testing.T) {
	b := newBackend(t, Config{})
	calls := []struct {
		name string
		call func(ctx context.Context) error
	}{
		{"ping", b.Ping},
		{"search", func(ctx context.Context) error {
			_, err := b.Search(ctx, search.NewRequest(search.Query{Text: "harbour", Page: 1, PerPage: 5}))
			return err
		}},
		{"version", func(ctx context.Context) error { _, err := b.Version(ctx); return err }},
	}
	for _, c := range calls {
		t.Run(c.name, func(t *testing.T) {
			err := c.call(t.Context())
			var ne *search.NoIndexError
			if search.Kind(err) != search.KindNoIndex || !errors.As(err, &ne) || ne.Name != b.Alias() {
				t.Errorf("%s without an index: %v (kind %v), want a NoIndexError naming %s", c.name, err, search.Kind(err), b.Alias())
			}
		})
	}
}

// TestHitOfOlderLayout: a hit from an index of an older layout, which stores no licence, format
// or duration, is served with them read from its values; a current one as stored.
func TestHitOfOlderLayout(t *testing.T) {
	old := hit{Source: search.Item{ID: "a", Rights: "CC BY 4.0", MimeType: "video/webm"}}
	want := old.Source
	want.Derive()
	if got := old.item(); !reflect.DeepEqual(got, want) {
		t.Errorf("item() = %+v, want %+v", got, want)
	}
	current := hit{Source: want}
	current.Source.Format = "stored"
	if got := current.item(); got.Format != "stored" {
		t.Errorf("item() of a current hit: format %q, want it as stored", got.Format)
	}
}

func TestBudget(t *testing.T) { searchtest.RunBudget(t, open) }

// TestCompleteOneRequest: a completion is one request to the engine, whether its last word may
// differ by an edit (the titles it completes as typed and within the edit asked together) or not,
// and one through a typo still completes its title.
func TestCompleteOneRequest(t *testing.T) {
	var searches atomic.Int32
	b := watchedBackend(t, func(r *http.Request, _ []byte) {
		if strings.HasSuffix(r.URL.Path, "/_search") || strings.HasSuffix(r.URL.Path, "/_msearch") {
			searches.Add(1)
		}
	})
	load(t, b, searchtest.Fixture(t))
	for _, tc := range []struct {
		text string
		// want is a title among the completions.
		want string
	}{
		{"s", "Sunset over the harbour"},
		{"sunset ov", "Sunset over the harbour"},
		{"snuset", "Sunset over the harbour"},
		{"sunset oevr", "Sunset over the harbour"},
		{"zzzz", ""},
	} {
		searches.Store(0)
		got, err := b.Complete(t.Context(), tc.text, search.DefaultCompletions)
		if err != nil {
			t.Fatalf("Complete(%q): %v", tc.text, err)
		}
		if n := searches.Load(); n != 1 {
			t.Errorf("Complete(%q): %d requests to the engine, want 1", tc.text, n)
		}
		found := tc.want == "" && len(got) == 0
		for _, c := range got {
			found = found || strings.EqualFold(c.Text, tc.want)
		}
		if !found {
			t.Errorf("Complete(%q) = %+v, want %q among them", tc.text, got, tc.want)
		}
	}
}
