package search

import (
	"cmp"
	"html"
	"slices"
	"strings"
	"unicode/utf8"

	"mediagw/search/text"
)

// MaxSnippetRunes bounds the text of one matched field, ellipses included, tags not.
const MaxSnippetRunes = 200

// snippetLead is how much text a snippet shows before its first match when it must be cut.
const snippetLead = 60

// Matched returns, for each searched field of it that a word or a phrase of r matches, the
// field's text HTML-escaped with every matching word in <mark>…</mark>, cut to MaxSnippetRunes
// around the first match; nil when nothing matches. A word matches as the engines match it: folded
// (text.Fold), equal or within its typo allowance (TypoAllowance) if its search's Plan gives it one,
// or in a field of StemFields as another form of it in the item's language (text.IndexStems) if
// the Plan keeps its stems; a phrase marks the words of each place a value holds its terms side by
// side (Phrases); a word r.Curation searches as its synonyms matches as each of them. It is
// computed from the item alone, so both backends highlight alike. Lists (tags, keywords) are
// joined with ", ".
func Matched(it Item, r *Request) map[string]string { return NewHighlighter(r).Matched(it) }

// Highlighter marks what one search matched in the items of its answer: the search is planned
// once (Request.Plan, its synonyms, typo allowances), the stems once per item language.
type Highlighter struct {
	phrases [][]string
	words   []highlightWord
	// byLanguage are the words with their stems in a language, as items of it need them.
	byLanguage map[string][]queryWord
}

// highlightWord is one alternative of a searched word, with what its stems are made from.
type highlightWord struct {
	queryWord
	word, alt string
	stemmed   bool
}

// NewHighlighter plans r's highlighting; its Matched is Matched for r.
func NewHighlighter(r *Request) *Highlighter {
	words := r.Words()
	h := &Highlighter{phrases: r.Query.Phrases.Terms(), byLanguage: map[string][]queryWord{}}
	if len(words) == 0 && len(h.phrases) == 0 {
		return h
	}
	plan := r.Plan()
	for i, w := range words {
		var typo, stems bool
		if i < len(plan.Words) {
			typo = Typo(plan.Words[i])
			stems = slices.ContainsFunc(plan.Words[i], func(v Variant) bool { return len(v.Stems) > 0 })
		}
		// A word is searched as its synonyms (r.Curation), each with the word's typo allowance.
		alts := []string{w}
		if r.Curation != nil {
			if a := r.Curation.Alternatives(w); len(a) > 0 {
				alts = a
			}
		}
		for _, a := range alts {
			hw := highlightWord{queryWord: queryWord{folded: []rune(text.Fold(a))}, word: w, alt: a, stemmed: stems}
			if typo {
				hw.allowance = TypoAllowance(string(hw.folded))
			}
			h.words = append(h.words, hw)
		}
	}
	return h
}

// query is the searched words as an item in lang matches them.
func (h *Highlighter) query(lang string) []queryWord {
	if q, ok := h.byLanguage[lang]; ok {
		return q
	}
	q := make([]queryWord, len(h.words))
	for i, hw := range h.words {
		q[i] = hw.queryWord
		if hw.stemmed && lang != "" {
			q[i].stems = WordStems(hw.word, text.Terms(hw.alt), []string{lang})
		}
	}
	h.byLanguage[lang] = q
	return q
}

// Matched is Matched(it, r) for the r h was made for. Not for concurrent use.
func (h *Highlighter) Matched(it Item) map[string]string {
	if len(h.words) == 0 && len(h.phrases) == 0 {
		return nil
	}
	query := h.query(it.Language)
	phrases := h.phrases
	var out map[string]string
	stemmed := map[Field]bool{}
	for _, sf := range StemFields {
		for _, f := range sf.Of {
			stemmed[f] = true
		}
	}
	for _, f := range []Field{FieldTitle, FieldSummary, FieldDescription, FieldTags, FieldKeywords, FieldAuthor} {
		lang := ""
		if stemmed[f] {
			lang = it.Language
		}
		if s, ok := snippet(it.Texts(f), query, phrases, lang); ok {
			if out == nil {
				out = map[string]string{}
			}
			out[string(f)] = s
		}
	}
	return out
}

// queryWord is a word of a search, folded, with the edits it may differ by and its stems in the
// item's language.
type queryWord struct {
	folded    []rune
	allowance int
	stems     []string
}

// span is a matched word of a text, in bytes.
type span struct{ start, end int }

// listSep joins the values of a list field in its snippet.
const listSep = ", "

