// Package bench is the load harness: it builds a realistic, seeded mix of API requests from a
// catalogue, replays it against the gateway and, translated by the OpenSearch backend's own request
// builder, straight against OpenSearch in the same run (and through Passthrough, the floor of
// any gateway), and reports throughput, latency percentiles, errors by status and the
// gateway-to-engine ratios.
package bench

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"mediagw/catalogue"
	"mediagw/params"
	"mediagw/search"
	"mediagw/search/elastic"
	"mediagw/search/text"
)

// Kind is the API resource a request asks for.
type Kind int

// The resources of the API, in the order reports list them.
const (
	KindItems Kind = iota
	KindItem
	KindCategories
	KindAuthors
	// KindSuggest is resource=suggest, completions; the mix of BuildMix has none (see
	// BuildCompletions).
	KindSuggest
	numKinds
)

// mixKinds are the resources BuildMix draws from.
var mixKinds = []Kind{KindItems, KindItem, KindCategories, KindAuthors}

func (k Kind) String() string {
	switch k {
	case KindItems:
		return "items"
	case KindItem:
		return "item"
	case KindCategories:
		return "categories"
	case KindAuthors:
		return "authors"
	case KindSuggest:
		return "suggest"
	}
	return "kind(" + strconv.Itoa(int(k)) + ")"
}

// ParseKinds reads a comma-separated list of resource names.
func ParseKinds(list string) ([]Kind, error) {
	var out []Kind
	for _, name := range strings.Split(list, ",") {
		name = strings.TrimSpace(name)
		if name == "" {
			continue
		}
		k := Kind(0)
		for k < numKinds && k.String() != name {
			k++
		}
		if k == numKinds {
			return nil, fmt.Errorf("unknown resource %q: want items, item, categories, authors or suggest", name)
		}
		out = append(out, k)
	}
	return out, nil
}

// The proportions of the mix, in per mille, as a search box sends them: every result page is a
// search; about one search in three leads to a click that opens an item; the category list
// fills a filter menu on some page loads, and the author list, which is large, is opened rarely.
const (
	shareItems      = 720
	shareItem       = 240
	shareCategories = 30
	shareAuthors    = 10
)

// Within searches (per mille unless said otherwise). A search box mostly sends text; the rest
// is browsing with filters and a sort. Filters are independent, so some searches carry several.
const (
	withText      = 750 // q is set
	typoRate      = 30  // of texts, one letter swapped: the fuzzy path
	filterType    = 200
	filterCat     = 180
	filterLang    = 120
	filterAuthor  = 50
	filterDates   = 80
	sortExplicit  = 250 // an explicit sort instead of the default
	perPageOther  = 150 // per_page 50 or 10 instead of the default 20
	zipfExponent  = 1.1 // popularity of words, ids, authors and whole requests
	vocabularyCap = 5000
)

// Request is one API request, both as the gateway receives it and as the OpenSearch backend
// would send it to the engine.
type Request struct {
	Kind Kind
	// Query is the gateway's query string, without "?".
	Query string
	// Direct is the same question asked of OpenSearch.
	Direct Direct
}

// Direct is a request to OpenSearch: one HTTP request (Method, Path, Body), or for categories and
// authors the backend's whole exchange for the list (elastic.Counter), sent to Path as the
// backend would send it.
type Direct struct {
	Method, Path string
	// Body is nil when List is set: the Counter makes the bodies.
	Body []byte
	// List is the list a categories or authors request counts; nil for the others.
	List *elastic.List
}

// MixOptions shape a mix. Zero values take the defaults.
type MixOptions struct {
	Seed uint64
	// Alias is the OpenSearch alias direct requests go to; default elastic.DefaultAlias.
	Alias string
	// Distinct is the number of distinct searches and of distinct items the mix draws from
	// (default 20,000 each): real traffic repeats its popular requests, and this sets how much.
	Distinct int
	// Length is the length of the request sequence (default 100,000); runners cycle through it.
	Length int
	// Without leaves these kinds out; the others keep their proportions to each other. It
	// isolates a resource's share of a run's cost.
	Without []Kind
	// Forms draws the searches' words from those the catalogue also holds in another form
	// (Corpus.Formed), so that each word matches through its stems as well as as typed.
	Forms bool
}

func (o MixOptions) withDefaults() MixOptions {
	if o.Alias == "" {
		o.Alias = elastic.DefaultAlias
	}
	if o.Distinct <= 0 {
		o.Distinct = 20000
	}
	if o.Length <= 0 {
		o.Length = 100000
	}
	return o
}

// Mix is a deterministic sequence of requests.
type Mix struct {
	// Seq is the sequence; entries repeat (they point into a pool of distinct requests).
	Seq []*Request
	// Distinct is the number of distinct requests in Seq.
	Distinct int
}

