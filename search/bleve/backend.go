// Package bleve is the embedded search backend: a Bleve index on local disk, built aside and
// switched atomically by a Loader, served read-only by a Backend. A numbered page of a search is
// read from the postings as sets of documents, scored and counted from them (sets.go); Bleve's
// searchers serve walks and what the sets cannot. Beside the searches: facets
// counted in one pass over the search without the facets' filters (facets.go), completions from the
// most downloaded titles or by term and prefix queries on the title (complete.go), related items by
// a disjunction of the item's own terms (related.go), and for a correction the fields' words
// (search/spell's dictionary) and its totals counted on one reader (spell.go).
package bleve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"

	blevesearch "github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/mapping"
	bsearch "github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"

	"mediagw/search"
)

// Keys of the index's internal store, written once when the index is built.
var (
	keyCategories = []byte("mediagw:categories")
	keyAuthors    = []byte("mediagw:authors")
	keyFormat     = []byte("mediagw:format")
)

// format is the index layout (mapping and internal keys) this code reads, search.IndexVersion:
// older indexes are refused with advice instead of answering wrongly.
var format = strconv.Itoa(search.IndexVersion)

// boltTimeout bounds the wait for the index's file lock, so a stuck writer cannot hang a reader.
const boltTimeout = "10s"

// handle is one open index and the queries running on it.
type handle struct {
	name       string
	idx        blevesearch.Index
	categories []search.Category
	authors    []search.Author
	// authorsOf is each document's author, for filtered lists.
	authorsOf authorOrdinals
	// popular are the most downloaded titles, in completions' order (see Complete).
	popular []popularTitle
	// titles are the title terms, for completions through a typo.
	titles titleTerms
	// facets are the facet fields' values (see searchFaceted).
	facets *facetIndex
	// walks rank the items in each order without text, for walks and pages (see rankedPage, pageOrder).
	walks rankings
	// fuzzy keeps the candidates of the typo clauses' words (see fuzzyQuery).
	fuzzy    *fuzzyCache
	inflight sync.WaitGroup
}

// Backend serves searches from the index that the directory's `current` link points at.
// It is safe for concurrent use; Reload swaps indexes without failing queries in flight.
type Backend struct {
	dir string

	mu  sync.RWMutex
	cur *handle

	// reloadMu serialises Reload and Close.
	reloadMu sync.Mutex
	closed   bool
}

var _ search.Backend = (*Backend)(nil)

// Open serves the index that dir/current points at. Without one, the error wraps search.ErrUnavailable.
func Open(dir string) (*Backend, error) {
	name, err := currentName(dir)
	if err != nil {
		return nil, err
	}
	h, err := openHandle(dir, name)
	if err != nil {
		return nil, err
	}
	return &Backend{dir: dir, cur: h}, nil
}

// NewFromItems builds an index of items under dir, makes it current and serves it. For tests and demos.
func NewFromItems(ctx context.Context, dir string, items []search.Item) (*Backend, error) {
	if _, err := NewLoader(dir, 1).Load(ctx, search.Values(items)); err != nil {
		return nil, err
	}
	return Open(dir)
}

func openHandle(dir, name string) (*handle, error) {
	idx, err := blevesearch.OpenUsing(filepath.Join(dir, name), map[string]interface{}{
		"read_only":    true,
		"bolt_timeout": boltTimeout,
	})
	if err != nil {
		return nil, fmt.Errorf("open index %s: %w: %w", name, search.ErrUnavailable, err)
	}
	h := &handle{name: name, idx: idx, fuzzy: newFuzzyCache()}
	if got, err := idx.GetInternal(keyFormat); err != nil || string(got) != format {
		_ = idx.Close()
		return nil, fmt.Errorf("index %s has layout %q, this mediagw reads %q: %w: load the catalogue again or rebuild the index from itself (mediactl load or mediactl reindex; make clean before make run)",
			name, got, format, search.ErrUnavailable)
	}
	if err := h.loadInternal(keyCategories, &h.categories); err != nil {
		_ = idx.Close()
		return nil, err
	}
	if err := h.loadInternal(keyAuthors, &h.authors); err != nil {
		_ = idx.Close()
		return nil, err
	}
	if h.facets, err = loadFacetIndex(context.Background(), idx); err != nil {
		_ = idx.Close()
		return nil, fmt.Errorf("index %s: %w", name, err)
	}
	if h.popular, err = popularTitles(context.Background(), idx, h.facets); err != nil {
		_ = idx.Close()
		return nil, fmt.Errorf("index %s: %w", name, err)
	}
	if h.titles, err = loadTitleTerms(idx); err != nil {
		_ = idx.Close()
		return nil, fmt.Errorf("index %s: %w", name, err)
	}
	h.startRankings()
	return h, nil
}

