package search

import (
	"mediagw/search/text"
	"testing"
)

func TestLanguageNamesAreUnambiguous(t *testing.T) {
	seen := map[string]string{}
	n := 0
	for code, names := range Languages() {
		n++
		if len(code) != 2 {
			t.Errorf("code %q is not two letters", code)
		}
		for _, name := range names {
			k := text.Fold(name)
			if other, dup := seen[k]; dup && other != code {
				t.Errorf("name %q means both %s and %s", name, other, code)
			}
			seen[k] = code
			if got, ok := ParseLanguage(name); !ok || got != code {
				t.Errorf("ParseLanguage(%q) = %q, %v; want %q", name, got, ok, code)
			}
		}
		if got, ok := ParseLanguage(code); !ok || got != code {
			t.Errorf("ParseLanguage(%q) = %q, %v", code, got, ok)
		}
	}
	if n < 183 {
		t.Errorf("%d codes, ISO 639-1 has at least 183", n)
	}
}

func TestParseLanguage(t *testing.T) {
	for in, want := range map[string]string{
		"fr": "fr", "FR": "fr", "fr-CA": "fr", "fr_ca": "fr", "French": "fr", "FRENCH": "fr",
		"Volapuk": "vo", "norwegian bokmal": "nb", "pt-BR": "pt", "sr-Latn-RS": "sr", "in": "id",
		"en-GB-oxendict": "en", "Scottish Gaelic": "gd", "Modern Greek": "el",
		"xx": "", "eng": "", "fra": "", "x-foo": "", "und": "", "en-": "", "-en": "", "en--GB": "",
		"": "", "Frenchh": "", "Old English": "",
	} {
		got, ok := ParseLanguage(in)
		if got != want || ok != (want != "") {
			t.Errorf("ParseLanguage(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
}
