// Package mappings holds the engines' index settings and mappings (Elasticsearch and OpenSearch
// read the same), versioned with the code that queries them, and reads an operator's own file in
// their place.
package mappings

import (
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
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
	return withIndexSettings(def, map[string]any{"refresh_interval": "-1"})
}

// WithCopies returns the index definition def with shards primary shards and replicas replicas of
// each: the operator's MEDIA_ENGINE_SHARDS and MEDIA_ENGINE_REPLICAS over whatever def says.
// shards 0 or replicas below 0 keep the definition's value; both so returns def unchanged.
func WithCopies(def []byte, shards, replicas int) ([]byte, error) {
	values := map[string]any{}
	if shards > 0 {
		values["number_of_shards"] = shards
	}
	if replicas >= 0 {
		values["number_of_replicas"] = replicas
	}
	if len(values) == 0 {
		return def, nil
	}
	return withIndexSettings(def, values)
}

// withIndexSettings returns def with values set in settings.index, each key's flat forms
// ("index.K" and "K" in settings) removed, since the engine refuses a key given twice.
func withIndexSettings(def []byte, values map[string]any) ([]byte, error) {
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
	idx, _ := settings["index"].(map[string]any)
	if idx == nil {
		idx = map[string]any{}
	}
	for k, v := range values {
		delete(settings, "index."+k)
		delete(settings, k)
		idx[k] = v
	}
	settings["index"] = idx
	raw, err := json.Marshal(settings)
	if err != nil {
		return nil, fmt.Errorf("index definition settings: %w", err)
	}
	d["settings"] = raw
	return json.Marshal(d)
}

// Meta is what an index definition's mappings._meta says of it.
type Meta struct {
	// Version is mapping_version: raised with every change the code's queries need, so an index
	// built from an older definition can be told apart. 0 when the definition sets none.
	Version int `json:"mapping_version"`
	// Hash is mapping_hash, set by Stamp when an index is created: which definition, byte for
	// byte up to JSON formatting, the index was built from. Empty for indices built before.
	Hash string `json:"mapping_hash"`
}

// ReadMeta reads mappings._meta of an index definition, or of the mappings of an index as the
// engine gives them back.
func ReadMeta(def []byte) (Meta, error) {
	var d struct {
		Mappings json.RawMessage `json:"mappings"`
	}
	if err := json.Unmarshal(def, &d); err != nil {
		return Meta{}, fmt.Errorf("index definition: %w", err)
	}
	var m struct {
		Meta Meta `json:"_meta"`
	}
	if len(d.Mappings) > 0 {
		if err := json.Unmarshal(d.Mappings, &m); err != nil {
			return Meta{}, fmt.Errorf("index definition mappings: %w", err)
		}
	}
	return m.Meta, nil
}

// hashLen is how many hex digits of the SHA-256 a hash keeps: enough to tell an operator's
// handful of definitions apart, short enough for a status column.
const hashLen = 12

// Hash is the hash of an index definition that Stamp stores: of its JSON with keys sorted and
// spaces left out, so reformatting a file does not change it, and without a mapping_hash the
// definition may already carry (a definition copied from a stamped index).
func Hash(def []byte) (string, error) {
	d, err := decodeStamped(def)
	if err != nil {
		return "", err
	}
	delete(d.meta, "mapping_hash")
	canonical, err := json.Marshal(d.def)
	if err != nil {
		return "", fmt.Errorf("index definition: %w", err)
	}
	sum := sha256.Sum256(canonical)
	return hex.EncodeToString(sum[:])[:hashLen], nil
}

// Stamp returns def with its Hash in mappings._meta.mapping_hash, where Status finds it in the
// index built from it.
func Stamp(def []byte) ([]byte, error) {
	h, err := Hash(def)
	if err != nil {
		return nil, err
	}
	d, err := decodeStamped(def)
	if err != nil {
		return nil, err
	}
	d.meta["mapping_hash"] = h
	return json.Marshal(d.def)
}

// stamped is a decoded index definition with its mappings._meta at hand (created if missing).
type stamped struct {
	def  map[string]any
	meta map[string]any
}

func decodeStamped(def []byte) (stamped, error) {
	var d map[string]any
	if err := json.Unmarshal(def, &d); err != nil {
		return stamped{}, fmt.Errorf("index definition: %w", err)
	}
	m, ok := d["mappings"].(map[string]any)
	if !ok {
		return stamped{}, errors.New("index definition: mappings is not an object")
	}
	meta, ok := m["_meta"].(map[string]any)
	if !ok {
		if _, present := m["_meta"]; present {
			return stamped{}, errors.New("index definition: mappings._meta is not an object")
		}
		meta = map[string]any{}
		m["_meta"] = meta
	}
	return stamped{def: d, meta: meta}, nil
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
