package params

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"mediagw/search"
)

// The operators of q, read here and nowhere else: "words in quotes" is a phrase, -word and
// -"some words" are exclusions. Whatever q holds, it reads as something (a quote left open closes
// at the end, a lone - or "" is nothing), so no q is refused for its operators.

// part is a stretch of q: free words, a phrase or an exclusion, with its text as given.
type part struct {
	kind partKind
	// raw is the stretch as given, operators included; body is its text without them.
	raw, body string
}

type partKind int

const (
	partWords partKind = iota
	partPhrase
	partExclude
)

// parts cuts s into its stretches, in order, leaving out the white space between them. A quote
// opens a phrase wherever it stands; a minus sign is an exclusion only where a stretch starts
// (so e-mail is a word), and one followed by white space or nothing is dropped.
func parts(s string) []part {
	var out []part
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case unicode.IsSpace(r):
			i += size
		case r == '"':
			end, body := quoted(s, i)
			out = append(out, part{kind: partPhrase, raw: s[i:end], body: body})
			i = end
		case r == '-':
			rest := s[i+1:]
			next, _ := utf8.DecodeRuneInString(rest)
			switch {
			case rest == "" || unicode.IsSpace(next):
				i++ // a lone minus sign
			case next == '"':
				end, body := quoted(s, i+1)
				out = append(out, part{kind: partExclude, raw: s[i:end], body: body})
				i = end
			default:
				end := wordEnd(s, i+1)
				out = append(out, part{kind: partExclude, raw: s[i:end], body: s[i+1 : end]})
				i = end
			}
		default:
			end := wordEnd(s, i)
			out = append(out, part{kind: partWords, raw: s[i:end], body: s[i:end]})
			i = end
		}
	}
	return out
}

// quoted reads the phrase whose opening quote is at s[i]: it ends at the next quote, or at the
// end of s when none closes it. It returns where the stretch ends and the text between the quotes.
func quoted(s string, i int) (int, string) {
	j := strings.IndexByte(s[i+1:], '"')
	if j < 0 {
		return len(s), s[i+1:]
	}
	return i + 1 + j + 1, s[i+1 : i+1+j]
}

// wordEnd is where the word starting at s[i] ends: at white space or a quote.
func wordEnd(s string, i int) int {
	j := strings.IndexFunc(s[i:], func(r rune) bool { return r == '"' || unicode.IsSpace(r) })
	if j < 0 {
		return len(s)
	}
	return i + j
}

// setText reads q as given into the query's Given, Text (its free words), Phrases and Exclude.
func setText(q *search.Query, s string) {
	q.Given = s
	var words []string
	for _, p := range parts(s) {
		switch p.kind {
		case partWords:
			words = append(words, p.body)
		case partPhrase:
			q.Phrases = q.Phrases.With(p.body)
		case partExclude:
			q.Exclude = q.Exclude.With(p.body)
		}
	}
	q.Text = strings.Join(words, " ")
}

// textOf is q as the client gives it: Given, or for a query built in code (the load harness's),
// its free words.
func textOf(q *search.Query) string {
	if q.Given != "" {
		return q.Given
	}
	return q.Text
}

// WithWords is q as given with its free words (outside the operators) replaced by words, one by
// one, each where the stretch it replaces stood (the last takes any words left over), phrases and
// exclusions kept as given: the did-you-mean of a query whose free words it corrected in place.
func WithWords(q *search.Query, words string) string {
	fields := strings.Fields(words)
	ps := parts(textOf(q))
	free := 0
	for _, p := range ps {
		if p.kind == partWords {
			free++
		}
	}
	var out []string
	for _, p := range ps {
		switch {
		case p.kind != partWords:
			out = append(out, p.raw)
		case free == 1:
			out = append(out, fields...)
			fields = nil
		case len(fields) > 0:
			out = append(out, fields[0])
			fields = fields[1:]
		}
		if p.kind == partWords {
			free--
		}
	}
	return strings.Join(append(out, fields...), " ")
}
