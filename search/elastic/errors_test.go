package elastic

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/opensearch-project/opensearch-go/v4"

	"mediagw/search"
	"mediagw/search/breaker"
)

func TestClassify(t *testing.T) {
	structErr := func(status int, typ, reason string, causes ...string) error {
		e := &opensearch.StructError{Status: status}
		e.Err.Type = typ
		e.Err.Reason = reason
		for _, c := range causes {
			e.Err.RootCause = append(e.Err.RootCause, opensearch.RootCause{Type: c, Reason: reason})
		}
		return e
	}
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: errors.New("connect: connection refused")}
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	tests := []struct {
		name   string
		ctx    context.Context
		status int
		err    error
		// want is the sentinel the result must wrap, or nil for a plain *EngineError.
		want error
		// kind is what callers make of it: a question the engine refuses is no fault of the
		// engine's, a 5xx is.
		kind search.ErrorKind
	}{
		{"refused", context.Background(), 0, fmt.Errorf("POST: %w", refused), search.ErrUnavailable, search.KindUnavailable},
		{"no index behind the alias", context.Background(), 404, structErr(404, "index_not_found_exception", "no such index [secret]"), search.ErrUnavailable, search.KindNoIndex},
		{"busy", context.Background(), 429, structErr(429, "rejected_execution_exception", "secret queue"), search.ErrUnavailable, search.KindUnavailable},
		{"unavailable", context.Background(), 503, structErr(503, "cluster_block_exception", "secret block"), search.ErrUnavailable, search.KindUnavailable},
		{"bad gateway without JSON", context.Background(), 502, fmt.Errorf("%w: body: secret html", opensearch.ErrJSONUnmarshalBody), search.ErrUnavailable, search.KindUnavailable},
		{"gateway timeout", context.Background(), 504, fmt.Errorf("%w: secret", opensearch.ErrJSONUnmarshalBody), context.DeadlineExceeded, search.KindTimeout},
		{"deadline", context.Background(), 0, fmt.Errorf("POST: %w", context.DeadlineExceeded), context.DeadlineExceeded, search.KindTimeout},
		{"cancelled", cancelled, 0, errors.New("POST: secret"), context.Canceled, search.KindCanceled},
		{"bad request", context.Background(), 400, structErr(400, "search_phase_execution_exception", "secret field [title]"), search.ErrRefused, search.KindRefused},
		// OpenSearch answers a query past max_clause_count with a 500: the question's fault all the same.
		{"too many nested clauses", context.Background(), 500, structErr(500, "search_phase_execution_exception", "secret count",
			"too_many_nested_clauses", "too_many_nested_clauses"), search.ErrRefused, search.KindRefused},
		{"too many clauses", context.Background(), 500, structErr(500, "search_phase_execution_exception", "secret count", "too_many_clauses"), search.ErrRefused, search.KindRefused},
		{"a shard failed besides", context.Background(), 500, structErr(500, "search_phase_execution_exception", "secret",
			"too_many_nested_clauses", "node_closed_exception"), nil, search.KindEngineFault},
		{"another 4xx", context.Background(), 404, structErr(404, "resource_not_found_exception", "secret resource"), nil, search.KindInternal},
		{"internal", context.Background(), 500, fmt.Errorf("%w: body: %q", opensearch.ErrJSONUnmarshalBody, "secret trace"), nil, search.KindEngineFault},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := classify(tt.ctx, OpenSearch, "search", tt.status, tt.err)
			if tt.want != nil && !errors.Is(err, tt.want) {
				t.Errorf("classify = %v, want one wrapping %v", err, tt.want)
			}
			if got := search.Kind(err); got != tt.kind {
				t.Errorf("search.Kind(%v) = %v, want %v", err, got, tt.kind)
			}
			if tt.status != 0 {
				// The engine's own text never travels up; status and type do.
				if strings.Contains(err.Error(), "secret") {
					t.Errorf("classify = %q, which repeats the engine's text", err)
				}
				var ee *EngineError
				if tt.want != context.DeadlineExceeded && tt.want != context.Canceled && (!errors.As(err, &ee) || ee.Status != tt.status) {
					t.Errorf("classify = %v, want an *EngineError with status %d in the chain", err, tt.status)
				}
			}
		})
	}
	if err := classify(context.Background(), OpenSearch, "search", 0, nil); err != nil {
		t.Errorf("classify(nil) = %v", err)
	}
}

