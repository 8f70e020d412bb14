package search

import (
	"strconv"
	"strings"
	"sync"

	"mediagw/search/text"
)

// Request is one search on its way down the chain (search/chain) to a backend: the Query as the
// client asked it, normalized once by the query codec, and what is derived from it, each made at
// most once for the request and read by every layer and backend through the one pointer: its
// words, its plan within the clause budget, its key, its cursor's position and the rules it is
// answered under. Whoever makes a Request sets Position before handing it on, and the chain its
// Curation (Serve); from then on it is read only, by any number of goroutines.
type Request struct {
	// Query is what the client asked.
	Query Query
	// Position is Query.Cursor decoded, when whoever read it (the query codec) kept it, so that
	// no one decodes it again; nil otherwise, and always at the walk's start.
	Position *Cursor
	// Curation is the synonyms and pins a backend applies to the search, set by the chain from
	// the set served (Serve; nil: none); the API never sets it.
	Curation Curation
	// Held is the languages with a stemmer the served index holds, whose stems a search's words
	// are matched against when its Language names none (WordStems), set by the chain with the
	// rules (Serve); empty: every language with a stemmer. The API never sets it.
	Held List

	served sync.Once
	words  derived[[]string]
	plan   derived[Plan]
	key    derived[string]
}

// derived is a value of a Request made by the first who needs it.
type derived[T any] struct {
	once sync.Once
	v    T
}

func (d *derived[T]) get(build func() T) T {
	d.once.Do(func() { d.v = build() })
	return d.v
}

// NewRequest is the request of q, which is normalized (Query.Normalize).
func NewRequest(q Query) *Request { return &Request{Query: q} }

// With is the request of q, another query of the same search (its facets' filters, its text
// left out), under r's rules; what it derives is made anew.
func (r *Request) With(q Query) *Request {
	w := NewRequest(q)
	w.Curation, w.Held = r.Curation, r.Held
	return w
}

// Serve sets the rules r is answered under and the languages held, unless they are set already:
// the chain (search/chain) hands a request what is served when it first sees it, and the
// request's later calls (its did-you-mean, its totals) are under the same.
func (r *Request) Serve(c Curation, held List) {
	r.served.Do(func() { r.Curation, r.Held = c, held })
}

// Words are the words of the search's text, in order (text.Words of Query.Text). Callers must not
// modify them.
func (r *Request) Words() []string {
	return r.words.get(func() []string { return text.Words(r.Query.Text) })
}

// Plan is the search's text as the backends query it, within MaxClauses (PlanText), under the
// request's Curation. Callers must not modify it.
func (r *Request) Plan() Plan { return r.plan.get(func() Plan { return PlanText(r) }) }

// Key names the search's answer: it holds everything of the Query that decides the answer (its
// items, their order, its page, its facets), so two requests of one key have one answer from one
// index version under one set of rules. Given and Highlight are not in it: the codec reads Given
// into Text, Phrases and Exclude, and highlighting needs only the items.
func (r *Request) Key() string {
	return r.key.get(func() string {
		q := &r.Query
		return Key(append(q.matchParts(), string(q.Sort), strconv.Itoa(q.Page), strconv.Itoa(q.PerPage),
			strconv.Itoa(int(q.Facets)), q.Cursor)...)
	})
}

// MatchKey names which items q finds: its text, phrases, exclusions, author, dates and filters,
// not its page, order or facets (what a total depends on).
func (q *Query) MatchKey() string { return Key(q.matchParts()...) }

// matchParts are the fields of q that decide which items it finds: textParts and Filters.
func (q *Query) matchParts() []string { return append(q.textParts(), q.Filters()...) }

// textParts are q's text, phrases, exclusions, author and dates.
func (q *Query) textParts() []string {
	return []string{q.Text, string(q.Phrases), string(q.Exclude), q.Author, q.From, q.To}
}

// Key joins parts unambiguously: each is prefixed with its length.
func Key(parts ...string) string {
	n := 0
	for _, p := range parts {
		n += len(p) + 4
	}
	var sb strings.Builder
	sb.Grow(n)
	for _, p := range parts {
		sb.WriteString(strconv.Itoa(len(p)))
		sb.WriteByte(':')
		sb.WriteString(p)
	}
	return sb.String()
}