// snippet marks the words of the values, joined by listSep, that match a query word (or are
// another form of one in the language lang, if any) or belong to a place a phrase matches within
// one value, or reports that none does.
func snippet(values []string, query []queryWord, phrases [][]string, lang string) (string, bool) {
	field := strings.Join(values, listSep)
	var marks []span
	for sp := range text.Spans(field) {
		start, end := sp.Start, sp.End
		folded := []rune(text.Fold(field[start:end]))
		var stem []string
		if lang != "" {
			stem = text.IndexStems(lang, field[start:end])
		}
		for _, q := range query {
			if editsWithin(q.folded, folded, q.allowance) || len(stem) == 1 && slices.Contains(q.stems, stem[0]) {
				marks = append(marks, span{start, end})
				break
			}
		}
	}
	at := 0
	for _, v := range values {
		if len(phrases) > 0 {
			marks = append(marks, phraseMarks(v, at, phrases)...)
		}
		at += len(v) + len(listSep)
	}
	if len(marks) == 0 {
		return "", false
	}
	marks = merged(marks)
	from, to := window(field, marks[0].start)
	var b strings.Builder
	if from > 0 {
		b.WriteString("…")
	}
	at = from
	for _, m := range marks {
		if m.start < from || m.end > to {
			continue
		}
		b.WriteString(html.EscapeString(field[at:m.start]))
		b.WriteString("<mark>")
		b.WriteString(html.EscapeString(field[m.start:m.end]))
		b.WriteString("</mark>")
		at = m.end
	}
	b.WriteString(html.EscapeString(field[at:to]))
	if to < len(field) {
		b.WriteString("…")
	}
	return b.String(), true
}

// phraseMarks are the spans, offset by at, of the terms of value at every place one of phrases
// matches: its terms side by side in the value's terms (text.IndexTerms, as the indexes hold them).
func phraseMarks(value string, at int, phrases [][]string) []span {
	toks := text.IndexTerms(value)
	var out []span
	for _, p := range phrases {
		for i := 0; i+len(p) <= len(toks); i++ {
			if !holdsAt(toks[i:], p) {
				continue
			}
			for _, t := range toks[i : i+len(p)] {
				out = append(out, span{at + t.Start, at + t.End})
			}
		}
	}
	return out
}

// holdsAt reports whether toks begins with the terms of phrase.
func holdsAt(toks []text.Token, phrase []string) bool {
	for j, term := range phrase {
		if toks[j].Term != term {
			return false
		}
	}
	return true
}

// merged sorts spans and joins those that overlap (a CJK phrase's unigrams and bigrams).
func merged(spans []span) []span {
	slices.SortFunc(spans, func(a, b span) int { return cmp.Or(a.start-b.start, a.end-b.end) })
	out := spans[:1]
	for _, s := range spans[1:] {
		last := &out[len(out)-1]
		if s.start < last.end {
			last.end = max(last.end, s.end)
			continue
		}
		out = append(out, s)
	}
	return out
}

// window is the byte range of text a snippet shows: all of it when short enough, else
// MaxSnippetRunes runes with the ellipses, from snippetLead runes before the first match (or
// earlier, when the text ends first).
func window(text string, first int) (from, to int) {
	n := utf8.RuneCountInString(text)
	if n <= MaxSnippetRunes {
		return 0, len(text)
	}
	offsets := make([]int, 0, n+1)
	for i := range text {
		offsets = append(offsets, i)
	}
	offsets = append(offsets, len(text))
	firstRune := utf8.RuneCountInString(text[:first])
	start := max(0, firstRune-snippetLead)
	var end int
	switch {
	case start == 0:
		end = MaxSnippetRunes - 1 // "…" after
	case n-start <= MaxSnippetRunes-1:
		start, end = n-(MaxSnippetRunes-1), n // "…" before
	default:
		end = start + MaxSnippetRunes - 2 // "…" on both sides
	}
	return offsets[start], offsets[end]
}

// EditsWithin reports whether a and b differ by at most max edits, as editsWithin counts them.
func EditsWithin(a, b string, max int) bool { return editsWithin([]rune(a), []rune(b), max) }

// editsWithin reports whether a and b differ by at most max insertions, deletions, substitutions
// or transpositions of adjacent runes (optimal string alignment distance), as a fuzzy query counts.
func editsWithin(a, b []rune, max int) bool {
	if d := len(a) - len(b); d > max || -d > max {
		return false
	}
	if max == 0 {
		return string(a) == string(b)
	}
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		rowMin := cur[0]
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
			rowMin = min(rowMin, cur[j])
		}
		if rowMin > max {
			return false
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)] <= max
}
