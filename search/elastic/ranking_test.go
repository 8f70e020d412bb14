package elastic

import (
	"testing"

	"mediagw/search"
	"mediagw/search/bleve"
	"mediagw/search/searchtest"
)

// TestRankingAgreesWithBleve: the two backends rank the real catalogue alike (both compute
// search.Clauses' score) and find its known items (searchtest.RunRankingAgreement); the
// did-you-mean in front of either corrects its typos alike and leaves its correct titles alone
// (searchtest.RunSuggestions).
func TestRankingAgreesWithBleve(t *testing.T) {
	if testing.Short() {
		t.Skip("loads the whole real catalogue twice")
	}
	engineURL(t)
	t.Run("Ranking", func(t *testing.T) { searchtest.RunRankingAgreement(t, openBleve, open) })
	t.Run("Suggestions", func(t *testing.T) { searchtest.RunSuggestions(t, openBleve, open) })
}

// openBleve is the embedded index of items, the backend the engine is compared with.
func openBleve(t *testing.T, items []search.Item) search.Backend {
	b, err := bleve.NewFromItems(t.Context(), t.TempDir(), items)
	if err != nil {
		t.Fatalf("bleve.NewFromItems: %v", err)
	}
	t.Cleanup(func() {
		if err := b.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return b
}
