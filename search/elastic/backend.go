// Package elastic answers the API's searches from an Elasticsearch or OpenSearch index behind an alias,
// and builds new versions of that index for operators (load, reindex, rollback, status).
package elastic

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/opensearch-project/opensearch-go/v4/opensearchapi"

	"mediagw/search"
	"mediagw/search/elastic/mappings"
)

// Config says where the engine is and how to talk to it. Zero values take the defaults.
type Config struct {
	// URLs of the engine's nodes, with credentials in the user info if the cluster needs them.
	URLs []string
	// Product is the engine the URLs must lead to (Detect); default OpenSearch.
	Product Product
	// Username and Password, when set, authenticate every request (HTTP basic) that the URL's
	// user info does not.
	Username, Password string
	// APIKey, when set, is sent as "Authorization: ApiKey <APIKey>" (Elasticsearch's API keys,
	// the base64 "encoded" form its create API answers) instead of basic authentication.
	APIKey string
	// CAFile is a PEM file of the certificate authorities that sign the nodes' HTTPS certificates,
	// trusted besides the system's. It does not apply to a Transport of the configuration's own.
	CAFile string
	// Alias is the name readers query; loads create versioned indices "<Alias>-<UTC time>" behind it.
	// Default DefaultAlias.
	Alias string
	// Mapping is the index definition (settings and mappings) new indices get; default mappings.Items.
	Mapping []byte
	// Timeout bounds each query whose context has no deadline of its own. Default
	// search.DefaultTimeout.
	Timeout time.Duration
	// MaxConns is the number of keep-alive connections per node. Default 32.
	MaxConns int
	// Transport replaces the HTTP transport (MaxConns and Compression then do not apply).
	Transport http.RoundTripper
	// ReadRetries is how many more nodes a read (a search, the alias, a ping) is sent to when a
	// node gives no answer (refused, reset: a node gone) or answers 502 or 503. Default 2; negative
	// none. A read that runs out of time is not sent again: the caller's deadline bounds it.
	// Writes (loads) are never sent again by the client: loads retry on their own terms.
	ReadRetries int
	// DiscoverInterval, when positive, has the client ask the cluster for its nodes at start and
	// then at this interval (sniffing), so requests spread over nodes the URLs do not list and a
	// node that left is dropped. Only for clients that can reach the nodes' published addresses.
	DiscoverInterval time.Duration
	// Compression asks the engine to gzip its answers. Off by default: on loopback or a cluster
	// network, the engine's gzip and the gateway's gunzip cost more CPU than the bytes save.
	// Worth it only over a slow link.
	Compression bool

	// Keep is how many replaced indices a load keeps for rollback besides the live one; 0 or less
	// keeps none, as with the embedded index (search.Admin). The one default the zero value does
	// not take: the configuration's is search.DefaultKeep.
	Keep int
	// BatchSize is the number of items per bulk request. Default 1000.
	BatchSize int
	// Workers is the number of bulk requests in flight during a load. Default 2.
	Workers int
	// BulkTimeout bounds one bulk request; a request that runs out is retried. Default 2m.
	BulkTimeout time.Duration
	// Retries is how many times a bulk request rejected with 429 or 5xx is sent again. Default 8.
	Retries int
	// RetryBackoff is the first wait before a retry; it doubles each time. Default 500ms.
	RetryBackoff time.Duration
	// Now is the clock that names new indices; default time.Now.
	Now func() time.Time
}

// DefaultAlias is the alias readers query when the configuration names none (MEDIA_ENGINE_INDEX).
const DefaultAlias = "media"