func (h *handle) loadInternal(key []byte, v any) error {
	raw, err := h.idx.GetInternal(key)
	if err != nil {
		return fmt.Errorf("index %s: read %s: %w", h.name, key, err)
	}
	if raw == nil {
		return fmt.Errorf("index %s: no %s: %w (built by another tool?)", h.name, key, search.ErrUnavailable)
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return fmt.Errorf("index %s: decode %s: %w", h.name, key, err)
	}
	return nil
}

// acquire returns the live index; the caller must call release when its query is done.
func (b *Backend) acquire() (*handle, error) {
	b.mu.RLock()
	defer b.mu.RUnlock()
	if b.cur == nil {
		return nil, fmt.Errorf("index closed: %w", search.ErrUnavailable)
	}
	b.cur.inflight.Add(1)
	return b.cur, nil
}

func (h *handle) release() { h.inflight.Done() }

// retire closes h once the queries still running on it have finished.
func (h *handle) retire() {
	h.walks.stop()
	h.inflight.Wait()
	_ = h.idx.Close()
}

// Version names the index being served (its directory name), known without a call: Reload
// follows the `current` link.
func (b *Backend) Version(context.Context) (string, error) {
	b.mu.RLock()
	defer b.mu.RUnlock()
	if b.cur == nil {
		return "", fmt.Errorf("index version: %w", search.ErrUnavailable)
	}
	return b.cur.name, nil
}

// Reload serves the index `current` points at now, if it changed. It reports whether it switched.
// Queries running on the old index finish there; the old index is closed after them.
func (b *Backend) Reload(ctx context.Context) (bool, error) {
	b.reloadMu.Lock()
	defer b.reloadMu.Unlock()
	if b.closed {
		return false, fmt.Errorf("reload: %w", search.ErrUnavailable)
	}
	if err := ctx.Err(); err != nil {
		return false, fmt.Errorf("reload: %w", err)
	}
	name, err := currentName(b.dir)
	if err != nil {
		return false, err
	}
	if v, _ := b.Version(ctx); name == v {
		return false, nil
	}
	h, err := openHandle(b.dir, name)
	if err != nil {
		return false, err
	}
	b.mu.Lock()
	old := b.cur
	b.cur = h
	b.mu.Unlock()
	// No new query can acquire old any more, so waiting on it cannot race with a new Add.
	go old.retire()
	return true, nil
}

// Close waits for running queries and closes the index.
func (b *Backend) Close() error {
	b.reloadMu.Lock()
	defer b.reloadMu.Unlock()
	if b.closed {
		return nil
	}
	b.closed = true
	b.mu.Lock()
	old := b.cur
	b.cur = nil
	b.mu.Unlock()
	old.walks.stop()
	old.inflight.Wait()
	if err := old.idx.Close(); err != nil {
		return fmt.Errorf("close index %s: %w", old.name, err)
	}
	return nil
}

// Ping reports whether the index answers.
func (b *Backend) Ping(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("ping: %w", err)
	}
	h, err := b.acquire()
	if err != nil {
		return err
	}
	defer h.release()
	if _, err := h.idx.DocCount(); err != nil {
		return fmt.Errorf("ping: %w: %w", search.ErrUnavailable, err)
	}
	return nil
}

