package engine

import (
	"testing"

	"mediagw/search/searchtest"
)

// TestSuggestionsAgreeWithBleve: the did-you-mean in front of either backend corrects the real
// catalogue's typos alike, and leaves its correct titles alone (searchtest.RunSuggestions).
func TestSuggestionsAgreeWithBleve(t *testing.T) {
	if testing.Short() {
		t.Skip("loads the whole real catalogue twice")
	}
	engineURL(t)
	searchtest.RunSuggestions(t, openBleve, open)
}
