package gateway

import (
	"strings"

	"golang.org/x/text/language"

	"mediagw/search"
)

// languageNames maps a folded English name to its code.
var languageNames = func() map[string]string {
	m := map[string]string{}
	for code, names := range search.Languages() {
		for _, n := range names {
			m[search.Fold(n)] = code
		}
	}
	return m
}()

// normalizeLanguage turns a code, a BCP 47 tag or an English name into an ISO 639-1 code.
func normalizeLanguage(s string) (string, bool) {
	s = strings.TrimSpace(s)
	primary, rest, isTag := strings.Cut(strings.ReplaceAll(s, "_", "-"), "-")
	if code, ok := search.LanguageCode(primary); ok {
		// The rest of a tag must be well-formed BCP 47 (en-GB yes, en-!! no), though only the
		// primary subtag narrows the search.
		if !isTag {
			return code, true
		}
		if rest != "" {
			if _, err := language.Parse(s); err == nil {
				return code, true
			}
		}
		return "", false
	}
	code, ok := languageNames[search.Fold(s)]
	return code, ok
}