// Search returns one page of the items matching r in its Sort order, with the exact total.
func (b *Backend) Search(ctx context.Context, r *search.Request) (search.Result, error) {
	if err := ctx.Err(); err != nil {
		return search.Result{}, fmt.Errorf("search: %w", err)
	}
	q := &r.Query
	page, perPage := q.Page, q.PerPage
	cur, walking, err := r.Walk()
	if err != nil {
		return search.Result{}, fmt.Errorf("search: %w", err)
	}
	h, err := b.acquire()
	if err != nil {
		return search.Result{}, err
	}
	defer h.release()
	if walking && cur.Version != "" && cur.Version != h.name {
		return search.Result{}, fmt.Errorf("search: index %s: %w", cur.Version, search.ErrCursorExpired)
	}
	bq, hasText, err := buildQuery(h.idx.Mapping(), r, h.facets.bonus, h.fuzzy)
	if err != nil {
		return search.Result{}, fmt.Errorf("search: %w", err)
	}
	order := sortOrder(q.Sort)
	from := (page - 1) * perPage
	if walking {
		from = 0
	}
	req := blevesearch.NewSearchRequestOptions(bq, perPage, from, false)
	req.SortByCustom(order)
	req.Fields = []string{fieldStored}
	if cur.After != nil {
		if req.SearchAfter, err = searchAfter(order, cur.After); err != nil {
			return search.Result{}, fmt.Errorf("search: %w", err)
		}
	}
	var (
		hits   []*bsearch.DocumentMatch
		total  int
		facets map[search.Facet][]search.FacetValue
	)
	_, all := bq.(*query.MatchAllQuery)
	sets := !walking && (hasText || q.Facets != 0 || !all)
	if sets {
		hits, total, facets, err = h.setPage(ctx, r, hasText, from)
		sets = !errors.Is(err, errNoSets)
	}
	switch {
	case sets:
	case !hasText && q.Facets == 0 && (walking || h.built(q.Sort) != nil):
		hits, total, err = h.rankedPage(ctx, q, cur, from, bq, order)
	default:
		if pageOrder, ok := h.pageOrder(q.Sort); ok && !walking {
			// Without a cursor to make (position), the rankings can sort the page.
			req.SortByCustom(pageOrder)
		}
		var res *blevesearch.SearchResult
		if res, facets, err = searchFaceted(ctx, h, r, req); err == nil {
			hits, total = res.Hits, int(res.Total)
		}
	}
	if err != nil {
		if ctxErr := ctx.Err(); ctxErr != nil {
			return search.Result{}, fmt.Errorf("search: %w", ctxErr)
		}
		return search.Result{}, fmt.Errorf("search: %w", err)
	}
	out := search.Result{Items: make([]search.Item, 0, len(hits)), Total: total, Facets: facets}
	for _, hit := range hits {
		it, err := storedItem(hit)
		if err != nil {
			return search.Result{}, err
		}
		out.Items = append(out.Items, it)
	}
	if walking && len(hits) > 0 {
		out.Next = cur.Next(q, h.name, len(hits), out.Total, position(order, hits[len(hits)-1]))
	}
	return out, nil
}

// sortKinds are the kinds of the sort values of order, as position gives them.
func sortKinds(order bsearch.SortOrder) []search.SortValue {
	kinds := make([]search.SortValue, len(order))
	for i, s := range order {
		switch s := s.(type) {
		case *bsearch.SortScore:
			kinds[i] = search.SortFloat
		case *bsearch.SortField:
			if s.Type == bsearch.SortFieldAsNumber {
				kinds[i] = search.SortFloat
			}
		}
	}
	return kinds
}

// position is where hit stands in order, as a cursor holds it: the score and numbers as
// json.Number (Bleve's SearchAfter parses them back to the same float), strings as the index
// sorts them (a missing date as Bleve's low or high term), the id last.
func position(order bsearch.SortOrder, hit *bsearch.DocumentMatch) []any {
	after := make([]any, len(order))
	for i, s := range order {
		switch s := s.(type) {
		case *bsearch.SortScore:
			after[i] = json.Number(strconv.FormatFloat(hit.Score, 'g', -1, 64))
		case *bsearch.SortDocID:
			after[i] = hit.ID
		case *bsearch.SortField:
			if s.Type == bsearch.SortFieldAsNumber {
				after[i] = json.Number(hit.DecodedSort[i])
			} else {
				after[i] = hit.Sort[i]
			}
		}
	}
	return after
}

