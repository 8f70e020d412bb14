package bleve

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/blevesearch/bleve/v2/mapping"
	bsearch "github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"
	index "github.com/blevesearch/bleve_index_api"

	"mediagw/search"
	"mediagw/search/curation"
)

// synonymsQuery matches one word w searched as each of its alternatives (text.Alternatives) and
// their stems in the language filter's language lang (search.WordStems): each scores its best
// clause's code, so that their disjunction reads back (bestClause) as the best clause of any.
// search/curation keeps a word's alternatives within maxClauses.
func synonymsQuery(w string, alts [][]string, lang string, typo bool, fuzzy *fuzzyCache) query.Query {
	if len(alts) == 1 {
		return wordQuery(alts[0], search.WordStems(w, alts[0], lang), typo, fuzzy)
	}
	each := make([]query.Query, len(alts))
	for i, terms := range alts {
		each[i] = scored(wordQuery(terms, search.WordStems(w, terms, lang), typo, fuzzy), func(d *bsearch.DocumentMatch) float64 { return clauseCode(d.Score) })
	}
	return scored(query.NewDisjunctionQuery(each), bestClause)
}

// pinned adds search.PinBoost to the score of the items pinned for q's text when q is a search by
// relevance; otherwise it is text as given.
func pinned(text query.Query, q search.Query) query.Query {
	if q.Curation == nil || q.Sort != search.SortRelevance {
		return text
	}
	if ids := q.Curation.Pinned(q.Text); len(ids) > 0 {
		return pinnedQuery{Query: text, ids: ids}
	}
	return text
}

// pinnedQuery scores the items of ids above its query's other matches.
type pinnedQuery struct {
	query.Query
	ids []string
}

func (q pinnedQuery) Searcher(ctx context.Context, i index.IndexReader, m mapping.IndexMapping, options bsearch.SearcherOptions) (bsearch.Searcher, error) {
	s, err := q.Query.Searcher(ctx, i, m, options)
	if err != nil {
		return nil, err
	}
	boost := make(map[string]float64, len(q.ids))
	for k, id := range q.ids {
		doc, err := i.InternalID(id)
		if err != nil {
			_ = s.Close()
			return nil, err
		}
		if doc != nil {
			boost[string(doc)] = search.PinBoost(k, len(q.ids))
		}
	}
	return scoredSearcher{Searcher: s, score: func(d *bsearch.DocumentMatch) float64 {
		return d.Score + boost[string(d.IndexInternalID)]
	}}, nil
}

// rulesFile holds the operators' synonyms and pins in the index directory, beside `current`: a
// load or rollback keeps the set, and every process serving the directory reads it on its reload
// tick (Reload).
const rulesFile = "rules.json"

// ApplyRules stores r as the set the processes serving the directory serve; this one at once.
func (b *Backend) ApplyRules(_ context.Context, r *curation.Rules) error {
	if err := writeRules(b.dir, r); err != nil {
		return err
	}
	b.rules.Store(r)
	return nil
}

// Rules returns the stored set.
func (b *Backend) Rules(context.Context) (*curation.Rules, error) { return readRules(b.dir) }

// CurrentRules is the set served now.
func (b *Backend) CurrentRules() *curation.Rules { return b.rules.Load() }

// ApplyRules stores r as the set the processes serving the directory serve.
func (l *Loader) ApplyRules(_ context.Context, r *curation.Rules) error { return writeRules(l.dir, r) }

// Rules returns the stored set.
func (l *Loader) Rules(context.Context) (*curation.Rules, error) { return readRules(l.dir) }

// refreshRules serves the stored set; a set that no longer reads (written by hand past
// ApplyRules' check) leaves the one served.
func (b *Backend) refreshRules() error {
	r, err := readRules(b.dir)
	if err != nil {
		return err
	}
	if cur := b.rules.Load(); cur == nil || cur.Files() != r.Files() {
		b.rules.Store(r)
	}
	return nil
}

func readRules(dir string) (*curation.Rules, error) {
	raw, err := os.ReadFile(filepath.Join(dir, rulesFile))
	if errors.Is(err, fs.ErrNotExist) {
		return &curation.Rules{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read rules: %w", err)
	}
	return curation.Decode(raw)
}

// writeRules replaces the file at once (a rename): a reader sees the old set or the new one.
func writeRules(dir string, r *curation.Rules) error {
	raw, err := r.Encode()
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, "."+rulesFile+"-*")
	if err != nil {
		return fmt.Errorf("write rules: %w", err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(raw); err != nil {
		_ = tmp.Close()
		return fmt.Errorf("write rules: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write rules: %w", err)
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return fmt.Errorf("write rules: %w", err)
	}
	if err := os.Rename(tmp.Name(), filepath.Join(dir, rulesFile)); err != nil {
		return fmt.Errorf("write rules: %w", err)
	}
	return nil
}