func (c Config) withDefaults() Config {
	if c.Alias == "" {
		c.Alias = DefaultAlias
	}
	if c.Product == "" {
		c.Product = OpenSearch
	}
	if c.Mapping == nil {
		c.Mapping = mappings.Items
	}
	if c.Timeout <= 0 {
		c.Timeout = search.DefaultTimeout
	}
	if c.MaxConns <= 0 {
		c.MaxConns = 32
	}
	if c.ReadRetries == 0 {
		c.ReadRetries = 2
	}
	if c.BatchSize <= 0 {
		c.BatchSize = 1000
	}
	if c.Workers <= 0 {
		c.Workers = 2
	}
	if c.BulkTimeout <= 0 {
		c.BulkTimeout = 2 * time.Minute
	}
	if c.Retries <= 0 {
		c.Retries = 8
	}
	if c.RetryBackoff <= 0 {
		c.RetryBackoff = 500 * time.Millisecond
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	return c
}

// Backend is a search.Backend and search.Admin over one alias. It is safe for concurrent use.
type Backend struct {
	cfg Config
	// client sends writes, once each; reads go to another node when one gives no answer.
	client, reads *opensearchapi.Client
	// limits size the requests of the categories, authors and words lists: defaultLimits, smaller in
	// tests of the partitioning.
	limits map[List]listLimits
	// refreshInterval is the mapping's index.refresh_interval, restored after a load, or nil.
	refreshInterval any
	// names are the category names facets give, of the index that answered last.
	names nameCache
	// engine is what Detect found.
	engine atomic.Pointer[Engine]
	// live is the owner of the version served (ReadVersionFrom), nil when the backend serves
	// without a chain in front of it.
	live search.LiveVersion
}

// New checks the configuration and makes a client; it does not contact the engine (see Ping).
func New(cfg Config) (*Backend, error) {
	cfg = cfg.withDefaults()
	if len(cfg.URLs) == 0 {
		return nil, fmt.Errorf("%s: no URL", cfg.Product)
	}
	if strings.ToLower(cfg.Alias) != cfg.Alias || strings.ContainsAny(cfg.Alias, `\/*?"<>| ,#:`) || strings.HasPrefix(cfg.Alias, "_") {
		return nil, fmt.Errorf("%s: alias %q: use lower-case letters, digits, - and _", cfg.Product, cfg.Alias)
	}
	if err := mappings.Check(cfg.Mapping); err != nil {
		return nil, fmt.Errorf("%s: index definition: %w", cfg.Product, err)
	}
	refresh, err := mappings.RefreshInterval(cfg.Mapping)
	if err != nil {
		return nil, fmt.Errorf("%s: index definition: %w", cfg.Product, err)
	}
	// The definition must say its version: Status compares it with search.IndexVersion.
	if _, err := mappings.ReadMeta(cfg.Mapping); err != nil {
		return nil, fmt.Errorf("%s: index definition: %w", cfg.Product, err)
	}
	if _, ok := majors[cfg.Product]; !ok {
		return nil, fmt.Errorf("engine: product %q: use %s or %s", cfg.Product, Elasticsearch, OpenSearch)
	}
	client, reads, err := newClients(cfg)
	if err != nil {
		return nil, err
	}
	return &Backend{cfg: cfg, client: client, reads: reads, limits: maps.Clone(defaultLimits), refreshInterval: refresh}, nil
}

// name is the engine's name in errors: the product Detect found, else the configured one.
func (b *Backend) name() Product {
	if e := b.engine.Load(); e != nil && e.Product != "" {
		return e.Product
	}
	return b.cfg.Product
}

// Alias is the alias the backend reads.
func (b *Backend) Alias() string { return b.cfg.Alias }

// Close releases the client's connections and background work.
func (b *Backend) Close() error { return errors.Join(b.client.Close(), b.reads.Close()) }

// answerShards is the part of every _search answer that says whether all shards answered.
type answerShards struct {
	Shards struct {
		Failed   int `json:"failed"`
		Failures []struct {
			Reason struct {
				Type string `json:"type"`
			} `json:"reason"`
		} `json:"failures"`
	} `json:"_shards"`
}

// failure is the error of an answer some shards did not contribute to, or nil.
func (a *answerShards) failure(engine Product, op string) error {
	if a.Shards.Failed == 0 {
		return nil
	}
	// A partial answer would give wrong totals and skip items between pages.
	ee := &EngineError{Engine: engine, Op: op, Status: http.StatusServiceUnavailable, Type: "shard_failure", shardFailure: true}
	if len(a.Shards.Failures) > 0 {
		ee.Type = a.Shards.Failures[0].Reason.Type
	}
	return fmt.Errorf("%w: %w", search.ErrUnavailable, ee)
}

// searchResponse is the part of a search's answer the backend reads. Each hit's _source is decoded
// once, straight into an item (its title_sort is left out).
type searchResponse struct {
	answerShards
	Hits struct {
		Total struct {
			Value int `json:"value"`
		} `json:"total"`
		Hits []hit `json:"hits"`
	} `json:"hits"`
}

// hit is one item of a searchResponse.
type hit struct {
	Index  string      `json:"_index"`
	Source search.Item `json:"_source"`
	// Sort holds the hit's sort values, read only for a walk's next cursor (sortValues).
	Sort json.RawMessage `json:"sort"`
}

// item is the hit's item. An index of an older layout stores nothing of what Item.Derive reads,
// which is then read here, so that its items are served whole until a reindex.
func (h hit) item() search.Item {
	it := h.Source
	if it.MediaLicense.ID == "" {
		it.Derive()
	}
	return it
}

// sortValues are a hit's sort values, as search_after takes them back: numbers are kept as
// json.Number, since a float64 would round the long a missing date sorts as.
func sortValues(raw json.RawMessage) ([]any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var out []any
	if err := dec.Decode(&out); err != nil {
		return nil, fmt.Errorf("sort values of the last hit: %w", err)
	}
	return out, nil
}

// pageAnswer is the answer to a search's request: its hits, and the aggregations of its facets
// when they are counted beside them.
type pageAnswer struct {
	searchResponse
	Aggregations facetAnswer `json:"aggregations"`
}

// Search returns one page of the items matching r, in its Sort order, with the exact total.
//
// A walk's page searches the alias too, after the cursor's position; it must be answered by the
// index the walk started on (the index behind the alias when it did), since another index,
// a reload of the same items included, may order them otherwise.
func (b *Backend) Search(ctx context.Context, r *search.Request) (search.Result, error) {
	q := &r.Query
	req, err := NewSearchRequest(r)
	if err != nil {
		return search.Result{}, fmt.Errorf("%s search: %w", b.name(), err)
	}
	cur, walking := req.walk, req.walking
	var resp pageAnswer
	if req.Searches > 0 {
		answers, err := b.doMultiSearch(ctx, "search", req.Body, nil, req.Searches)
		if err != nil {
			return search.Result{}, err
		}
		resp = answers[0]
		resp.Aggregations = make(facetAnswer, len(search.Facets))
		for _, a := range answers[1:] {
			maps.Copy(resp.Aggregations, a.Aggregations)
		}
	} else {
		// Decoded into room for a page, the hits are not copied again as their slice grows.
		resp.Hits.Hits = make([]hit, 0, q.PerPage)
		if err := b.doSearch(ctx, "search", req.Body, nil, &resp); err != nil {
			return search.Result{}, err
		}
	}
	hits := resp.Hits.Hits
	res := search.Result{Items: make([]search.Item, len(hits)), Total: resp.Hits.Total.Value}
	for i, h := range hits {
		res.Items[i] = h.item()
	}
	// index is the index that answered, as its hits name it; "" for a page without hits until
	// answeredBy names it.
	index := ""
	if len(hits) > 0 {
		index = hits[0].Index
	}
	if walking {
		if index, err = b.walkIndex(ctx, cur, index); err != nil {
			return search.Result{}, err
		}
		if len(hits) > 0 {
			after, err := sortValues(hits[len(hits)-1].Sort)
			if err != nil {
				return search.Result{}, err
			}
			res.Next = cur.Next(q, index, len(hits), res.Total, after)
		}
	}
	if q.Facets != 0 {
		if res.Facets, err = b.facets(ctx, q, resp.Aggregations, index); err != nil {
			return search.Result{}, err
		}
	}
	return res, nil
}

// walkIndex is the index that answered a walk's page (index, or "" for a page without hits), which
// must be the one the walk's cursor names: search.ErrCursorExpired otherwise.
func (b *Backend) walkIndex(ctx context.Context, cur search.Cursor, index string) (string, error) {
	if cur.Version == "" {
		return index, nil
	}
	index, err := b.answeredBy(ctx, index)
	if err != nil {
		return "", err
	}
	if index != cur.Version {
		return "", fmt.Errorf("%s search: index %s: %w", b.name(), cur.Version, search.ErrCursorExpired)
	}
	return index, nil
}

// answeredBy is the index that answered a search: index, the one its hits name, or, for a page
// without hits ("", which does not say), the one the alias serves: the same, but across a load.
// The owner of the live version says which when it knows (ReadVersionFrom), so that no page waits
// on the alias; it may be a few seconds behind a load (search/live), in which a walk's page
// without hits ends the walk rather than expires it, and a page's facets may name categories as
// the previous index did. Otherwise the alias is asked now.
func (b *Backend) answeredBy(ctx context.Context, index string) (string, error) {
	if index != "" {
		return index, nil
	}
	if b.live != nil {
		if v := b.live.Named(); v != "" {
			return v, nil
		}
	}
	return b.Version(ctx)
}

// ReadVersionFrom has the backend read the index the alias serves from v, the chain's owner of
// the live version, rather than ask the alias on a search's path. Call it once, before it serves.
func (b *Backend) ReadVersionFrom(v search.LiveVersion) { b.live = v }

// Item returns the item with the given id, or search.ErrNotFound. It searches on the id field
// rather than fetching by document id, so ids such as "." or ".." cannot turn into other paths.
func (b *Backend) Item(ctx context.Context, id string) (search.Item, error) {
	body, err := ItemRequest(id)
	var resp searchResponse
	if err := b.doSearch(ctx, "item", body, err, &resp); err != nil {
		return search.Item{}, err
	}
	if len(resp.Hits.Hits) == 0 {
		return search.Item{}, fmt.Errorf("item %q: %w", id, search.ErrNotFound)
	}
	return resp.Hits.Hits[0].item(), nil
}

// countList runs the Counter exchange for l over the items f's filters find.
func (b *Backend) countList(ctx context.Context, l List, f search.Query) ([]TermCount, error) {
	c := newCounter(l, b.limits[l], f)
	for {
		body, err := c.Request()
		a := c.newAnswer()
		if err := b.doSearch(ctx, l.String(), body, err, a); err != nil {
			return nil, err
		}
		done, err := c.answer(a)
		if err != nil {
			return nil, fmt.Errorf("%s %w", b.name(), err)
		}
		if done {
			return c.Values(), nil
		}
	}
}

// Categories returns every category with its count of the items f's filters find and its name
// (search.PickCategoryName over all its items), ordered by slug.
func (b *Backend) Categories(ctx context.Context, f search.Query) ([]search.Category, error) {
	values, err := b.countList(ctx, ListCategories, f)
	if err != nil {
		return nil, err
	}
	if f != (search.Query{}) && len(values) > 0 {
		slugs := make([]string, len(values))
		for i, v := range values {
			slugs[i] = v.Value
		}
		names, err := b.categoryNames(ctx, "", slugs)
		if err != nil {
			return nil, err
		}
		for i := range values {
			values[i].Name = names[values[i].Value]
		}
	}
	out := make([]search.Category, len(values))
	for i, v := range values {
		// The engine's top name is the one most items give, ties to the first in byte order:
		// search.PickCategoryName of the names items give.
		name := v.Name
		if name == "" {
			name = search.CategoryName(v.Value)
		}
		out[i] = search.Category{Slug: v.Value, Name: name, Count: v.Count}
	}
	return out, nil
}

// Authors returns every credited author with its item count, ordered by search.AuthorLess: the
// order of their keys (search.AuthorKey), which the engine gives sorted within each partition of
// the list, so that no name is folded to sort them here.
func (b *Backend) Authors(ctx context.Context, f search.Query) ([]search.Author, error) {
	values, err := b.countList(ctx, ListAuthors, f)
	if err != nil {
		return nil, err
	}
	out := make([]search.Author, len(values))
	byKey := true
	for i, v := range values {
		out[i] = search.Author{Name: search.AuthorName(v.Value), Count: v.Count}
		byKey = byKey && search.KeyOrdersAuthor(v.Value)
	}
	if !byKey {
		search.SortAuthors(out)
	}
	return out, nil
}

// Words returns every word the index holds with the items holding it (each item lists its
// distinct words once), for the did-you-mean's dictionary (search/spell).
func (b *Backend) Words(ctx context.Context) ([]search.Word, error) {
	values, err := b.countList(ctx, ListWords, search.Query{})
	if err != nil {
		return nil, err
	}
	out := make([]search.Word, len(values))
	for i, v := range values {
		out[i] = search.Word{Text: v.Value, Items: v.Count}
	}
	return out, nil
}

// Ping reports whether the engine answers and the alias names an index to serve.
func (b *Backend) Ping(ctx context.Context) error {
	ctx, cancel := b.bound(ctx, b.cfg.Timeout)
	defer cancel()
	resp, err := b.reads.Indices.Exists(ctx, opensearchapi.IndicesExistsReq{Indices: []string{b.cfg.Alias}})
	switch status := statusOf(resp); {
	case status == http.StatusOK:
		return nil
	case status == http.StatusNotFound:
		return fmt.Errorf("%s ping: %w", b.name(), search.NoIndex(b.cfg.Alias, nil))
	case err == nil:
		err = errors.New("unexpected answer")
		fallthrough
	default:
		return classify(ctx, b.name(), "ping", status, err)
	}
}

// Version returns the name of the index behind the alias, which changes with every load: a
// cache key for answers derived from the index.
func (b *Backend) Version(ctx context.Context) (string, error) {
	live, err := b.aliasTargets(ctx)
	if err != nil {
		return "", err
	}
	if len(live) == 0 {
		return "", fmt.Errorf("%s version: %w", b.name(), search.NoIndex(b.cfg.Alias, nil))
	}
	return live[0], nil
}

// aliasTargets lists the indices the alias points at, sorted; none when the alias does not exist.
func (b *Backend) aliasTargets(ctx context.Context) ([]string, error) {
	ctx, cancel := b.bound(ctx, b.cfg.Timeout)
	defer cancel()
	resp, err := b.reads.Indices.Alias.Get(ctx, opensearchapi.AliasGetReq{Alias: []string{b.cfg.Alias}})
	status := answerStatus(resp)
	if status == http.StatusNotFound {
		return nil, nil
	}
	if err != nil {
		return nil, classify(ctx, b.name(), "get alias", status, err)
	}
	var names []string
	for name := range resp.GetIndices() {
		names = append(names, name)
	}
	slices.Sort(names)
	return names, nil
}

var (
	_ search.Backend       = (*Backend)(nil)
	_ search.Loader        = (*Backend)(nil)
	_ search.VersionReader = (*Backend)(nil)
)
