package bench

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Saved is one `mediabench run` section's results as it keeps them (-save) for the charts that
// `make bench` draws from its own run (bench/chart).
type Saved struct {
	// Label names the section in charts, e.g. "closed loop, caching off".
	Label string
	// Mode is the kind of run: mix, extras or suggest.
	Mode string
	// QPS is the open-loop rate, 0 for a closed loop.
	QPS float64
	// Direct says the first result is OpenSearch asked directly, the baseline of the others.
	Direct  bool
	Results []*Result
	RSS     []RSSReport `json:",omitempty"`
}

// Save writes s to path as JSON.
func (s Saved) Save(path string) error {
	raw, err := json.MarshalIndent(s, "", "\t")
	if err != nil {
		return fmt.Errorf("save results: %w", err)
	}
	if dir := filepath.Dir(path); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("save results: %w", err)
		}
	}
	if err := os.WriteFile(path, raw, 0o644); err != nil {
		return fmt.Errorf("save results: %w", err)
	}
	return nil
}

// LoadSaved reads every *.json file of dir that Save wrote, in the order of their names.
func LoadSaved(dir string) ([]Saved, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return nil, fmt.Errorf("read results: %w", err)
	}
	slices.Sort(paths)
	var out []Saved
	for _, p := range paths {
		raw, err := os.ReadFile(p)
		if err != nil {
			return nil, fmt.Errorf("read results: %w", err)
		}
		var s Saved
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, fmt.Errorf("read results %s: %w", p, err)
		}
		if s.Label == "" {
			s.Label = strings.TrimSuffix(filepath.Base(p), ".json")
		}
		out = append(out, s)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("read results: no *.json in %s", dir)
	}
	return out, nil
}