// searchAfter is a cursor's position as Bleve's SearchAfter takes it, once its shape is checked.
func searchAfter(order bsearch.SortOrder, after []any) ([]string, error) {
	if err := search.CheckAfter(after, sortKinds(order)); err != nil {
		return nil, err
	}
	out := make([]string, len(after))
	for i, v := range after {
		switch v := v.(type) {
		case string:
			out[i] = v
		case json.Number:
			out[i] = string(v)
		}
	}
	return out, nil
}

// Item returns the item with the given id, or an error wrapping search.ErrNotFound.
func (b *Backend) Item(ctx context.Context, id string) (search.Item, error) {
	if err := ctx.Err(); err != nil {
		return search.Item{}, fmt.Errorf("item: %w", err)
	}
	req := blevesearch.NewSearchRequestOptions(query.NewDocIDQuery([]string{id}), 1, 0, false)
	req.Fields = []string{fieldStored}
	h, err := b.acquire()
	if err != nil {
		return search.Item{}, err
	}
	defer h.release()
	res, err := h.idx.SearchInContext(ctx, req)
	if err != nil {
		return search.Item{}, fmt.Errorf("item %q: %w", id, err)
	}
	if len(res.Hits) == 0 {
		return search.Item{}, fmt.Errorf("item %q: %w", id, search.ErrNotFound)
	}
	return storedItem(res.Hits[0])
}

// Categories returns every category with its count of the items f's filters find, ordered by
// slug: the counts made at load, or one pass over the items f finds.
func (b *Backend) Categories(ctx context.Context, f search.Query) ([]search.Category, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("categories: %w", err)
	}
	h, err := b.acquire()
	if err != nil {
		return nil, err
	}
	defer h.release()
	if f != (search.Query{}) {
		return h.filteredCategories(ctx, f)
	}
	return slices.Clone(h.categories), nil
}

// Authors returns every credited author with its count of the items f's filters find, ordered by
// search.AuthorLess, as Categories does.
func (b *Backend) Authors(ctx context.Context, f search.Query) ([]search.Author, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("authors: %w", err)
	}
	h, err := b.acquire()
	if err != nil {
		return nil, err
	}
	defer h.release()
	if f != (search.Query{}) {
		return h.filteredAuthors(ctx, f)
	}
	return slices.Clone(h.authors), nil
}

func storedItem(hit *bsearch.DocumentMatch) (search.Item, error) {
	raw, ok := hit.Fields[fieldStored].(string)
	if !ok {
		return search.Item{}, fmt.Errorf("item %q: index holds no stored item", hit.ID)
	}
	var it search.Item
	if err := json.Unmarshal([]byte(raw), &it); err != nil {
		return search.Item{}, fmt.Errorf("item %q: decode stored item: %w", hit.ID, err)
	}
	return it, nil
}

