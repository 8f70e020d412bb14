package spell

import (
	"testing"

	"mediagw/search"
)

// TestVariantsSizedAtOnce holds termVariants to what eachVariant gives, so that the build never
// grows the index by copying it.
func TestVariantsSizedAtOnce(t *testing.T) {
	var words []search.Word
	for _, w := range []string{"a", "ab", "abc", "abcd", "abcde", "abcdef", "ab\u202fcd", "élan",
		"東京タワー", "x\xffy\xfez", "abcdefghijklmnopqrstuvwxyzabcdef", "abcdefghijklmnopqrstuvwxyzabcdefghijklmn"} {
		words = append(words, search.Word{Text: w, Items: 1})
	}
	d, err := NewDictionary(words)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.variants) != cap(d.variants) {
		t.Errorf("%d variants in room for %d", len(d.variants), cap(d.variants))
	}
}
