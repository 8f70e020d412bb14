package search

import "unicode/utf8"

// Completion is a title that completes what a person is typing, with the item it names.
type Completion struct {
	Text string
	ID   string
}

// CompleteTypo reports whether the last word of a completion, of the term last, completes a title
// word a prefix of which it differs from by one edit (a letter inserted, deleted or changed, or
// two adjacent letters swapped: EditsWithin): from CompleteTypoFrom runes, and below
// completeTypoBelow, so that the prefixes within an edit are no longer than the engines hold.
// Titles it completes as typed come first.
func CompleteTypo(last string) bool {
	n := utf8.RuneCountInString(last)
	return n >= CompleteTypoFrom && n < completeTypoBelow
}

const (
	// CompleteTypoFrom is the shortest last word of a completion that may differ by an edit.
	CompleteTypoFrom = 4
	// completeTypoBelow is one less than the longest title prefix the engines hold.
	completeTypoBelow = 20
)
