package elastic

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/opensearch-project/opensearch-go/v4/opensearchapi"

	"mediagw/search/curation"
)

// rulesDoc is the id of the one document of the rules index.
const rulesDoc = "rules"

// rulesIndex holds the operators' synonyms and pins as one document, beside the alias's versions
// (which are named alias-*, so no listing of them sees it): a load or rollback keeps the set.
func (b *Backend) rulesIndex() string { return b.cfg.Alias + "_rules" }

// ApplyRules stores r as the set every replica serves (curation.Store); each reads it beside the
// live version (search/live, every 2 s).
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
	return nil
}

// Rules returns the stored set (curation.Store): none when nothing was applied, held itself when
// the stored digest is held's, which is all it reads of the document then.
func (b *Backend) Rules(ctx context.Context, held *curation.Rules) (*curation.Rules, error) {
	ctx, cancel := b.bound(ctx, b.cfg.Timeout)
	defer cancel()
	if held != nil {
		resp, err := b.reads.Document.Get(ctx, opensearchapi.DocumentGetReq{Index: b.rulesIndex(), DocumentID: rulesDoc,
			Params: opensearchapi.DocumentGetParams{SourceIncludes: []string{curation.StoredDigest}}})
		if answerStatus(resp) == http.StatusNotFound {
			return &curation.Rules{}, nil
		}
		if err != nil {
			return nil, failed(ctx, b.name(), "get rules digest", &resp, err)
		}
		var stored map[string]string
		if err := json.Unmarshal(resp.Source, &stored); err != nil {
			return nil, fmt.Errorf("%s get rules digest: %w", b.name(), err)
		}
		if curation.Unchanged(stored[curation.StoredDigest], held) {
			return held, nil
		}
	}
	resp, err := b.reads.Document.Get(ctx, opensearchapi.DocumentGetReq{Index: b.rulesIndex(), DocumentID: rulesDoc})
	if answerStatus(resp) == http.StatusNotFound {
		return &curation.Rules{}, nil
	}
	if err != nil {
		return nil, failed(ctx, b.name(), "get rules", &resp, err)
	}
	r, err := curation.Decode(resp.Source, held)
	if err != nil {
		return nil, fmt.Errorf("%s get rules: %w", b.name(), err)
	}
	return r, nil
}

var _ curation.Store = (*Backend)(nil)
