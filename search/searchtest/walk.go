package searchtest

import (
	"encoding/base64"
	"errors"
	"testing"

	"mediagw/search"
)

// WalkItems is the size of the generated catalogue RunWalks walks: three times the 10,000-item
// window of numbered pages.
const WalkItems = 30000

// walkPerPage is the page size of the conformance walks, the largest a client may ask for.
const walkPerPage = 50

// RunWalks walks every item of a generated catalogue of WalkItems items with cursors, in every
// order and for a text query.
func RunWalks(t *testing.T, open Open) {
	AnswersOnly(t)
	items := Generated(t, WalkItems, 14)
	b := open(t, items)
	testWalks(t, b, items, "harbour")
}

// testWalks walks every match of a query without text in each order and of one with filters, each
// compared with the model, and every match of text by relevance, which must give each item once, total of them, in
// the order numbered pages give them.
// Each walk reads the index as often as it has pages: they run in parallel, with the engine's cores.
func testWalks(t *testing.T, b search.Backend, items []search.Item, text string) {
	for _, s := range []search.Sort{search.SortNewest, search.SortOldest, search.SortDownloads, search.SortAZ} {
		t.Run(string(s), func(t *testing.T) {
			t.Parallel()
			q := search.Query{Sort: s, PerPage: walkPerPage}
			got, total := walkCursor(t, b, q)
			want := expected(items, q)
			if total != len(want) {
				t.Errorf("walk(%s): total %d, want %d", describe(q), total, len(want))
			}
			sameIDsShort(t, "walk("+describe(q)+")", got, want)
		})
	}
	t.Run("filtered", func(t *testing.T) {
		t.Parallel()
		q := search.Query{Type: search.TypePhoto, From: "1900-01-01", Sort: search.SortDownloads, PerPage: walkPerPage}
		got, total := walkCursor(t, b, q)
		want := expected(items, q)
		if total != len(want) || total == 0 {
			t.Errorf("walk(%s): total %d, want %d (not 0)", describe(q), total, len(want))
		}
		sameIDsShort(t, "walk("+describe(q)+")", got, want)
	})
	t.Run("text", func(t *testing.T) {
		t.Parallel()
		q := search.Query{Text: text, Sort: search.SortRelevance, PerPage: walkPerPage}
		got, total := walkCursor(t, b, q)
		if total == 0 {
			t.Fatalf("walk(%s): nothing matches; the check would pass vacuously", describe(q))
		}
		// Numbered pages stop at the window; the walk must agree with them as far as they go.
		paged, _ := walk(t, b, q, walkPerPage)
		sameIDsShort(t, "walk("+describe(q)+") against numbered pages", got[:min(len(got), len(paged))], ids(paged))
	})
}

// walkCursor follows a walk of q from its start to the page without a next cursor, and returns
// the ids it gave, in order, with the total. Each id must come once, the total must stay the same
// on every page, and the walk must give total items.
func walkCursor(t *testing.T, b search.Backend, q search.Query) ([]string, int) {
	t.Helper()
	q.Cursor = search.StartCursor
	var got []string
	seen := map[string]bool{}
	total := -1
	for pages := 1; ; pages++ {
		res := search1(t, b, q)
		if total >= 0 && res.Total != total {
			t.Fatalf("walk(%s): page %d says total %d, the first said %d", describe(q), pages, res.Total, total)
		}
		total = res.Total
		for _, it := range res.Items {
			if seen[it.ID] {
				t.Fatalf("walk(%s): %s given twice (again on page %d)", describe(q), it.ID, pages)
			}
			seen[it.ID] = true
			got = append(got, it.ID)
		}
		if res.Next == "" {
			break
		}
		if len(res.Items) == 0 || pages > total/q.PerPage+1 {
			t.Fatalf("walk(%s): page %d gave %d items and a next cursor, after %d of %d", describe(q), pages, len(res.Items), len(got), total)
		}
		q.Cursor = res.Next
	}
	if len(got) != total {
		t.Errorf("walk(%s): gave %d items, total %d", describe(q), len(got), total)
	}
	return got, total
}

// testCursors checks walks on the fixture with small pages, and that a cursor that does not fit
// its query is refused with the error the gateway turns into its answer.
func testCursors(t *testing.T, b search.Backend, items []search.Item) {
	for _, q := range []search.Query{
		{Sort: search.SortNewest, PerPage: 7},
		{Sort: search.SortOldest, PerPage: 7},
		{Sort: search.SortDownloads, PerPage: 7},
		{Sort: search.SortAZ, PerPage: 7},
		{Type: search.TypePhoto, Sort: search.SortNewest, PerPage: 3},
	} {
		got, total := walkCursor(t, b, q)
		want := expected(items, q)
		if total != len(want) {
			t.Errorf("walk(%s): total %d, want %d", describe(q), total, len(want))
		}
		sameIDs(t, "walk("+describe(q)+")", got, want)
	}
	text := search.Query{Text: "harbour", Sort: search.SortRelevance, PerPage: 2}
	got, _ := walkCursor(t, b, text)
	paged, _ := walk(t, b, text, text.PerPage)
	sameIDs(t, "walk("+describe(text)+") against numbered pages", got, ids(paged))

	// A cursor in the middle of a walk, to spoil.
	q := search.Query{Sort: search.SortNewest, PerPage: 5, Cursor: search.StartCursor}
	next := search1(t, b, q).Next
	if next == "" {
		t.Fatalf("walk(%s): no next cursor after the first page of %d items", describe(q), len(items))
	}
	at, err := search.ParseCursor(next, &q)
	if err != nil {
		t.Fatalf("ParseCursor(a cursor the backend made): %v", err)
	}
	raw, _ := base64.RawURLEncoding.DecodeString(next)
	raw[len(raw)-3] ^= 1
	tampered := base64.RawURLEncoding.EncodeToString(raw)
	other := q
	other.Type = search.TypeVideo
	otherSize := q
	otherSize.PerPage = 6
	for _, tt := range []struct {
		name   string
		q      search.Query
		cursor string
		want   error
	}{
		{"garbage", q, "not a cursor", search.ErrCursorInvalid},
		{"tampered", q, tampered, search.ErrCursorInvalid},
		{"truncated", q, next[:len(next)/2], search.ErrCursorInvalid},
		{"other filters", other, next, search.ErrCursorInvalid},
		{"other per_page", otherSize, next, search.ErrCursorInvalid},
		{"other sort", search.Query{Sort: search.SortAZ, PerPage: 5}, next, search.ErrCursorInvalid},
		{"forged position", q, search.EncodeCursor(&q, search.Cursor{Version: at.Version, Seen: 5, After: []any{"x"}}), search.ErrCursorInvalid},
		{"forged kinds", q, search.EncodeCursor(&q, search.Cursor{Version: at.Version, Seen: 5, After: []any{"2020", 5}}), search.ErrCursorInvalid},
		{"index gone", q, search.EncodeCursor(&q, search.Cursor{Version: "no-such-index", Seen: 5, After: at.After}), search.ErrCursorExpired},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tt.q.Cursor = tt.cursor
			res, err := b.Search(ctx(t), search.NewRequest(tt.q))
			if !errors.Is(err, tt.want) {
				t.Errorf("Search(%s, cursor %.20q…) = %d items, %v; want %v", describe(tt.q), tt.cursor, len(res.Items), err, tt.want)
			}
		})
	}
}
