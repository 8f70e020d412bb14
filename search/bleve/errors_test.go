package bleve

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"mediagw/search"
)

// TestCurrentNameClassifies: the embedded index's boundary classifies a directory with no live
// index as search.NoIndex naming it, and a `current` it cannot read as unavailable.
func TestCurrentNameClassifies(t *testing.T) {
	tests := []struct {
		name  string
		setup func(dir string) error
		want  search.ErrorKind
	}{
		{"nothing loaded", func(string) error { return nil }, search.KindNoIndex},
		{"current is no link", func(dir string) error { return os.WriteFile(filepath.Join(dir, currentLink), nil, 0o644) }, search.KindUnavailable},
		{"a live index", func(dir string) error { return os.Symlink("items-1", filepath.Join(dir, currentLink)) }, search.KindNone},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := tt.setup(dir); err != nil {
				t.Fatal(err)
			}
			_, err := currentName(dir)
			if got := search.Kind(err); got != tt.want {
				t.Fatalf("currentName: %v (kind %v), want kind %v", err, got, tt.want)
			}
			var ne *search.NoIndexError
			if tt.want == search.KindNoIndex && (!errors.As(err, &ne) || ne.Name != dir || !errors.Is(err, search.ErrUnavailable)) {
				t.Errorf("currentName: %v, want a NoIndexError naming %s that is an ErrUnavailable", err, dir)
			}
		})
	}
}
