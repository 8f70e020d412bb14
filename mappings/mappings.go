// Package mappings holds the OpenSearch index settings and mappings, versioned with the code that
// queries them, and reads an operator's own file in their place.
package mappings

import (
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
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
	// A load turns refresh off (-1) while it fills an index and back on when done, which is how an
	// index left by a load that died is told apart: an index defined with refresh off would look
	// like one.
	ri, err := RefreshInterval(b)
	if err != nil {
		return err
	}
	if s, ok := ri.(string); ok && strings.HasPrefix(strings.TrimSpace(s), "-") {
		return fmt.Errorf("index.refresh_interval %v turns refresh off, which marks an unfinished load", ri)
	}
	if f, ok := ri.(float64); ok && f < 0 {
		return fmt.Errorf("index.refresh_interval %v turns refresh off, which marks an unfinished load", ri)
	}
	return nil
}

// WithoutRefresh returns the index definition def with refresh turned off: how a bulk load creates
// an index, since refreshing while loading only makes segments nobody reads yet. The load sets
// RefreshInterval(def) back before it refreshes once.
func WithoutRefresh(def []byte) ([]byte, error) {
	var d map[string]json.RawMessage
	if err := json.Unmarshal(def, &d); err != nil {
		return nil, fmt.Errorf("index definition: %w", err)
	}
	settings := map[string]any{}
	if raw, ok := d["settings"]; ok {
		if err := json.Unmarshal(raw, &settings); err != nil {
			return nil, fmt.Errorf("index definition settings: %w", err)
		}
	}
	delete(settings, "index.refresh_interval")
	delete(settings, "refresh_interval")
	idx, _ := settings["index"].(map[string]any)
	if idx == nil {
		idx = map[string]any{}
	}
	idx["refresh_interval"] = "-1"
	settings["index"] = idx
	raw, err := json.Marshal(settings)
	if err != nil {
		return nil, fmt.Errorf("index definition settings: %w", err)
	}
	d["settings"] = raw
	return json.Marshal(d)
}

// Version reads mappings._meta.mapping_version of an index definition, or of the mappings of an
// index as the engine gives them back: raised with every change the code's queries need, so an
// index built from an older definition can be told apart. 0 when it sets none.
func Version(def []byte) (int, error) {
	var d struct {
		Mappings json.RawMessage `json:"mappings"`
	}
	if err := json.Unmarshal(def, &d); err != nil {
		return 0, fmt.Errorf("index definition: %w", err)
	}
	var m struct {
		Meta struct {
			Version int `json:"mapping_version"`
		} `json:"_meta"`
	}
	if len(d.Mappings) > 0 {
		if err := json.Unmarshal(d.Mappings, &m); err != nil {
			return 0, fmt.Errorf("index definition mappings: %w", err)
		}
	}
	return m.Meta.Version, nil
}

// RefreshInterval reads settings.index.refresh_interval (or the flat settings key) of an index
// definition, or nil when it sets none.
func RefreshInterval(def []byte) (any, error) {
	var d struct {
		Settings map[string]any `json:"settings"`
	}
	if err := json.Unmarshal(def, &d); err != nil {
		return nil, fmt.Errorf("index definition: %w", err)
	}
	if v, ok := d.Settings["index.refresh_interval"]; ok {
		return v, nil
	}
	if v, ok := d.Settings["refresh_interval"]; ok {
		return v, nil
	}
	if idx, ok := d.Settings["index"].(map[string]any); ok {
		return idx["refresh_interval"], nil
	}
	return nil, nil
}
