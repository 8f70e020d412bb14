package engine

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"github.com/opensearch-project/opensearch-go/v4/opensearchapi"

	"mediagw/search"
	"mediagw/search/curation"
)

// rulesDoc is the id of the one document of the rules index.
const rulesDoc = "rules"

// rulesIndex holds the operators' synonyms and pins as one document, beside the alias's versions
// (which are named alias-*, so no listing of them sees it): a load or rollback keeps the set.
func (b *Backend) rulesIndex() string { return b.cfg.Alias + "_rules" }

// ApplyRules stores r as the set every replica serves; each reads it with the live version
// (Version, every 2 s through search/live), this one at once.
func (b *Backend) ApplyRules(ctx context.Context, r *curation.Rules) error {
	body, err := r.Encode()
	if err != nil {
		return err
	}
	ctx, cancel := b.bound(ctx, b.cfg.Timeout)
	defer cancel()
	// The document is only ever read whole: nothing in it is indexed.
	created, err := b.client.Indices.Create(ctx, opensearchapi.IndicesCreateReq{Index: b.rulesIndex(),
		Body: strings.NewReader(`{"settings":{"number_of_shards":1},"mappings":{"dynamic":false}}`)})
	if err != nil && answerStatus(created) != http.StatusBadRequest { // 400: it exists
		return failed(ctx, b.name(), "create rules index", &created, err)
	}
	resp, err := b.client.Index(ctx, opensearchapi.IndexReq{Index: b.rulesIndex(), DocumentID: rulesDoc,
		Body: strings.NewReader(string(body)), Params: opensearchapi.IndexParams{Refresh: "true"}})
	if err != nil {
		return failed(ctx, b.name(), "store rules", &resp, err)
	}
	b.rules.Store(r)
	return nil
}

// Rules returns the stored set: none when nothing was applied.
func (b *Backend) Rules(ctx context.Context) (*curation.Rules, error) {
	ctx, cancel := b.bound(ctx, b.cfg.Timeout)
	defer cancel()
	resp, err := b.reads.Document.Get(ctx, opensearchapi.DocumentGetReq{Index: b.rulesIndex(), DocumentID: rulesDoc})
	if answerStatus(resp) == http.StatusNotFound {
		return &curation.Rules{}, nil
	}
	if err != nil {
		return nil, failed(ctx, b.name(), "get rules", &resp, err)
	}
	r, err := curation.Decode(resp.Source)
	if err != nil {
		return nil, fmt.Errorf("%s get rules: %w", b.name(), err)
	}
	return r, nil
}

// refreshRules reads the stored set into the one served. A set that no longer reads (written
// by hand past ApplyRules' check) leaves the one served.
func (b *Backend) refreshRules(ctx context.Context) error {
	r, err := b.Rules(ctx)
	if err != nil {
		if search.Kind(err).EngineFailed() {
			return err
		}
		return nil
	}
	b.rules.Store(r)
	return nil
}

// CurrentRules is the set served now.
func (b *Backend) CurrentRules() *curation.Rules { return b.rules.Load() }