// TestErrorsNameTheEngine: an error says which engine answered, never OpenSearch for Elasticsearch.
func TestErrorsNameTheEngine(t *testing.T) {
	for _, p := range []Product{Elasticsearch, OpenSearch} {
		t.Run(string(p), func(t *testing.T) {
			var partial answerShards
			partial.Shards.Failed = 1
			errs := []error{
				classify(context.Background(), p, "search", 400, errors.New("bad request")),
				classify(context.Background(), p, "search", 0, errors.New("connection refused")),
				classify(context.Background(), p, "search", 0, context.DeadlineExceeded),
				partial.failure(p, "search"),
			}
			if _, err := New(Config{Product: p}); err != nil {
				errs = append(errs, err)
			} else {
				t.Error("New without a URL: no error")
			}
			for _, err := range errs {
				if msg := err.Error(); !strings.Contains(msg, string(p)+" search:") && !strings.HasPrefix(msg, string(p)+":") {
					t.Errorf("error %q does not name %s", msg, p)
				}
			}
		})
	}
}

// hangingServer accepts connections and never answers, like an engine stuck in a long collection.
func hangingServer(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	t.Cleanup(func() {
		ln.Close()
		wg.Wait()
	})
	wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Go(func() {
				defer c.Close()
				io.Copy(io.Discard, c)
			})
		}
	})
	return "http://" + ln.Addr().String()
}

