package main

import (
	"context"

	"mediagw/cmd/internal/backends"
	"mediagw/search/opensearch"
)

type openSearchAdmin struct{ *opensearch.Backend }

func newOpenSearchAdmin(e *env) (admin, error) {
	b, err := backends.OpenSearch(e.cfg)
	if err != nil {
		return nil, err
	}
	return openSearchAdmin{b}, nil
}

func (a openSearchAdmin) Status(ctx context.Context) ([]indexInfo, error) {
	st, err := a.Backend.Status(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]indexInfo, len(st.Indices))
	for i, in := range st.Indices {
		out[i] = indexInfo{Name: in.Name, Docs: in.Docs, Live: in.Live, Unfinished: in.Unfinished, Outdated: in.Outdated, Err: in.Err}
	}
	return out, nil
}