// Count returns how many requests of Seq are of each kind.
func (m *Mix) Count() [numKinds]int {
	var n [numKinds]int
	for _, r := range m.Seq {
		n[r.Kind]++
	}
	return n
}

// weighted is a value with how often the catalogue holds it.
type weighted struct {
	value string
	n     int
}

// Corpus is what a mix is built from: the catalogue's own words, ids and filter values, with
// their frequencies.
type Corpus struct {
	// Words are the catalogue's words by descending document frequency (ties alphabetical).
	Words []string
	// IDs are the item ids in file order.
	IDs                               []string
	types, categories, langs, authors []weighted
	minYear, maxYear                  int
	// stemLangs are, per word of Words, the languages with a stemmer of the items holding it, a
	// bit per text.StemLanguages entry.
	stemLangs map[string]uint16
}

// stopwords are function words of the catalogue's main languages: nobody searches for them alone.
var stopwords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`the and for with from that this into about are was were its his her their
		des les une est dans pour par sur avec aux del los las una por con para der die das und von mit den dem ein eine
		che per una della nel dos das com para uma que não`) {
		stopwords[w] = true
	}
}

// ReadCorpus reads a catalogue (gzip or not) and gathers what a mix needs. Bad lines are skipped.
func ReadCorpus(path string) (*Corpus, error) {
	rc, err := catalogue.Open(path)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	return readCorpus(rc)
}

func readCorpus(r io.Reader) (*Corpus, error) {
	cr := catalogue.NewReader(r)
	df := map[string]int{}
	types, cats, langs, authors := map[string]int{}, map[string]int{}, map[string]int{}, map[string]int{}
	c := &Corpus{minYear: 9999}
	seen := map[string]bool{}
	stemLangs := map[string]uint16{}
	for {
		it, err := cr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		var lerr *catalogue.LineError
		if errors.As(err, &lerr) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("read catalogue: %w", err)
		}
		c.IDs = append(c.IDs, it.ID)
		types[it.Type]++
		count(cats, it.Category)
		count(langs, it.Language)
		count(authors, it.Author)
		if len(it.Date) >= 4 {
			if y, err := strconv.Atoi(it.Date[:4]); err == nil {
				c.minYear, c.maxYear = min(c.minYear, y), max(c.maxYear, y)
			}
		}
		clear(seen)
		bit := uint16(0)
		if i, ok := slices.BinarySearch(text.StemLanguages, it.Language); ok {
			bit = 1 << i
		}
		for _, s := range append([]string{it.Title}, append(it.Tags, it.Keywords...)...) {
			for _, w := range words(s) {
				if !seen[w] {
					seen[w] = true
					df[w]++
					stemLangs[w] |= bit
				}
			}
		}
	}
	if len(c.IDs) == 0 {
		return nil, errors.New("read catalogue: no items")
	}
	if c.maxYear == 0 {
		c.minYear, c.maxYear = 2000, 2025
	}
	ranked := byCount(df)
	c.stemLangs = map[string]uint16{}
	for _, w := range ranked[:min(len(ranked), vocabularyCap)] {
		c.Words = append(c.Words, w.value)
		c.stemLangs[w.value] = stemLangs[w.value]
	}
	if len(c.Words) == 0 {
		return nil, errors.New("read catalogue: no words to search for")
	}
	c.types, c.categories, c.langs, c.authors = byCount(types), byCount(cats), byCount(langs), byCount(authors)
	return c, nil
}

// held are the languages with a stemmer the catalogue's items are in.
func (c *Corpus) held() search.List {
	var out []string
	for _, lang := range text.StemLanguages {
		if slices.ContainsFunc(c.langs, func(w weighted) bool { return w.value == lang }) {
			out = append(out, lang)
		}
	}
	return search.ListOf(out...)
}

// Formed returns the words of Words, in their order, that share a stem with another of them in
// the language of an item holding each (text.IndexStems): "houses" beside "house".
func (c *Corpus) Formed() []string {
	byStem := map[string][]int{}
	for i, w := range c.Words {
		for k, lang := range text.StemLanguages {
			if c.stemLangs[w]&(1<<k) != 0 {
				for _, s := range text.IndexStems(lang, w) {
					byStem[s] = append(byStem[s], i)
				}
			}
		}
	}
	formed := make([]bool, len(c.Words))
	for _, words := range byStem {
		for _, i := range words {
			formed[i] = formed[i] || len(words) > 1
		}
	}
	var out []string
	for i, w := range c.Words {
		if formed[i] {
			out = append(out, w)
		}
	}
	return out
}