func TestSearchBody(t *testing.T) {
	encode := func(v any) string {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	t.Run("text is only ever match queries, each word exactly and within its typo allowance", func(t *testing.T) {
		for _, tt := range []struct {
			text  string
			words []string // each word's terms (search/text), as sent to the engine; nil: nothing searchable, so match_none
		}{
			{`title:x OR (y*)`, []string{"title", "x", "or", "y"}},
			{`"a" AND -b`, []string{"a", "and", "b"}},
			{`\`, nil},
			{`{"json": 1}`, []string{"json", "1"}},
			{"harbour-sunset/thames", []string{"harbour", "sunset", "thames"}},
			{"don’t U.S. 1,000 snake_case", []string{"don't", "u.s", "1,000", "snake_case"}},
			{"quasar,desert a;b 1;2 a.1", []string{"quasar", "desert", "a", "b", "1;2", "1"}},
			{"col·lecció l'école 3.14", []string{"col·leccio", "ecole", "3.14"}},
			{"  harbour  sunset harbour ", []string{"harbour", "sunset"}},
			{"zeppelin & history", []string{"zeppelin", "history"}},
			{"& -- !", nil},
			{"東京 タワー", []string{"東京", "タワ ワー"}},
		} {
			body := searchBody(search.NewRequest(search.Query{Text: tt.text, Sort: search.SortRelevance, Page: 1, PerPage: 10}))
			s := encode(body)
			if strings.Contains(s, "query_string") {
				t.Errorf("body for %q uses a query parser: %s", tt.text, s)
			}
			// The tree as the engine reads it: a word's query is encoded already (wordQuery).
			var tree obj
			if err := json.Unmarshal([]byte(s), &tree); err != nil {
				t.Fatal(err)
			}
			must := tree["query"].(obj)["bool"].(obj)["must"].([]any)
			if tt.words == nil {
				if len(must) != 1 || must[0].(obj)["match_none"] == nil {
					t.Errorf("text %q: must = %s, want match_none", tt.text, encode(must))
				}
				continue
			}
			var words []string
			fuzziness := fmt.Sprintf("AUTO:%d,%d", search.OneTypoFrom, search.TwoTyposFrom)
			scored := must[0].(obj)["function_score"].(obj)["query"].(obj)["bool"].(obj)["must"].([]any)
			for _, m := range scored {
				var word any
				for _, q := range m.(obj)["dis_max"].(obj)["queries"].([]any) {
					for field, match := range q.(obj)["constant_score"].(obj)["filter"].(obj)["match"].(obj) {
						match := match.(obj)
						if strings.HasPrefix(field, "s_") {
							// A stem field's clause matches any of the word's stems.
							if match["operator"] != "or" || match["fuzziness"] != nil {
								t.Errorf("text %q: %s, want any stem exactly", tt.text, encode(m))
							}
							continue
						}
						if word == nil {
							word = match["query"]
						}
						if f := match["fuzziness"]; (f != nil && f != fuzziness) || match["operator"] != "and" || match["query"] != word {
							t.Errorf("text %q: %s, want the word exactly and within the typo allowance, every token", tt.text, encode(m))
						}
					}
				}
				words = append(words, word.(string))
			}
			if !slices.Equal(words, tt.words) {
				t.Errorf("text %q: match queries for each of %q, want %q", tt.text, words, tt.words)
			}
		}
	})
	t.Run("every order ends with id", func(t *testing.T) {
		for _, s := range search.Sorts {
			for _, text := range []string{"", "x"} {
				clauses := sortClauses(&search.Query{Sort: s, Text: text})
				if got := encode(clauses[len(clauses)-1]); got != `{"id":{"order":"asc"}}` {
					t.Errorf("sort %s (text %q) ends with %s", s, text, got)
				}
				for _, c := range clauses {
					if d, ok := c.(obj)["date"].(obj); ok && d["missing"] != "_last" {
						t.Errorf("sort %s puts items without a date %v", s, d["missing"])
					}
				}
			}
		}
	})
	t.Run("window", func(t *testing.T) {
		tests := []struct{ page, perPage, from, size int }{
			{1, 20, 0, 20},
			{3, 7, 14, 7},
			{200, 50, 9950, 50},
			{201, 50, 0, 0},
			{5000, 50, 0, 0},
		}
		for _, tt := range tests {
			body := searchBody(search.NewRequest(search.Query{Page: tt.page, PerPage: tt.perPage}))
			if body["from"] != tt.from || body["size"] != tt.size || body["track_total_hits"] != true {
				t.Errorf("page %d of %d: from %v size %v total %v; want from %d size %d and an exact total",
					tt.page, tt.perPage, body["from"], body["size"], body["track_total_hits"], tt.from, tt.size)
			}
		}
	})
	t.Run("filters", func(t *testing.T) {
		body := searchBody(search.NewRequest(search.Query{Type: "photo", Author: "Émile Durand", From: "2000-01-01", License: "by,cc0",
			Reuse: "commercial,modification", Has: "media", Page: 1, PerPage: 10}))
		got := encode(body["query"].(obj)["bool"].(obj)["filter"])
		want := `[{"term":{"author":"Émile Durand"}},{"term":{"type":"photo"}},{"terms":{"media_license.id":["by","cc0"]}},` +
			`{"term":{"media_license.commercial":true}},{"term":{"media_license.modification":true}},{"term":{"has":"media"}},` +
			`{"range":{"date":{"format":"yyyy-MM-dd","gte":"2000-01-01"}}}]`
		if got != want {
			t.Errorf("filters = %s, want %s", got, want)
		}
	})
}

// TestEngineErrorHidden: an engine that refuses a query (here: an operator's mapping that cannot
// sort titles or count categories) gives an *EngineError that carries the status and type, and
// none of its text, whether the search went alone or in an _msearch beside its facets'.
func TestEngineErrorHidden(t *testing.T) {
	def := `{"settings": {"index": {"number_of_shards": 1, "number_of_replicas": 0}},
		"mappings": {"properties": {"id": {"type": "keyword"}, "title_sort": {"type": "text"}, "date": {"type": "date"},
		"category": {"type": "text"}}}}`
	b := newBackend(t, Config{Mapping: []byte(def)})
	load(t, b, []search.Item{{ID: "a", Type: "photo", Title: "A", Category: "ships"}})
	for _, q := range []search.Query{
		{Sort: search.SortAZ, Page: 1, PerPage: 10},
		{Sort: search.SortAZ, Page: 1, PerPage: 10, Facets: search.FacetSet(search.FacetType)},
		{Sort: search.SortNewest, Page: 1, PerPage: 10, Facets: search.FacetSet(search.FacetCategory)},
	} {
		_, err := b.Search(t.Context(), search.NewRequest(q))
		var ee *EngineError
		if !errors.As(err, &ee) || ee.Status != http.StatusBadRequest {
			t.Fatalf("Search sorted on or counting a text field (%+v): error %v, want an *EngineError with status 400", q, err)
		}
		if msg := strings.ToLower(err.Error()); strings.Contains(msg, "fielddata") || strings.Contains(msg, "title_sort") || strings.Contains(msg, "category") {
			t.Errorf("error %q repeats the engine's reason", err)
		}
		if errors.Is(err, search.ErrUnavailable) {
			t.Errorf("error %v claims the engine is unavailable", err)
		}
	}
}

// roundTrip is an http.RoundTripper of a function: an engine played by the test.
type roundTrip func(*http.Request) (*http.Response, error)

func (f roundTrip) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// TestMultiSearchErrors: the error answer of either search of an _msearch (a browse with facets:
// its page's and its facets') is the search's, classified as a _search's answer would be, without
// the engine's text; an answer lacking shards is asked for again, as a _search's is.
func TestMultiSearchErrors(t *testing.T) {
	page := `{"_shards":{"failed":0},"hits":{"total":{"value":1},"hits":[{"_index":"i","_source":{"id":"a"}}]},"status":200}`
	facets := `{"_shards":{"failed":0},"aggregations":{"facet_type":{"buckets":[{"key":"photo","doc_count":1}]}},"status":200}`
	partial := `{"_shards":{"failed":1,"failures":[{"reason":{"type":"node_closed_exception"}}]},"status":200}`
	failure := func(status int, typ string) string {
		return fmt.Sprintf(`{"error":{"type":%q,"reason":"secret reason"},"status":%d}`, typ, status)
	}
	for _, tt := range []struct {
		name string
		// answers are the engine's answers, one _msearch after another: each search's.
		answers [][2]string
		// want is the sentinel the error must wrap, or nil for a plain *EngineError; status is
		// the *EngineError's, 0 when the search must succeed.
		want   error
		status int
	}{
		{"both answer", [][2]string{{page, facets}}, nil, 0},
		{"the page's is refused", [][2]string{{failure(400, "search_phase_execution_exception"), facets}}, nil, 400},
		{"the facets' is refused", [][2]string{{page, failure(400, "illegal_argument_exception")}}, nil, 400},
		{"the engine is busy", [][2]string{{page, failure(429, "es_rejected_execution_exception")}}, search.ErrUnavailable, 429},
		{"a partial answer, then a whole one", [][2]string{{page, partial}, {page, facets}}, nil, 0},
		{"partial answers", [][2]string{{partial, facets}, {partial, facets}, {partial, facets}}, search.ErrUnavailable, 503},
	} {
		t.Run(tt.name, func(t *testing.T) {
			calls := 0
			engine := roundTrip(func(r *http.Request) (*http.Response, error) {
				if r.URL.Path != "/media/_msearch" || r.Header.Get("Content-Type") != "application/x-ndjson" {
					t.Errorf("request %s %s (%s), want an _msearch of the alias", r.Method, r.URL.Path, r.Header.Get("Content-Type"))
				}
				a := tt.answers[min(calls, len(tt.answers)-1)]
				calls++
				return &http.Response{StatusCode: http.StatusOK, Header: http.Header{"Content-Type": {"application/json"}},
					Body: io.NopCloser(strings.NewReader(`{"responses":[` + a[0] + "," + a[1] + `]}`)), Request: r}, nil
			})
			b, err := New(Config{URLs: []string{"http://engine.test"}, Transport: engine})
			if err != nil {
				t.Fatal(err)
			}
			defer b.Close()
			res, err := b.Search(t.Context(), search.NewRequest(search.Query{Facets: search.FacetSet(search.FacetType), Page: 1, PerPage: 10}))
			if tt.status == 0 {
				if err != nil || res.Total != 1 || len(res.Facets[search.FacetType]) != 1 {
					t.Fatalf("Search = %+v, %v; want the page and its facets", res, err)
				}
				if calls != len(tt.answers) {
					t.Errorf("%d calls, want %d", calls, len(tt.answers))
				}
				return
			}
			var ee *EngineError
			if !errors.As(err, &ee) || ee.Status != tt.status || (tt.want != nil && !errors.Is(err, tt.want)) {
				t.Fatalf("Search: %v; want an *EngineError of status %d wrapping %v", err, tt.status, tt.want)
			}
			if tt.want == nil && errors.Is(err, search.ErrUnavailable) {
				t.Errorf("Search: %v claims the engine is unavailable", err)
			}
			if strings.Contains(err.Error(), "secret") {
				t.Errorf("Search: %q repeats the engine's text", err)
			}
		})
	}
}

// TestRefusedQueriesKeepTheBreakerClosed: OpenSearch answers a query past its clause limit with a
// 500 whose root causes are too_many_nested_clauses; the backend says the query was refused, and
// however many such searches come, the circuit breaker in front of it stays closed.
func TestRefusedQueriesKeepTheBreakerClosed(t *testing.T) {
	const body = `{"error":{"root_cause":[{"type":"too_many_nested_clauses","reason":"Query contains too many nested clauses; maxClauseCount is set to 1024"}],` +
		`"type":"search_phase_execution_exception","reason":"all shards failed","phase":"query","grouped":true},"status":500}`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusInternalServerError)
		io.WriteString(w, body)
	}))
	t.Cleanup(srv.Close)
	b, err := New(Config{URLs: []string{srv.URL}, Product: OpenSearch, Alias: "media"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	cb := breaker.New(b, breaker.Options{Failures: 2, OpenFor: time.Hour})
	q := search.Query{Text: "harbour", Sort: search.SortRelevance, Page: 1, PerPage: 10}
	for i := range 10 {
		_, err := cb.Search(t.Context(), search.NewRequest(q))
		if k := search.Kind(err); k != search.KindRefused {
			t.Fatalf("search %d: %v (%v), want the query refused", i, err, k)
		}
	}
}