// buildQuery: every word of r's text must match some text field, exactly or within the typo
// allowance (its Plan), and every phrase exactly (textQuery, scoring with bonus by document
// number; nil for a query whose scores no one reads; keeping typo candidates in fuzzy); filters
// restrict without scoring, and what a phrase of its exclusions matches is left out. It reports
// whether the text held any term.
func buildQuery(m mapping.IndexMapping, r *search.Request, bonus []float64, fuzzy *fuzzyCache) (query.Query, bool, error) {
	q := &r.Query
	plan := r.Plan()
	must, hasText := textQuery(q, plan, bonus, fuzzy)
	if hasText && bonus != nil {
		must = pinned(must, plan)
	}
	if !hasText && q.Text != "" {
		// Text with nothing searchable in it (only punctuation) matches nothing.
		return query.NewMatchNoneQuery(), false, nil
	}

	var filters []query.Query
	termOf := func(field, v string) query.Query {
		tq := query.NewTermQuery(v)
		tq.SetField(field)
		return tq
	}
	if q.Author != "" {
		filters = append(filters, termOf(fieldAuthor, q.Author))
	}
	// A list's values are alternatives.
	for _, f := range []struct {
		field string
		list  search.List
	}{
		{fieldType, q.Type}, {fieldCategory, q.Category}, {fieldLanguage, q.Language},
		{fieldLicense, q.License}, {fieldFormat, q.Format}, {fieldDuration, q.Duration},
	} {
		var alts []query.Query
		for _, v := range f.list.Values() {
			alts = append(alts, termOf(f.field, v))
		}
		switch len(alts) {
		case 0:
		case 1:
			filters = append(filters, alts[0])
		default:
			filters = append(filters, query.NewDisjunctionQuery(alts))
		}
	}
	// Every use and every part named is required.
	for _, f := range []struct {
		field string
		list  search.List
	}{{fieldReuse, q.Reuse}, {fieldHas, q.Has}} {
		for _, v := range f.list.Values() {
			filters = append(filters, termOf(f.field, v))
		}
	}
	if q.From != "" || q.To != "" {
		bound := func(date string) (*float64, error) {
			if date == "" {
				return nil, nil
			}
			n, err := dateNumber(date)
			return &n, err
		}
		from, err := bound(q.From)
		if err != nil {
			return nil, false, err
		}
		to, err := bound(q.To)
		if err != nil {
			return nil, false, err
		}
		yes := true
		rq := query.NewNumericRangeInclusiveQuery(from, to, &yes, &yes)
		rq.SetField(fieldDate)
		filters = append(filters, rq)
	}

	var exclude []query.Query
	for _, p := range q.Exclude.Terms() {
		exclude = append(exclude, phraseQuery(p, false))
	}
	switch {
	case must == nil && len(filters) == 0 && len(exclude) == 0:
		return query.NewMatchAllQuery(), false, nil
	case len(filters) == 0 && len(exclude) == 0:
		return must, true, nil
	}
	bq := query.NewBooleanQuery(nil, nil, nil)
	if must == nil {
		must = query.NewMatchAllQuery()
	}
	bq.AddMust(must)
	if len(filters) > 0 {
		bq.AddFilter(query.NewConjunctionQuery(filters))
	}
	if len(exclude) > 0 {
		bq.AddMustNot(exclude...)
	}
	return bq, hasText, nil
}

// sortOrder is the contract's total order for s, of a normalized query (search.Query.Normalize:
// relevance has text).
func sortOrder(s search.Sort) bsearch.SortOrder {
	dateDesc := &bsearch.SortField{Field: fieldDateSort, Type: bsearch.SortFieldAsString, Desc: true, Missing: bsearch.SortFieldMissingLast}
	byID := &bsearch.SortDocID{}
	switch s {
	case search.SortOldest:
		return bsearch.SortOrder{
			&bsearch.SortField{Field: fieldDateSort, Type: bsearch.SortFieldAsString, Missing: bsearch.SortFieldMissingLast},
			byID,
		}
	case search.SortDownloads:
		return bsearch.SortOrder{
			&bsearch.SortField{Field: fieldDownloads, Type: bsearch.SortFieldAsNumber, Desc: true, Missing: bsearch.SortFieldMissingLast},
			dateDesc, byID,
		}
	case search.SortAZ:
		return bsearch.SortOrder{
			&bsearch.SortField{Field: fieldTitleSort, Type: bsearch.SortFieldAsString, Missing: bsearch.SortFieldMissingLast},
			byID,
		}
	case search.SortRelevance:
		return bsearch.SortOrder{&bsearch.SortScore{Desc: true}, dateDesc, byID}
	}
	return bsearch.SortOrder{dateDesc, byID}
}

// currentName resolves dir/current to the name of the live index.
func currentName(dir string) (string, error) {
	target, err := os.Readlink(filepath.Join(dir, currentLink))
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return "", search.NoIndex(dir, nil)
		}
		return "", fmt.Errorf("resolve %s: %w: %w", currentLink, search.ErrUnavailable, err)
	}
	return filepath.Base(target), nil
}