func count(m map[string]int, v string) {
	if v != "" {
		m[v]++
	}
}

func byCount(m map[string]int) []weighted {
	out := make([]weighted, 0, len(m))
	for v, n := range m {
		out = append(out, weighted{v, n})
	}
	slices.SortFunc(out, func(a, b weighted) int {
		if c := cmp.Compare(b.n, a.n); c != 0 {
			return c
		}
		return strings.Compare(a.value, b.value)
	})
	return out
}

// words splits s into the lower-case words a visitor might type: letters only, at least three
// of them, no stopwords.
func words(s string) []string {
	var out []string
	for _, f := range strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) }) {
		if utf8.RuneCountInString(f) < 3 {
			continue
		}
		w := strings.ToLower(f)
		if !stopwords[w] {
			out = append(out, w)
		}
	}
	return out
}

// mixer draws the parts of requests.
type mixer struct {
	rng   *rand.Rand
	c     *Corpus
	alias string
	// vocab are the words searches are made of, words draws from them.
	vocab []string
	words *rand.Zipf
	// held are the languages with a stemmer the catalogue holds, which the gateway's chain hands
	// each search (search.Request.Held), so that the direct form is the same engine request.
	held search.List
}

func (m *mixer) chance(perMille int) bool { return m.rng.IntN(1000) < perMille }

// zipf returns a Zipf-distributed index below n: 0 is the most popular.
func (m *mixer) zipf(n int) int {
	if n <= 1 {
		return 0
	}
	return int(rand.NewZipf(m.rng, zipfExponent, 1, uint64(n-1)).Uint64())
}

// frequent picks a value with probability proportional to how often the catalogue holds it.
func (m *mixer) frequent(ws []weighted) string {
	total := 0
	for _, w := range ws {
		total += w.n
	}
	x := m.rng.IntN(total)
	for _, w := range ws {
		if x < w.n {
			return w.value
		}
		x -= w.n
	}
	return ws[len(ws)-1].value
}

func (m *mixer) text() string {
	n := 1
	switch x := m.rng.IntN(100); {
	case x >= 90:
		n = 3
	case x >= 60:
		n = 2
	}
	ws := make([]string, n)
	for i := range ws {
		ws[i] = m.vocab[min(int(m.words.Uint64()), len(m.vocab)-1)]
	}
	if m.chance(typoRate) {
		ws[0] = typo(m.rng, ws[0])
	}
	return strings.Join(ws, " ")
}

// typo swaps two neighbouring letters of a longer word, as a hurried visitor does.
func typo(rng *rand.Rand, w string) string {
	r := []rune(w)
	if len(r) < 5 {
		return w
	}
	i := 1 + rng.IntN(len(r)-2)
	r[i], r[i+1] = r[i+1], r[i]
	return string(r)
}

func (m *mixer) page(perPage int) int {
	var p int
	switch x := m.rng.IntN(100); {
	case x < 70:
		p = 1
	case x < 85:
		p = 2
	case x < 92:
		p = 3
	case x < 98:
		p = 4 + m.rng.IntN(7)
	default:
		p = 11 + m.rng.IntN(90) // deep-ish: the visitor kept clicking next
	}
	return min(p, search.DeepestPage(perPage))
}

// search draws one search as the gateway would parse it, defaults filled in.
func (m *mixer) search() search.Query {
	q := search.Query{Page: 1, PerPage: 20}
	if m.chance(withText) {
		q.Text = m.text()
	}
	if m.chance(filterType) {
		q.Type = search.ListOf(m.frequent(m.c.types))
	}
	if m.chance(filterCat) && len(m.c.categories) > 0 {
		q.Category = search.ListOf(m.frequent(m.c.categories))
	}
	if m.chance(filterLang) && len(m.c.langs) > 0 {
		q.Language = search.ListOf(m.frequent(m.c.langs))
	}
	if m.chance(filterAuthor) && len(m.c.authors) > 0 {
		q.Author = m.c.authors[m.zipf(len(m.c.authors))].value
	}
	if m.chance(filterDates) {
		span := m.c.maxYear - m.c.minYear + 1
		from := m.c.minYear + m.rng.IntN(span)
		to := from + m.rng.IntN(m.c.maxYear-from+1)
		switch m.rng.IntN(3) {
		case 0:
			q.From = fmt.Sprintf("%04d-01-01", from)
		case 1:
			q.To = fmt.Sprintf("%04d-12-31", to)
		default:
			q.From, q.To = fmt.Sprintf("%04d-01-01", from), fmt.Sprintf("%04d-12-31", to)
		}
	}
	if m.chance(sortExplicit) {
		q.Sort = []search.Sort{search.SortNewest, search.SortNewest, search.SortDownloads, search.SortDownloads, search.SortAZ, search.SortOldest}[m.rng.IntN(6)]
	}
	if m.chance(perPageOther) {
		q.PerPage = 50
		if m.chance(300) {
			q.PerPage = 10
		}
	}
	q.Page = m.page(q.PerPage)
	q.Normalize() // the default sort, as the gateway's codec fills it
	return q
}

