package bleve

import (
	"testing"

	"mediagw/search"
	"mediagw/search/searchtest"
)

func openFromItems(t *testing.T, items []search.Item) search.Backend {
	t.Helper()
	b, err := NewFromItems(t.Context(), t.TempDir(), items)
	if err != nil {
		t.Fatalf("NewFromItems: %v", err)
	}
	t.Cleanup(func() {
		if err := b.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return b
}

func TestConformance(t *testing.T) { searchtest.Run(t, openFromItems) }

func TestExtrasConformance(t *testing.T) { searchtest.RunExtras(t, openFromItems) }

func TestRealData(t *testing.T) {
	if testing.Short() {
		t.Skip("loads the whole real catalogue")
	}
	searchtest.RunRealData(t, openFromItems)
}

func TestWalks(t *testing.T) {
	if testing.Short() {
		t.Skip("walks 30,000 items in every order")
	}
	searchtest.RunWalks(t, openFromItems)
}

// TestCJKSingleCharacter: one ideograph finds the titles holding it; longer text matches bigrams.
func TestCJKSingleCharacter(t *testing.T) {
	b := openFromItems(t, searchtest.Fixture(t))
	for text, want := range map[string]string{"門": "pg-rashomon", "羅生": "pg-rashomon", "学習": "vi-pyconjp", "誼": "pg-jiayi"} {
		res, err := b.Search(t.Context(), search.NewRequest(search.Query{Text: text, Sort: search.SortRelevance, Page: 1, PerPage: 10}))
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Items) == 0 || res.Items[0].ID != want {
			t.Errorf("Search(%q) = %v, want %s first", text, res.Items, want)
		}
	}
}

func TestBudget(t *testing.T) { searchtest.RunBudget(t, openFromItems) }
