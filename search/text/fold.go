package text

import (
	"bytes"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/cases"
	"golang.org/x/text/runes"
	"golang.org/x/text/transform"
	"golang.org/x/text/unicode/norm"
)

// folder lower-cases (Unicode case folding) and strips combining marks after decomposition, so
// "Élan", "elan" and "ÉLAN" share one key; the letters in letters are replaced too. Both backends index the same key, so their az orders agree.
// The case folder keeps no state between calls, so one is shared; held as an interface so that
// passing it to transform.Append does not allocate.
var folder transform.Transformer = cases.Fold()

// folding is what Fold needs for a non-ASCII string: a decomposing iterator and buffers, reused
// through a pool. It does what transform.Chain(norm.NFD, runes.Remove(runes.In(unicode.Mn)),
// norm.NFC) does (chain kept for invalid UTF-8), without building that chain per call: it is
// costly and must not be shared between goroutines.
type folding struct {
	nfd                norm.Iter
	stripped, nfc, key []byte
	chain              transform.Transformer
}

// letters are the Latin letters whose stroke, hook or ligature is part of the letter itself, so
// that decomposition leaves them whole, with what they fold to: the ones European names and titles
// use, as OpenSearch's asciifolding folds them (it folds more, mostly rare or phonetic letters).
// "Ørsted" sorts and matches as "orsted", "Łódź" as "lodz".
var letters = map[rune]string{
	'Ø': "O", 'ø': "o", 'Ł': "L", 'ł': "l", 'Đ': "D", 'đ': "d", 'Ð': "D", 'ð': "d", 'Ħ': "H", 'ħ': "h",
	'Ŧ': "T", 'ŧ': "t", 'ı': "i", 'Æ': "AE", 'æ': "ae", 'Œ': "OE", 'œ': "oe", 'Þ': "TH", 'þ': "th",
	'Ĳ': "IJ", 'ĳ': "ij", 'Ŋ': "N", 'ŋ': "n", 'ƒ': "f", 'Ŀ': "L", 'ŀ': "l", 'Ɨ': "I", 'ɨ': "i",
	'Ǆ': "DZ", 'ǅ': "Dz", 'ǆ': "dz", 'ĸ': "q",
}

// letterReplacer replaces letters in strings that are not valid UTF-8.
var letterReplacer = func() *strings.Replacer {
	var pairs []string
	for r, s := range letters {
		pairs = append(pairs, string(r), s)
	}
	return strings.NewReplacer(pairs...)
}()

var foldings = sync.Pool{New: func() any { return new(folding) }}

// maxPooledBytes bounds the buffers a pooled folding keeps, so one huge string does not pin its
// memory for good.
const maxPooledBytes = 64 << 10

// Fold returns s without case and accents: the key the az order and the author order compare.
func Fold(s string) string {
	if key, ok := foldASCII(s); ok {
		return key
	}
	f := foldings.Get().(*folding)
	defer f.release()
	if !utf8.ValidString(s) {
		return f.foldInvalid(s)
	}
	// Decompose, and drop the combining marks (Mn) that carry the accents.
	b := f.stripped[:0]
	ascii := true
	f.nfd.InitString(norm.NFD, s)
	for !f.nfd.Done() {
		for seg := f.nfd.Next(); len(seg) > 0; {
			r, size := utf8.DecodeRune(seg)
			if l, ok := letters[r]; ok {
				b = append(b, l...)
			} else if !unicode.Is(unicode.Mn, r) {
				b = append(b, seg[:size]...)
				ascii = ascii && size == 1
			}
			seg = seg[size:]
		}
	}
	f.stripped = b
	if ascii {
		// "Gaëlle" is "Gaelle" now: nothing to recompose, and only A-Z to fold.
		b = bytes.TrimSpace(b)
		for i, c := range b {
			if 'A' <= c && c <= 'Z' {
				b[i] = c + 'a' - 'A'
			}
		}
		return string(b)
	}
	// Recompose what is left (Hangul, marks other than Mn), then trim and fold the case.
	f.nfc = norm.NFC.Append(f.nfc[:0], f.stripped...)
	f.key, _, _ = transform.Append(folder, f.key[:0], bytes.TrimSpace(f.nfc))
	return string(f.key)
}

// foldInvalid folds a string that is not valid UTF-8 (which JSON decoding never yields) with the
// original transform chain: the iterator splits invalid bytes from what follows differently, and
// the keys must not change.
func (f *folding) foldInvalid(s string) string {
	if f.chain == nil {
		f.chain = transform.Chain(norm.NFD, runes.Remove(runes.In(unicode.Mn)), norm.NFC)
	}
	out, _, err := transform.String(f.chain, s)
	if err != nil {
		out = s
	}
	key, _, _ := transform.String(folder, strings.TrimSpace(letterReplacer.Replace(out)))
	return key
}

func (f *folding) release() {
	// The iterator still refers to the string it folded.
	f.nfd.InitString(norm.NFD, "")
	if cap(f.stripped)+cap(f.nfc)+cap(f.key) > maxPooledBytes {
		return
	}
	foldings.Put(f)
}

// foldASCII is Fold for plain ASCII, which has no accents to strip and only A-Z to lower: most
// author names and titles. ok is false when s holds any other byte.
func foldASCII(s string) (key string, ok bool) {
	upper := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x80 {
			return "", false
		}
		upper = upper || 'A' <= c && c <= 'Z'
	}
	s = strings.TrimSpace(s)
	if !upper {
		return s, true
	}
	return strings.ToLower(s), true
}
