package text

import (
	"slices"
	"strings"
	"testing"
	"unicode"
)

func TestIndexStems(t *testing.T) {
	tests := []struct {
		lang  string
		texts []string
		want  []string
	}{
		{"de", []string{"Cython für schnelleren Python-Code"}, []string{"de:cython", "de:fur", "de:schnell", "de:python", "de:cod"}},
		{"en", []string{"Histories", "the history"}, []string{"en:histori", "en:the"}},
		{"es", []string{"¿Cómo preparar una entrevista técnica?"}, []string{"es:com", "es:prepar", "es:una", "es:entrev", "es:tecnic"}},
		{"ru", []string{"Война и мир"}, []string{"ru:воин", "ru:и", "ru:мир"}},
		// An elided article is no part of the word, as in IndexTerms.
		{"fr", []string{"L'Illustration"}, []string{"fr:illustr"}},
		// Words without letters, and runs of characters written without spaces, have no stem.
		{"en", []string{"1843 羅生門 tales"}, []string{"en:tale"}},
		{"ja", []string{"羅生門"}, nil},
		{"eo", []string{"La Alaska stafeto"}, nil},
		{"", []string{"history"}, nil},
	}
	for _, tt := range tests {
		if got := IndexStems(tt.lang, tt.texts...); !slices.Equal(got, tt.want) {
			t.Errorf("IndexStems(%q, %q) = %q, want %q", tt.lang, tt.texts, got, tt.want)
		}
	}
}

func TestQueryStemsMeetIndexStems(t *testing.T) {
	tests := []struct {
		lang, query, indexed string
	}{
		{"de", "schnelle", "schnelleren"},
		{"de", "Welt", "Welten"},
		{"es", "preparación", "preparar"},
		{"fr", "illustrer", "L'Illustration"},
		{"en", "visualise", "Visualising"},
		{"en", "gets", "Getting"},
		{"en", "histories", "history"},
		{"ru", "войны", "война"},
		// A suffix the stemmer spells with an accent, typed with it where the title has none.
		{"fr", "éducation", "EDUCATION"},
	}
	for _, tt := range tests {
		stems := IndexStems(tt.lang, tt.indexed)
		if len(stems) != 1 || !slices.Contains(QueryStems(tt.query, []string{tt.lang}), stems[0]) {
			t.Errorf("%s: QueryStems(%q) = %q, the index holds %q for %q", tt.lang, tt.query, QueryStems(tt.query, []string{tt.lang}), stems, tt.indexed)
		}
	}
}

func TestQueryStems(t *testing.T) {
	tests := []struct {
		word  string
		langs []string
		want  []string
	}{
		{"Histories", []string{"en"}, []string{"en:histori"}},
		{"histories", []string{"en", "fr", "xx"}, []string{"en:histori", "fr:histor"}},
		{"généralités", []string{"fr"}, []string{"fr:general", "fr:generalit"}},
		{"羅生門", nil, nil},
		{"1843", nil, nil},
	}
	for _, tt := range tests {
		if got := QueryStems(tt.word, tt.langs); !slices.Equal(got, tt.want) {
			t.Errorf("QueryStems(%q, %q) = %q, want %q", tt.word, tt.langs, got, tt.want)
		}
	}
	// Without languages, every stemmer's: the stems of two languages stay apart.
	if got := QueryStems("schnelle", nil); !slices.Contains(got, "de:schnell") || len(got) < len(StemLanguages) {
		t.Errorf("QueryStems(schnelle, nil) = %q, want a stem per language, de:schnell among them", got)
	}
}

// FuzzStems: stems are keyed by their language and hold no white space (the engines split a
// field's stems at it), and a word typed as the index holds it matches its stem there.
func FuzzStems(f *testing.F) {
	for _, s := range []string{"Cython für schnelleren Python-Code", "L'Illustration, No. 0009", "Война и мир", "羅生門 tales", "İstanbul’da", "\xffé"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, lang := range StemLanguages {
			for _, k := range IndexStems(lang, s) {
				if !strings.HasPrefix(k, lang+":") || len(k) == len(lang)+1 || strings.IndexFunc(k, unicode.IsSpace) >= 0 {
					t.Errorf("IndexStems(%s, %q) has %q", lang, s, k)
				}
			}
			for sp := range Spans(s) {
				w := s[sp.Start:sp.End]
				if held := IndexStems(lang, w); len(held) == 1 && !slices.Contains(QueryStems(w, []string{lang}), held[0]) {
					t.Errorf("%s: QueryStems(%q) = %q, the index holds %q", lang, w, QueryStems(w, []string{lang}), held)
				}
			}
		}
	})
}
