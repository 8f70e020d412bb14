// Package backends opens the search backend the settings name, for both binaries.
package backends

import (
	"fmt"

	"mediagw/config"
	"mediagw/mappings"
	"mediagw/search/opensearch"
)

// OpenSearch makes the OpenSearch backend of cfg; it does not contact the engine.
func OpenSearch(cfg config.Config) (*opensearch.Backend, error) {
	oc := opensearch.Config{
		URLs:    config.SplitList(cfg.OpenSearchURL),
		Alias:   cfg.OpenSearchIndex,
		Timeout: cfg.BackendTimeout,
		Keep:    cfg.KeepIndices,
	}
	if cfg.OpenSearchMapping != "" {
		m, err := mappings.Read(cfg.OpenSearchMapping)
		if err != nil {
			return nil, err
		}
		oc.Mapping = m
	}
	b, err := opensearch.New(oc)
	if err != nil {
		return nil, fmt.Errorf("opensearch backend: %w", err)
	}
	return b, nil
}
