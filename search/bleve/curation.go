package bleve

import (
	"context"
	"errors"
	"fmt"
	"io"
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

// synonymsQuery matches one word searched as each of its alternatives (search.Plan) and their
// stems: each scores its best clause's code, so that their disjunction reads back (bestClause) as
// the best clause of any. search/curation keeps a word's alternatives within maxClauses.
func synonymsQuery(alts []search.Variant, fuzzy *fuzzyCache) query.Query {
	if len(alts) == 1 {
		return wordQuery(alts[0].Terms, alts[0].Stems, alts[0].Typo, fuzzy)
	}
	each := make([]query.Query, len(alts))
	for i, a := range alts {
		each[i] = scored(wordQuery(a.Terms, a.Stems, a.Typo, fuzzy), func(d *bsearch.DocumentMatch) float64 { return clauseCode(d.Score) })
	}
	return scored(query.NewDisjunctionQuery(each), bestClause)
}

// pinned adds search.PinBoost to the score of the items the plan pins (a search by relevance);
// otherwise it is text as given.
func pinned(text query.Query, plan search.Plan) query.Query {
	if len(plan.Pins) > 0 {
		return pinnedQuery{Query: text, ids: plan.Pins}
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
// load or rollback keeps the set, and every process serving the directory reads it (search/live).
const rulesFile = "rules.json"

// ApplyRules stores r as the set the processes serving the directory serve (curation.Store).
func (b *Backend) ApplyRules(_ context.Context, r *curation.Rules) error { return writeRules(b.dir, r) }

// Rules returns the stored set (curation.Store), held itself when it is held's.
func (b *Backend) Rules(_ context.Context, held *curation.Rules) (*curation.Rules, error) {
	return readRules(b.dir, held)
}

// ApplyRules stores r as the set the processes serving the directory serve.
func (l *Loader) ApplyRules(_ context.Context, r *curation.Rules) error { return writeRules(l.dir, r) }

// Rules returns the stored set, held itself when it is held's.
func (l *Loader) Rules(_ context.Context, held *curation.Rules) (*curation.Rules, error) {
	return readRules(l.dir, held)
}

var (
	_ curation.Store = (*Backend)(nil)
	_ curation.Store = (*Loader)(nil)
)

// readRules reads the file of dir; one over the largest a set may store is refused unread.
func readRules(dir string, held *curation.Rules) (*curation.Rules, error) {
	f, err := os.Open(filepath.Join(dir, rulesFile))
	if errors.Is(err, fs.ErrNotExist) {
		return &curation.Rules{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read rules: %w", err)
	}
	defer f.Close()
	raw, err := io.ReadAll(io.LimitReader(f, maxRulesFile+1))
	if err != nil {
		return nil, fmt.Errorf("read rules: %w", err)
	}
	if len(raw) > maxRulesFile {
		return nil, fmt.Errorf("read rules: %s is over %d bytes", rulesFile, maxRulesFile)
	}
	return curation.Decode(raw, held)
}

// maxRulesFile bounds the stored form: both files at their largest, every byte escaped in JSON
// (\u00XX), and the keys and digest around them.
const maxRulesFile = 2*6*curation.MaxBytes + 1<<10

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
