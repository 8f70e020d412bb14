package params

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"mediagw/search"
)

func TestParseItemsQueryAccepts(t *testing.T) {
	def := search.Query{Sort: search.SortNewest, Page: 1, PerPage: 20}
	with := func(f func(q *search.Query)) search.Query {
		q := def
		f(&q)
		return q
	}
	tests := []struct {
		raw  string
		want search.Query
	}{
		{"", def},
		{"q=", def},
		{"q=+++", def},
		{"q=%20harbour%20", with(func(q *search.Query) { q.Text, q.Given, q.Sort = "harbour", "harbour", search.SortRelevance })},
		{"q=" + strings.Repeat("é", 200), with(func(q *search.Query) {
			q.Text, q.Given, q.Sort = strings.Repeat("é", 200), strings.Repeat("é", 200), search.SortRelevance
		})},
		{"q=a&sort=az", with(func(q *search.Query) { q.Text, q.Given, q.Sort = "a", "a", search.SortAZ })},
		{"sort=relevance", def},
		{"sort=oldest", with(func(q *search.Query) { q.Sort = search.SortOldest })},
		{"sort=downloads", with(func(q *search.Query) { q.Sort = search.SortDownloads })},
		{"type=photo", with(func(q *search.Query) { q.Type = "photo" })},
		{"type=video", with(func(q *search.Query) { q.Type = "video" })},
		{"type=document", with(func(q *search.Query) { q.Type = "document" })},
		{"type=", def},
		{"category=pycon-us", with(func(q *search.Query) { q.Category = "pycon-us" })},
		{"category=" + strings.Repeat("a", 100), with(func(q *search.Query) { q.Category = search.List(strings.Repeat("a", 100)) })},
		{"author=Jane+Doe", with(func(q *search.Query) { q.Author = "Jane Doe" })},
		{"author=" + strings.Repeat("é", 200), with(func(q *search.Query) { q.Author = strings.Repeat("é", 200) })},
		{"language=en", with(func(q *search.Query) { q.Language = "en" })},
		{"language=EN", with(func(q *search.Query) { q.Language = "en" })},
		{"language=en-GB", with(func(q *search.Query) { q.Language = "en" })},
		{"language=zh-Hant-TW", with(func(q *search.Query) { q.Language = "zh" })},
		{"language=English", with(func(q *search.Query) { q.Language = "en" })},
		{"language=english", with(func(q *search.Query) { q.Language = "en" })},
		{"language=NORWEGIAN", with(func(q *search.Query) { q.Language = "no" })},
		{"language=iw", with(func(q *search.Query) { q.Language = "he" })},
		{"from=2020-02-29", with(func(q *search.Query) { q.From = "2020-02-29" })},
		{"to=1999-12-31", with(func(q *search.Query) { q.To = "1999-12-31" })},
		{"from=2020-01-01&to=2020-01-01", with(func(q *search.Query) { q.From, q.To = "2020-01-01", "2020-01-01" })},
		{"page=3", with(func(q *search.Query) { q.Page = 3 })},
		{"per_page=1", with(func(q *search.Query) { q.PerPage = 1 })},
		{"per_page=50", with(func(q *search.Query) { q.PerPage = 50 })},
		{"page=200&per_page=50", with(func(q *search.Query) { q.Page, q.PerPage = 200, 50 })},
		{"page=500", with(func(q *search.Query) { q.Page = 500 })},
		{"page=007", with(func(q *search.Query) { q.Page = 7 })},
		{"page=000000000000000000007", with(func(q *search.Query) { q.Page = 7 })},
		{"type=video,photo", with(func(q *search.Query) { q.Type = "photo,video" })},
		{"type=photo,+video,photo", with(func(q *search.Query) { q.Type = "photo,video" })},
		{"category=pycon-us,nature", with(func(q *search.Query) { q.Category = "nature,pycon-us" })},
		{"language=English,fr-CA,en", with(func(q *search.Query) { q.Language = "en,fr" })},
		{"license=by-sa,cc0", with(func(q *search.Query) { q.License = "by-sa,cc0" })},
		{"license=unknown", with(func(q *search.Query) { q.License = "unknown" })},
		{"reuse=modification,commercial", with(func(q *search.Query) { q.Reuse = "commercial,modification" })},
		{"format=mp4,webm,other", with(func(q *search.Query) { q.Format = "mp4,other,webm" })},
		{"duration=long,short", with(func(q *search.Query) { q.Duration = "long,short" })},
		{"has=thumbnail,media", with(func(q *search.Query) { q.Has = "media,thumbnail" })},
		{"unknown=1&unknown=2&resource=items", def},
	}
	for _, tt := range tests {
		t.Run(tt.raw, func(t *testing.T) {
			got, errs := parsed(Split(tt.raw))
			if errs != nil {
				t.Fatalf("errors %+v, want none", errs)
			}
			if got != tt.want {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestParseItemsQueryRejects(t *testing.T) {
	tests := []struct {
		raw string
		// params lists every parameter the errors must name, in order.
		params []string
	}{
		{"q=" + strings.Repeat("x", 201), []string{"q"}},
		{"q=" + strings.Repeat("é", 201), []string{"q"}},
		{"type=audio", []string{"type"}},
		{"type=Photo", []string{"type"}},
		{"category=Nature", []string{"category"}},
		{"category=a_b", []string{"category"}},
		{"category=" + strings.Repeat("a", 101), []string{"category"}},
		{"author=" + strings.Repeat("x", 201), []string{"author"}},
		{"language=xx", []string{"language"}},
		{"language=eng", []string{"language"}},
		{"language=en-", []string{"language"}},
		{"language=en-!!", []string{"language"}},
		{"language=Klingon", []string{"language"}},
		{"from=2023-02-30", []string{"from"}},
		{"from=2023-2-3", []string{"from"}},
		{"to=20230203", []string{"to"}},
		{"to=2023-02-03T00:00:00Z", []string{"to"}},
		{"from=2021-01-02&to=2021-01-01", []string{"from"}},
		{"sort=best", []string{"sort"}},
		{"sort=NEWEST", []string{"sort"}},
		{"page=0", []string{"page"}},
		{"page=-1", []string{"page"}},
		{"page=+1", []string{"page"}},
		{"page=1.0", []string{"page"}},
		{"page=99999999999999999999", []string{"page"}},
		{"per_page=0", []string{"per_page"}},
		{"per_page=51", []string{"per_page"}},
		{"per_page=500", []string{"per_page"}},
		{"per_page=ten", []string{"per_page"}},
		{"page=201&per_page=50", []string{"page"}},
		{"page=501", []string{"page"}},
		{"type=photo&type=video", []string{"type"}},
		{"type=photo,", []string{"type"}},
		{"type=,photo", []string{"type"}},
		{"type=photo,audio", []string{"type"}},
		{"category=nature,Nature", []string{"category"}},
		{"category=" + strings.Repeat("a,", 100) + "a", []string{"category"}},
		{"language=en,xx", []string{"language"}},
		{"license=cc", []string{"license"}},
		{"license=BY", []string{"license"}},
		{"reuse=commercial,share", []string{"reuse"}},
		{"format=jpg", []string{"format"}},
		{"duration=brief", []string{"duration"}},
		{"has=media,audio", []string{"has"}},
		{"q=a&q=a", []string{"q"}},
		{"q=%ff", []string{"q"}},
		{"type=audio&per_page=500&from=2023-02-30&to=x&sort=best&language=xx&page=0",
			[]string{"type", "language", "from", "to", "sort", "page", "per_page"}},
	}
	for _, tt := range tests {
		t.Run(tt.raw, func(t *testing.T) {
			_, errs := parsed(Split(tt.raw))
			var got []string
			for _, fe := range errs {
				got = append(got, fe.Parameter)
				if fe.Message == "" || fe.Value == nil {
					t.Errorf("error %+v lacks a message or the value", fe)
				}
			}
			if strings.Join(got, ",") != strings.Join(tt.params, ",") {
				t.Errorf("errors name %v, want %v (%+v)", got, tt.params, errs)
			}
		})
	}
}

func TestListErrorNamesTheBadValue(t *testing.T) {
	tests := []struct{ raw, param, says string }{
		{"type=photo,audio", "type", `"audio" is not`},
		{"license=by,cc", "license", `"cc" is not`},
		{"type=photo,", "type", "an empty value is not"},
		{"reuse=share", "reuse", "every one of them"},
	}
	for _, tt := range tests {
		t.Run(tt.raw, func(t *testing.T) {
			_, errs := parsed(Split(tt.raw))
			if len(errs) != 1 || errs[0].Parameter != tt.param || !strings.Contains(errs[0].Message, tt.says) {
				t.Fatalf("got %+v, want one error of %s saying %s", errs, tt.param, tt.says)
			}
		})
	}
}

func TestDepthErrorSaysToNarrow(t *testing.T) {
	_, errs := parsed(Split("page=201&per_page=50"))
	if len(errs) != 1 || !strings.Contains(errs[0].Message, "narrow the query") {
		t.Fatalf("got %+v, want one error telling to narrow the query", errs)
	}
}

// TestHugePageSaysTheLargest: a page number too large for any integer is a page too deep, told
// the largest page it may be, with the value as sent.
func TestHugePageSaysTheLargest(t *testing.T) {
	for query, want := range map[string]string{
		"page=99999999999999999999":             "must be at most 500 with per_page=20",
		"page=99999999999999999999&per_page=50": "must be at most 200 with per_page=50",
		"page=0000000000000500":                 "",
		"page=501":                              "must be at most 500 with per_page=20",
	} {
		_, errs := parsed(Split(query))
		if want == "" {
			if len(errs) != 0 {
				t.Errorf("%s: %+v, want no error", query, errs)
			}
			continue
		}
		sent := strings.TrimPrefix(strings.Split(query, "&")[0], "page=")
		if len(errs) != 1 || !strings.HasPrefix(errs[0].Message, want) || errs[0].Value == nil || *errs[0].Value != sent {
			t.Errorf("%s: %+v, want one error about page %s saying %q", query, errs, sent, want)
		}
	}
}

func TestSplitQueryMalformed(t *testing.T) {
	rq := Split("resource=items&q=%zz&type=photo&%zz=1")
	_, errs := parsed(rq)
	if len(errs) != 1 || errs[0].Parameter != "q" {
		t.Fatalf("got %+v, want one error about q", errs)
	}
	if got := rq.values.Get("type"); got != "photo" {
		t.Errorf("type = %q, want photo", got)
	}
}

func TestSplitQueryBounds(t *testing.T) {
	params := func(n int) string {
		ps := make([]string, n)
		for i := range ps {
			ps[i] = fmt.Sprintf("p%d=1", i)
		}
		return strings.Join(ps, "&")
	}
	tests := []struct {
		name      string
		raw       string
		oversized bool
	}{
		{"at the byte limit", "q=" + strings.Repeat("x", MaxBytes-2), false},
		{"a byte over", "q=" + strings.Repeat("x", MaxBytes-1), true},
		{"at the parameter limit", params(MaxParams), false},
		{"a parameter over", params(MaxParams + 1), true},
		{"empty pairs are no parameters", params(MaxParams) + strings.Repeat("&", 1000), false},
		{"unreadable keys count", params(MaxParams) + "&%zz=1", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rq := Split(tt.raw)
			if rq.oversized != tt.oversized {
				t.Fatalf("oversized = %v, want %v (%d bytes)", rq.oversized, tt.oversized, len(tt.raw))
			}
			if n := len(rq.values); n > MaxParams {
				t.Errorf("kept %d parameters, want at most %d", n, MaxParams)
			}
		})
	}
}

func TestShorten(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"short", "abc", "abc"},
		{"at the limit", strings.Repeat("x", maxEchoedRunes), strings.Repeat("x", maxEchoedRunes)},
		{"one over", strings.Repeat("x", maxEchoedRunes+1), strings.Repeat("x", maxEchoedRunes-1) + "…"},
		{"characters, not bytes", strings.Repeat("é", 300), strings.Repeat("é", maxEchoedRunes-1) + "…"},
		{"invalid UTF-8", "a\xffb", "a\uFFFDb"},
		{"long invalid UTF-8", strings.Repeat("\xff", 300), strings.Repeat("\uFFFD", maxEchoedRunes-1) + "…"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Shorten(tt.in)
			if got != tt.want {
				t.Errorf("Shorten = %q, want %q", got, tt.want)
			}
			if n := utf8.RuneCountInString(got); n > maxEchoedRunes {
				t.Errorf("%d characters, want at most %d", n, maxEchoedRunes)
			}
		})
	}
}

func TestParseResourceAndID(t *testing.T) {
	for _, tt := range []struct {
		raw, res string
		bad      bool
	}{
		{"resource=items", "items", false},
		{"resource=item", "item", false},
		{"resource=categories", "categories", false},
		{"resource=authors", "authors", false},
		{"", "", true},
		{"resource=", "", true},
		{"resource=Items", "", true},
		{"resource=items&resource=items", "", true},
	} {
		res, errs := ParseResource(Split(tt.raw))
		if res != tt.res || (errs != nil) != tt.bad {
			t.Errorf("%q: got %q %+v, want %q (bad %v)", tt.raw, res, errs, tt.res, tt.bad)
		}
		if tt.bad && !strings.Contains(tt.raw, "&") && !strings.Contains(errs[0].Message, "items, item, categories, authors") {
			t.Errorf("%q: message %q does not list the Resources", tt.raw, errs[0].Message)
		}
	}
	for _, tt := range []struct {
		raw string
		ok  bool
	}{
		{"id=ph-full", true},
		{"id=A.b_c-9", true},
		{"id=" + strings.Repeat("a", 512), true},
		{"id=" + strings.Repeat("a", 513), false},
		{"id=" + strings.Repeat("é", 256), true},
		{"id=" + strings.Repeat("é", 256) + "a", false},
		{"id=pycon-fr-2023-Nua%2C-un-PaaS-%28x%29-l%27auto%2B%21", true},
		{"id=a/b", true},
		{"id=..%2Fetc%2Fpasswd", true},
		{"id=%C3%A9", true},
		{"id=", false},
		{"", false},
		{"id=a+b", false},
		{"id=a%09b", false},
		{"id=a%00b", false},
		{"id=a%C2%A0b", false},
		{"id=a%E3%80%80b", false},
		{"id=a%C2%85b", false},
		{"id=%FF", false},
		{"id=a&id=b", false},
	} {
		_, errs := ParseItemID(Split(tt.raw))
		if (errs == nil) != tt.ok {
			t.Errorf("%q: errors %+v, want ok=%v", tt.raw, errs, tt.ok)
		}
	}
}

func TestItemsQueryValuesRoundTrip(t *testing.T) {
	q, errs := parsed(Split("q=+Élan+&language=French&per_page=5&sort=relevance&page=2&junk=1"))
	if errs != nil {
		t.Fatal(errs)
	}
	canon := Values(&q, q.Page)
	if got, want := canon.Encode(), "language=fr&page=2&per_page=5&q=%C3%89lan"; got != want {
		t.Errorf("canonical query %q, want %q", got, want)
	}
	again, errs := parsed(Split(canon.Encode()))
	if errs != nil || again != q {
		t.Errorf("canonical query parses to %+v %v, want %+v", again, errs, q)
	}
}

func FuzzParseItemsQuery(f *testing.F) {
	for _, s := range []string{
		"", "q=harbour", "q=%ff", "type=photo&type=video", "language=en-GB", "language=English",
		"from=2023-02-30", "from=2021-01-02&to=2021-01-01", "page=200&per_page=50", "page=201&per_page=50",
		"per_page=0", "sort=az&q=x", "q=" + strings.Repeat("é", 201), "author=%00", "category=a-b",
		"language=zh-Hant-TW", "language=x-klingon", "page=99999999999999999999",
		"type=photo,video", "type=photo,", "license=by,by-sa", "reuse=commercial", "format=mp4,other", "language=en,English",
		strings.Repeat("a=1&", 70), strings.Repeat("q=", 5000),
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		rq := Split(raw)
		if n := len(rq.values); n > MaxParams || (len(raw) > MaxBytes && (n > 0 || !rq.oversized)) {
			t.Fatalf("kept %d parameters of a %d-byte query (oversized %v)", n, len(raw), rq.oversized)
		}
		q, errs := parsed(rq)
		if errs != nil {
			for _, fe := range errs {
				if fe.Parameter == "" || fe.Message == "" {
					t.Fatalf("incomplete error %+v", fe)
				}
			}
			return
		}
		for _, s := range append([]string{q.Text, q.Author, q.From, q.To}, q.Filters()...) {
			if !utf8.ValidString(s) {
				t.Fatalf("invalid UTF-8 accepted: %q", s)
			}
		}
		if n := utf8.RuneCountInString(q.Text); n > search.MaxTextRunes || q.Text != strings.TrimSpace(q.Text) {
			t.Fatalf("text %q accepted", q.Text)
		}
		for _, l := range []struct {
			list  search.List
			valid func(string) bool
		}{
			{q.Type, func(v string) bool { return slices.Contains(search.Types, v) }},
			{q.Category, search.ValidSlug},
			{q.Language, func(v string) bool { code, ok := search.LanguageCode(v); return ok && code == v }},
			{q.License, func(v string) bool { return slices.Contains(search.Licenses, v) }},
			{q.Reuse, func(v string) bool { return slices.Contains(search.Reuses, v) }},
			{q.Format, func(v string) bool { return slices.Contains(search.Formats, v) }},
			{q.Duration, func(v string) bool { return slices.Contains(search.Durations, v) }},
			{q.Has, func(v string) bool { return slices.Contains(search.Haves, v) }},
		} {
			if search.ListOf(l.list.Values()...) != l.list || slices.ContainsFunc(l.list.Values(), func(v string) bool { return !l.valid(v) }) {
				t.Fatalf("list %q accepted", l.list)
			}
		}
		if utf8.RuneCountInString(q.Author) > search.MaxAuthorRunes {
			t.Fatalf("author of %d characters accepted", utf8.RuneCountInString(q.Author))
		}
		from, fromOK := search.ParseDate(q.From)
		to, toOK := search.ParseDate(q.To)
		if (q.From != "" && !fromOK) || (q.To != "" && !toOK) || (fromOK && toOK && from.After(to)) {
			t.Fatalf("dates %q..%q accepted", q.From, q.To)
		}
		valid := false
		for _, s := range search.Sorts {
			valid = valid || q.Sort == s
		}
		if !valid || (q.Sort == search.SortRelevance && !q.Searches()) {
			t.Fatalf("sort %q with text %q", q.Sort, q.Text)
		}
		if q.Page < 1 || q.PerPage < 1 || q.PerPage > search.MaxPerPage || q.Page*q.PerPage > search.MaxDepth {
			t.Fatalf("page %d per_page %d accepted", q.Page, q.PerPage)
		}
	})
}