func (m *mixer) searchPath() string { return "/" + url.PathEscape(m.alias) + "/_search" }

func (m *mixer) itemsRequest(q search.Query) (*Request, error) {
	direct := search.NewRequest(q)
	direct.Held = m.held
	req, err := elastic.NewSearchRequest(direct)
	if err != nil {
		return nil, err
	}
	if req.Searches > 0 {
		return nil, fmt.Errorf("bench: a search of %d engine searches (facets apart) is no direct request", req.Searches)
	}
	return &Request{Kind: KindItems, Query: params.Encode(&q),
		Direct: Direct{Method: "POST", Path: m.searchPath(), Body: req.Body}}, nil
}

func (m *mixer) itemRequest(id string) (*Request, error) {
	body, err := elastic.ItemRequest(id)
	if err != nil {
		return nil, err
	}
	return &Request{Kind: KindItem, Query: url.Values{"resource": {"item"}, "id": {id}}.Encode(),
		Direct: Direct{Method: "POST", Path: m.searchPath(), Body: body}}, nil
}

// listRequest is resource=categories or resource=authors; directly, the exchange of its list.
func (m *mixer) listRequest(k Kind) *Request {
	l := elastic.ListAuthors
	if k == KindCategories {
		l = elastic.ListCategories
	}
	return &Request{Kind: k, Query: "resource=" + k.String(),
		Direct: Direct{Method: "POST", Path: m.searchPath(), List: &l}}
}

// BuildMix draws a mix from c. The same corpus and options give the same mix.
func BuildMix(c *Corpus, opt MixOptions) (*Mix, error) {
	opt = opt.withDefaults()
	rng := rand.New(rand.NewPCG(opt.Seed, 0x6d656469616777)) // second word: "mediagw"
	m := &mixer{rng: rng, c: c, alias: opt.Alias, vocab: c.Words, held: c.held()}
	if opt.Forms {
		m.vocab = c.Formed()
		if len(m.vocab) == 0 {
			return nil, errors.New("bench: no word of the catalogue has another form in it")
		}
	}
	m.words = rand.NewZipf(rng, zipfExponent, 1, uint64(max(len(m.vocab)-1, 1)))

	// Pools of distinct requests; their order is their popularity rank.
	searches := make([]*Request, 0, opt.Distinct)
	seen := map[string]bool{}
	for tries := 0; len(searches) < opt.Distinct && tries < 20*opt.Distinct; tries++ {
		r, err := m.itemsRequest(m.search())
		if err != nil {
			return nil, err
		}
		if !seen[r.Query] {
			seen[r.Query] = true
			searches = append(searches, r)
		}
	}
	// Popular items are spread over the catalogue, not its first lines.
	idOrder := rng.Perm(len(c.IDs))
	items := make([]*Request, 0, min(opt.Distinct, len(c.IDs)))
	for _, i := range idOrder[:min(opt.Distinct, len(c.IDs))] {
		r, err := m.itemRequest(c.IDs[i])
		if err != nil {
			return nil, err
		}
		items = append(items, r)
	}
	categories, authors := m.listRequest(KindCategories), m.listRequest(KindAuthors)

	searchRank := rand.NewZipf(rng, zipfExponent, 1, uint64(len(searches)-1))
	itemRank := rand.NewZipf(rng, zipfExponent, 1, uint64(max(len(items)-1, 1)))
	mix := &Mix{Seq: make([]*Request, opt.Length)}
	used := map[*Request]bool{}
	left := false
	for _, k := range mixKinds {
		left = left || !slices.Contains(opt.Without, k)
	}
	if !left {
		return nil, errors.New("bench: the mix leaves out every resource")
	}
	pick := func() *Request {
		switch x := rng.IntN(1000); {
		case x < shareItems:
			return searches[searchRank.Uint64()]
		case x < shareItems+shareItem:
			return items[min(int(itemRank.Uint64()), len(items)-1)]
		case x < shareItems+shareItem+shareCategories:
			return categories
		}
		return authors
	}
	for i := range mix.Seq {
		r := pick()
		for slices.Contains(opt.Without, r.Kind) {
			r = pick()
		}
		mix.Seq[i] = r
		used[r] = true
	}
	mix.Distinct = len(used)
	return mix, nil
}
