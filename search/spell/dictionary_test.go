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

// TestStemsSpellRight: a word the index does not hold but another form of which it does counts
// the items holding that form, so that it is left alone as spelt right; the stems are no
// neighbours.
func TestStemsSpellRight(t *testing.T) {
	d, err := NewDictionary([]search.Word{{Text: "оды", Items: 2}, {Text: "ru:од", Items: 2}, {Text: "она", Items: 5000}, {Text: "en:act", Items: 9}})
	if err != nil {
		t.Fatal(err)
	}
	if got := d.Items([]string{"ода", "оно", "она"}); got["ода"] != 2 || got["оно"] != 0 || got["она"] != 5000 {
		t.Errorf("Items = %v, want ода 2 (its stem's), оно 0, она 5000", got)
	}
	if d.Len() != 2 {
		t.Errorf("Len = %d, want the 2 words, no stem", d.Len())
	}
	near, err := d.Neighbours([]string{"enact"})
	if err != nil || len(near["enact"]) != 0 {
		t.Errorf("Neighbours(enact) = %v, %v; want no stem", near, err)
	}
}
