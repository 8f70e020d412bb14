package gateway_test

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"mediagw/gateway"
	"mediagw/ratelimit"
	"mediagw/search"
)

// TestItemsParameters holds resource=items to each row of the contract's parameter table: an
// accepted request answers what the backend answers for the query it means.
func TestItemsParameters(t *testing.T) {
	h := newHarness(t)
	q := func(f func(*search.Query)) search.Query {
		sq := search.Query{Sort: search.SortNewest, Page: 1, PerPage: 20}
		f(&sq)
		return sq
	}
	long := strings.Repeat("é", 200)
	tests := []struct {
		name, query string
		want        search.Query
	}{
		{"no parameters", "", q(func(*search.Query) {})},
		{"q searches, relevance by default", "q=harbour", q(func(s *search.Query) { s.Text, s.Sort = "harbour", search.SortRelevance })},
		{"q trimmed", "q=%20%20harbour%09", q(func(s *search.Query) { s.Text, s.Sort = "harbour", search.SortRelevance })},
		{"q of 200 characters", "q=" + url.QueryEscape(long), q(func(s *search.Query) { s.Text, s.Sort = long, search.SortRelevance })},
		{"q empty is no search", "q=%20%20", q(func(*search.Query) {})},
		{"q with query syntax is text", "q=" + url.QueryEscape(`"harbour" OR (title:*) \`), q(func(s *search.Query) { s.Text, s.Sort = `"harbour" OR (title:*) \`, search.SortRelevance })},
		{"type photo", "type=photo", q(func(s *search.Query) { s.Type = "photo" })},
		{"type video", "type=video", q(func(s *search.Query) { s.Type = "video" })},
		{"type document", "type=document", q(func(s *search.Query) { s.Type = "document" })},
		{"category", "category=nature", q(func(s *search.Query) { s.Category = "nature" })},
		{"unknown category slug", "category=no-such-category", q(func(s *search.Query) { s.Category = "no-such-category" })},
		{"author exact", "author=Jane+Doe", q(func(s *search.Query) { s.Author = "Jane Doe" })},
		{"author other case", "author=jane+doe", q(func(s *search.Query) { s.Author = "jane doe" })},
		{"language code", "language=fr", q(func(s *search.Query) { s.Language = "fr" })},
		{"language tag", "language=fr-CA", q(func(s *search.Query) { s.Language = "fr" })},
		{"language name", "language=French", q(func(s *search.Query) { s.Language = "fr" })},
		{"language any case", "language=jA", q(func(s *search.Query) { s.Language = "ja" })},
		{"from", "from=2019-05-04", q(func(s *search.Query) { s.From = "2019-05-04" })},
		{"to", "to=1990-01-01", q(func(s *search.Query) { s.To = "1990-01-01" })},
		{"one day, inclusive", "from=2019-05-04&to=2019-05-04", q(func(s *search.Query) { s.From, s.To = "2019-05-04", "2019-05-04" })},
		{"leap day", "from=2020-02-29&to=2020-02-29", q(func(s *search.Query) { s.From, s.To = "2020-02-29", "2020-02-29" })},
		{"sort newest", "sort=newest", q(func(s *search.Query) { s.Sort = search.SortNewest })},
		{"sort oldest", "sort=oldest", q(func(s *search.Query) { s.Sort = search.SortOldest })},
		{"sort downloads", "sort=downloads", q(func(s *search.Query) { s.Sort = search.SortDownloads })},
		{"sort az", "sort=az", q(func(s *search.Query) { s.Sort = search.SortAZ })},
		{"sort relevance with q", "q=python&sort=relevance", q(func(s *search.Query) { s.Text, s.Sort = "python", search.SortRelevance })},
		{"sort newest with q", "q=python&sort=newest", q(func(s *search.Query) { s.Text, s.Sort = "python", search.SortNewest })},
		{"sort relevance without q is newest", "sort=relevance", q(func(*search.Query) {})},
		{"page", "page=2&per_page=7", q(func(s *search.Query) { s.Page, s.PerPage = 2, 7 })},
		{"page past the end", "page=40", q(func(s *search.Query) { s.Page = 40 })},
		{"per_page 1", "per_page=1", q(func(s *search.Query) { s.PerPage = 1 })},
		{"per_page 50", "per_page=50", q(func(s *search.Query) { s.PerPage = 50 })},
		{"deepest page", "page=200&per_page=50", q(func(s *search.Query) { s.Page, s.PerPage = 200, 50 })},
		{"filters together", "type=photo&category=places&language=English&from=2000-01-01&sort=oldest",
			q(func(s *search.Query) {
				s.Type, s.Category, s.Language, s.From, s.Sort = "photo", "places", "en", "2000-01-01", search.SortOldest
			})},
		{"unknown parameters ignored", "utm_source=x&utm_source=y&callback=z", q(func(*search.Query) {})},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := h.get("/?resource=items&" + tt.query)
			if rec.Code != http.StatusOK {
				t.Fatalf("status %d, want 200: %s", rec.Code, rec.Body)
			}
			body := decode[itemsBody](t, rec)
			want := h.search(tt.want)
			if !slices.Equal(body.ids(), ids(want.Items)) || body.Pagination.Total != want.Total {
				t.Errorf("got %v (total %d), want %v (total %d)", body.ids(), body.Pagination.Total, ids(want.Items), want.Total)
			}
			if body.Data == nil {
				t.Errorf("data is null, want a list")
			}
		})
	}
}

// TestItemsFilterMeaning checks, against the fixture itself, that filters mean what the contract
// says, so the table above cannot pass by asking the backend the wrong question.
func TestItemsFilterMeaning(t *testing.T) {
	h := newHarness(t)
	count := func(f func(search.Item) bool) int {
		n := 0
		for _, it := range h.all {
			if f(it) {
				n++
			}
		}
		return n
	}
	tests := []struct {
		query string
		match func(search.Item) bool
	}{
		{"type=video", func(it search.Item) bool { return it.Type == "video" }},
		{"category=nature", func(it search.Item) bool { return it.Category == "nature" }},
		{"category=no-such-category", func(search.Item) bool { return false }},
		{"author=Jane+Doe", func(it search.Item) bool { return it.Author == "Jane Doe" }},
		{"language=French", func(it search.Item) bool { return it.Language == "fr" }},
		{"language=ru-RU", func(it search.Item) bool { return it.Language == "ru" }},
		{"from=2019-05-04&to=2019-05-04", func(it search.Item) bool { return it.Date == "2019-05-04" }},
		{"from=2000-01-01&to=2000-01-02", func(it search.Item) bool { return it.Date >= "2000-01-01" && it.Date <= "2000-01-02" }},
		{"type=photo&language=es&category=places", func(it search.Item) bool {
			return it.Type == "photo" && it.Language == "es" && it.Category == "places"
		}},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			body := decode[itemsBody](t, h.get("/?resource=items&per_page=50&"+tt.query))
			if want := count(tt.match); body.Pagination.Total != want {
				t.Errorf("total %d, want %d", body.Pagination.Total, want)
			}
			for _, d := range body.Data {
				if !tt.match(h.items[d.ID]) {
					t.Errorf("item %s does not match", d.ID)
				}
			}
		})
	}
}

func TestItemsBadParameters(t *testing.T) {
	h := newHarness(t)
	tests := []struct {
		name, query string
		params      []string
	}{
		{"q too long", "q=" + strings.Repeat("x", 201), []string{"q"}},
		{"type", "type=audio", []string{"type"}},
		{"category malformed", "category=Not_A_Slug", []string{"category"}},
		{"category too long", "category=" + strings.Repeat("a", 101), []string{"category"}},
		{"author too long", "author=" + strings.Repeat("x", 201), []string{"author"}},
		{"language", "language=Klingon", []string{"language"}},
		{"language three letters", "language=fra", []string{"language"}},
		{"from malformed", "from=04/05/2021", []string{"from"}},
		{"from impossible", "from=2023-02-30", []string{"from"}},
		{"to impossible", "to=2021-13-01", []string{"to"}},
		{"from after to", "from=2021-01-02&to=2021-01-01", []string{"from"}},
		{"sort", "sort=random", []string{"sort"}},
		{"page zero", "page=0", []string{"page"}},
		{"page not a number", "page=two", []string{"page"}},
		{"per_page zero", "per_page=0", []string{"per_page"}},
		{"per_page not clamped", "per_page=51", []string{"per_page"}},
		{"too deep", "page=201&per_page=50", []string{"page"}},
		{"repeated", "type=photo&type=video", []string{"type"}},
		{"bad percent-encoding", "q=%E2%28", []string{"q"}},
		{"several at once", "type=audio&language=xx&from=2023-02-30&sort=random&per_page=500",
			[]string{"type", "language", "from", "sort", "per_page"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := h.get("/?resource=items&" + tt.query)
			p := expectProblem(t, rec, http.StatusBadRequest, "invalid-parameter")
			if !slices.Equal(p.params(), tt.params) {
				t.Errorf("errors name %v, want %v: %s", p.params(), tt.params, rec.Body)
			}
			for _, e := range p.Errors {
				if e.Value == nil || e.Message == "" || !strings.Contains(p.Detail, e.Message) {
					t.Errorf("error %+v: want its value and a message the detail repeats (%q)", e, p.Detail)
				}
				if e.Value != nil && utf8.RuneCountInString(*e.Value) > 100 {
					t.Errorf("value of %d characters echoed, want at most 100 with the ellipsis", utf8.RuneCountInString(*e.Value))
				}
			}
		})
	}
	t.Run("too deep says to narrow", func(t *testing.T) {
		p := expectProblem(t, h.get("/?resource=items&page=10000"), http.StatusBadRequest, "invalid-parameter")
		if !strings.Contains(p.Detail, "narrow the query") || !strings.Contains(p.Detail, "cursor=*") {
			t.Errorf("detail %q does not say to narrow the query or walk with cursor=*", p.Detail)
		}
		// Found by scripts/schemathesis.sh: the detail read "page page × per_page may not pass …".
		if want := "page must be at most 500 with per_page=20"; !strings.HasPrefix(p.Detail, want) {
			t.Errorf("detail %q, want it to start with %q", p.Detail, want)
		}
	})
}

// percentEncoded writes every byte of s as %XX: the longest way to send a value.
func percentEncoded(s string) string {
	var sb strings.Builder
	for i := 0; i < len(s); i++ {
		fmt.Fprintf(&sb, "%%%02X", s[i])
	}
	return sb.String()
}

// longestLegalQuery has every parameter of the contract at its longest, every value wholly
// percent-encoded, q and author of 4-byte characters, the language a 35-character tag.
func longestLegalQuery() string {
	return "resource=items" +
		"&id=" + percentEncoded(strings.Repeat("i", 128)) +
		"&q=" + percentEncoded(strings.Repeat("😀", 200)) +
		"&author=" + percentEncoded(strings.Repeat("😀", 200)) +
		"&type=" + percentEncoded("document") +
		"&category=" + percentEncoded(strings.Repeat("c", 100)) +
		"&language=" + percentEncoded("sl-Latn-IT-rozaj-biske-1994-x-abcde") +
		"&from=" + percentEncoded("2001-01-01") + "&to=" + percentEncoded("2001-12-31") +
		"&sort=" + percentEncoded("relevance") +
		"&page=" + percentEncoded("000000001") + "&per_page=" + percentEncoded("000000050")
}

// longestWalkQuery is longestLegalQuery with a cursor of search.MaxCursorBytes instead of page:
// the longest query the gateway reads (a real cursor is not made of 'A's, so it answers 400).
func longestWalkQuery() string {
	return strings.Replace(longestLegalQuery(), "&page="+percentEncoded("000000001"),
		"&cursor="+percentEncoded(strings.Repeat("A", search.MaxCursorBytes)), 1)
}

// TestQuerySize: a query string too big to be legal is refused with 414, still counted by the
// rate limit; the longest legal one is served.
func TestQuerySize(t *testing.T) {
	h := newHarness(t)
	longest := longestLegalQuery()
	if rec := h.get("/?" + longest); rec.Code != http.StatusOK {
		t.Fatalf("longest legal query (%d bytes): status %d: %s", len(longest), rec.Code, rec.Body)
	}
	if rec := h.get("/?" + longestWalkQuery()); rec.Code != http.StatusBadRequest {
		t.Fatalf("longest query with a cursor (%d bytes): status %d, want 400 for its cursor: %s", len(longestWalkQuery()), rec.Code, rec.Body)
	}
	keys := make([]string, 150_000)
	for i := range keys {
		keys[i] = strconv.FormatInt(int64(i), 36) + "=1"
	}
	tests := []struct{ name, query string }{
		{"1 MB of q", "resource=items&q=" + strings.Repeat("x", 1<<20)},
		{"150,000 keys", "resource=items&" + strings.Join(keys, "&")},
		{"65 parameters", "resource=items" + strings.Repeat("&utm=x", 64)},
		{"twice the longest query read", longestWalkQuery() + "&" + longestWalkQuery()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := h.get("/?" + tt.query)
			p := expectProblem(t, rec, http.StatusRequestURITooLong, "uri-too-long")
			if !strings.Contains(p.Detail, "query string may hold at most") || len(p.Errors) != 0 {
				t.Errorf("detail %q, errors %+v", p.Detail, p.Errors)
			}
		})
	}
	t.Run("counted", func(t *testing.T) {
		limited := newHarness(t, withConfig(func(c *gateway.Config) { c.RatePolicy.Limit = 1 }),
			withLimiter(ratelimit.NewMemory(ratelimit.Policy{Limit: 1, Window: time.Minute}, fixedNow)))
		huge := "/?" + tests[0].query
		expectProblem(t, limited.get(huge), http.StatusRequestURITooLong, "uri-too-long")
		expectProblem(t, limited.get(huge), http.StatusTooManyRequests, "rate-limited")
	})
}

func TestResourceParameter(t *testing.T) {
	h := newHarness(t)
	for _, target := range []string{"/", "/?resource=", "/?resource=photos", "/?q=harbour"} {
		p := expectProblem(t, h.get(target), http.StatusBadRequest, "invalid-parameter")
		if !slices.Equal(p.params(), []string{"resource"}) || !strings.Contains(p.Errors[0].Message, "items, item, categories, authors") {
			t.Errorf("%s: want one error on resource listing the allowed values, got %+v", target, p.Errors)
		}
	}
	expectProblem(t, h.get("/?resource=items&resource=authors"), http.StatusBadRequest, "invalid-parameter")
}

func TestPaginationAndLinks(t *testing.T) {
	h := newHarness(t)
	total := len(h.all)
	perPage := 7
	lastPage := (total + perPage - 1) / perPage
	base := publicURL + "/?resource=items&"
	link := func(page int) string {
		return base + url.Values{"page": {itoa(page)}, "per_page": {itoa(perPage)}}.Encode()
	}

	seen := map[string]bool{}
	for page := 1; page <= lastPage; page++ {
		rec := h.get("/?resource=items&per_page=" + itoa(perPage) + "&page=" + itoa(page) + "&junk=1")
		body := decode[itemsBody](t, rec)
		pg := body.Pagination
		if pg.Page != page || pg.PerPage != perPage || pg.Total != total || pg.TotalPages != lastPage {
			t.Fatalf("page %d: pagination %+v", page, pg)
		}
		for _, id := range body.ids() {
			if seen[id] {
				t.Errorf("item %s on two pages", id)
			}
			seen[id] = true
		}
		l := body.Links
		if l.Self != link(page) || l.First != link(1) || l.Last != link(lastPage) {
			t.Errorf("page %d: links %+v", page, l)
		}
		if (page == 1) != (l.Prev == nil) || (page > 1 && *l.Prev != link(page-1)) {
			t.Errorf("page %d: prev %v", page, l.Prev)
		}
		if (page == lastPage) != (l.Next == nil) || (page < lastPage && *l.Next != link(page+1)) {
			t.Errorf("page %d: next %v", page, l.Next)
		}
		wantHeader := []string{`<` + l.Self + `>; rel="self"`, `<` + l.First + `>; rel="first"`}
		if l.Prev != nil {
			wantHeader = append(wantHeader, `<`+*l.Prev+`>; rel="prev"`)
		}
		if l.Next != nil {
			wantHeader = append(wantHeader, `<`+*l.Next+`>; rel="next"`)
		}
		wantHeader = append(wantHeader, `<`+l.Last+`>; rel="last"`)
		if got := rec.Header().Get("Link"); got != strings.Join(wantHeader, ", ") {
			t.Errorf("page %d: Link %q", page, got)
		}
	}
	if len(seen) != total {
		t.Errorf("pages held %d items, want %d", len(seen), total)
	}

	t.Run("links keep the normalized query", func(t *testing.T) {
		body := decode[itemsBody](t, h.get("/?resource=items&language=English&q=+harbour+&sort=relevance&type=photo&utm=1"))
		want := base + "language=en&page=1&per_page=20&q=harbour&type=photo"
		if body.Links.Self != want {
			t.Errorf("self %q, want %q", body.Links.Self, want)
		}
	})
	t.Run("nothing matches", func(t *testing.T) {
		rec := h.get("/?resource=items&category=no-such-category")
		if !strings.Contains(rec.Body.String(), `"data":[]`) {
			t.Errorf("body %s: want data []", rec.Body)
		}
		body := decode[itemsBody](t, rec)
		if body.Pagination.Total != 0 || body.Pagination.TotalPages != 0 || body.Links.Prev != nil || body.Links.Next != nil {
			t.Errorf("pagination %+v links %+v", body.Pagination, body.Links)
		}
	})
	t.Run("past the end", func(t *testing.T) {
		body := decode[itemsBody](t, h.get("/?resource=items&per_page=50&page=9"))
		if len(body.Data) != 0 || body.Links.Next != nil || body.Links.Prev == nil || !strings.Contains(*body.Links.Prev, "page=2&") {
			t.Errorf("data %v links %+v: want no data, prev the last page, no next", body.ids(), body.Links)
		}
	})
}

func TestItemsEnvelope(t *testing.T) {
	h := newHarness(t)
	// ph-full, first for both words in its title, holds every optional field the envelope shows.
	rec := h.get("/?resource=items&q=sunset+harbour")
	if ct := rec.Header().Get("Content-Type"); ct != "application/json; charset=utf-8" {
		t.Errorf("Content-Type %q", ct)
	}
	body := decode[itemsBody](t, rec)
	if body.Attribution != h.cfg.Attribution {
		t.Errorf("attribution %q", body.Attribution)
	}
	if len(body.Data) == 0 || body.Data[0].ID != "ph-full" {
		t.Fatalf("q=sunset harbour: got %v, want ph-full first", body.ids())
	}
	raw := decode[struct {
		Data []map[string]any `json:"data"`
	}](t, rec)
	for _, k := range []string{"id", "type", "title", "summary", "author", "category", "language", "date", "downloads", "tags", "permalink", "thumbnail_url"} {
		if _, ok := raw.Data[0][k]; !ok {
			t.Errorf("item lacks %q", k)
		}
	}
	for _, d := range body.Data {
		if d.Tags == nil {
			t.Errorf("%s: tags null, want a list", d.ID)
		}
		if it := h.items[d.ID]; it.Permalink == "" && d.Permalink != publicURL+"/?resource=item&id="+d.ID {
			t.Errorf("%s: permalink %q, want the API's item URL", d.ID, d.Permalink)
		}
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
