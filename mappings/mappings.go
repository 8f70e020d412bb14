// Package mappings holds the OpenSearch index settings and mappings, versioned with the code that
// queries them, and reads an operator's own file in their place.
package mappings

import (
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"os"
)

// Items is the index definition (settings and mappings) of the catalogue index, items.json.
//
//go:embed items.json
var Items []byte

// Read reads an operator's index definition from path and checks that it is a JSON object with
// settings or mappings, so a wrong file fails before any index is created.
func Read(path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read mapping file: %w", err)
	}
	if err := Check(b); err != nil {
		return nil, fmt.Errorf("mapping file %s: %w", path, err)
	}
	return b, nil
}

// Check reports whether b looks like an index definition: a JSON object whose only keys are
// settings, mappings and aliases, with mappings present.
func Check(b []byte) error {
	var def map[string]json.RawMessage
	if err := json.Unmarshal(b, &def); err != nil {
		return fmt.Errorf("not a JSON object: %w", err)
	}
	for k := range def {
		switch k {
		case "settings", "mappings", "aliases":
		default:
			return fmt.Errorf("unexpected key %q (want settings, mappings)", k)
		}
	}
	if _, ok := def["mappings"]; !ok {
		return errors.New("no mappings")
	}
	return nil
}
