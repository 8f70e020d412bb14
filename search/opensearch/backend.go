// Package opensearch answers the API's searches from an OpenSearch index behind an alias, and
// builds new versions of that index for operators (load, rollback, status).
package opensearch

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/opensearch-project/opensearch-go/v4"
	"github.com/opensearch-project/opensearch-go/v4/opensearchapi"

	"mediagw/mappings"
	"mediagw/search"
)

// Config says where the engine is and how to talk to it. Zero values take the defaults.
type Config struct {
	// URLs of the engine's nodes, with credentials in the user info if the cluster needs them.
	URLs []string
	// Alias is the name readers query; loads create versioned indices "<Alias>-<UTC time>" behind it.
	// Default "mediagw-items".
	Alias string
	// Mapping is the index definition (settings and mappings) new indices get; default mappings.Items.
	Mapping []byte
	// Timeout bounds each query whose context has no deadline of its own. Default 10s.
	Timeout time.Duration
	// MaxConns is the number of keep-alive connections per node. Default 32.
	MaxConns int
	// Transport replaces the HTTP transport (MaxConns then does not apply).
	Transport http.RoundTripper

	// Keep is how many older indices a load keeps for rollback. Default 2; negative keeps none.
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

// DefaultAlias is the alias readers query when the configuration names none.
const DefaultAlias = "mediagw-items"

func (c Config) withDefaults() Config {
	if c.Alias == "" {
		c.Alias = DefaultAlias
	}
	if c.Mapping == nil {
		c.Mapping = mappings.Items
	}
	if c.Timeout <= 0 {
		c.Timeout = 10 * time.Second
	}
	if c.MaxConns <= 0 {
		c.MaxConns = 32
	}
	if c.Keep == 0 {
		c.Keep = 2
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

// Backend is a search.Backend and search.Loader over one alias. It is safe for concurrent use.
type Backend struct {
	cfg    Config
	client *opensearchapi.Client
	// refreshInterval is the mapping's index.refresh_interval, restored after a load, or nil.
	refreshInterval any
}

// New checks the configuration and makes a client; it does not contact the engine (see Ping).
func New(cfg Config) (*Backend, error) {
	cfg = cfg.withDefaults()
	if len(cfg.URLs) == 0 {
		return nil, errors.New("opensearch: no URL")
	}
	if strings.ToLower(cfg.Alias) != cfg.Alias || strings.ContainsAny(cfg.Alias, `\/*?"<>| ,#:`) || strings.HasPrefix(cfg.Alias, "_") {
		return nil, fmt.Errorf("opensearch: alias %q: use lower-case letters, digits, - and _", cfg.Alias)
	}
	if err := mappings.Check(cfg.Mapping); err != nil {
		return nil, fmt.Errorf("opensearch: index definition: %w", err)
	}
	refresh, err := refreshIntervalOf(cfg.Mapping)
	if err != nil {
		return nil, fmt.Errorf("opensearch: index definition: %w", err)
	}
	tr := cfg.Transport
	if tr == nil {
		tr = &http.Transport{
			Proxy:                 http.ProxyFromEnvironment,
			DialContext:           (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
			MaxIdleConns:          cfg.MaxConns * len(cfg.URLs),
			MaxIdleConnsPerHost:   cfg.MaxConns,
			IdleConnTimeout:       90 * time.Second,
			TLSHandshakeTimeout:   5 * time.Second,
			ExpectContinueTimeout: time.Second,
			ForceAttemptHTTP2:     true,
		}
	}
	client, err := opensearchapi.NewClient(opensearchapi.Config{Client: opensearch.Config{
		Addresses: cfg.URLs,
		Transport: tr,
		// Queries fail fast so the API can answer 503 at once; loads retry on their own terms.
		DisableRetry: true,
	}})
	if err != nil {
		return nil, fmt.Errorf("opensearch: %w", err)
	}
	return &Backend{cfg: cfg, client: client, refreshInterval: refresh}, nil
}

// refreshIntervalOf reads settings.index.refresh_interval (or the flat settings key) of an index
// definition, or nil when it sets none.
func refreshIntervalOf(def []byte) (any, error) {
	var d struct {
		Settings map[string]any `json:"settings"`
	}
	if err := json.Unmarshal(def, &d); err != nil {
		return nil, err
	}
	if v, ok := d.Settings["index.refresh_interval"]; ok {
		return v, nil
	}
	if v, ok := d.Settings["refresh_interval"]; ok {
		return v, nil
	}
	if idx, ok := d.Settings["index"].(map[string]any); ok {
		return idx["refresh_interval"], nil
	}
	return nil, nil
}

// Alias is the alias the backend reads.
func (b *Backend) Alias() string { return b.cfg.Alias }

// Close releases the client's connections and background work.
func (b *Backend) Close() error { return b.client.Close() }

// bound gives ctx the default deadline when it has none, so no call can hang.
func (b *Backend) bound(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	if _, ok := ctx.Deadline(); ok {
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(ctx, d)
}

// statusOf is the HTTP status of a response, 0 when there was none.
func statusOf(r *opensearch.Response) int {
	if r == nil {
		return 0
	}
	return r.StatusCode
}

func jsonBody(v any) *bytes.Reader {
	b, err := json.Marshal(v)
	if err != nil {
		// Bodies are built from maps of strings and numbers; they always encode.
		panic(fmt.Sprintf("opensearch: encode request: %v", err))
	}
	return bytes.NewReader(b)
}

// doSearch runs one search on the alias.
func (b *Backend) doSearch(ctx context.Context, op string, body obj) (*opensearchapi.SearchResp, error) {
	ctx, cancel := b.bound(ctx, b.cfg.Timeout)
	defer cancel()
	resp, err := b.client.Search(ctx, &opensearchapi.SearchReq{
		Indices: []string{b.cfg.Alias},
		Body:    jsonBody(body),
	})
	if err != nil {
		var status int
		if resp != nil {
			status = statusOf(resp.Inspect().Response)
		}
		return nil, classify(ctx, op, status, err)
	}
	if resp.Shards.Failed > 0 {
		// A partial answer would give wrong totals and skip items between pages.
		ee := &EngineError{Op: op, Status: http.StatusServiceUnavailable, Type: "shard_failure"}
		if len(resp.Shards.Failures) > 0 {
			ee.Type = resp.Shards.Failures[0].Reason.Type
		}
		return nil, fmt.Errorf("%w: %w", search.ErrUnavailable, ee)
	}
	return resp, nil
}

// Search returns one page of the items matching q, in q.Sort order, with the exact total.
func (b *Backend) Search(ctx context.Context, q search.Query) (search.Result, error) {
	resp, err := b.doSearch(ctx, "search", searchBody(q))
	if err != nil {
		return search.Result{}, err
	}
	res := search.Result{Items: make([]search.Item, 0, len(resp.Hits.Hits)), Total: resp.Hits.Total.Value}
	for _, h := range resp.Hits.Hits {
		it, err := decodeItem(h.Source)
		if err != nil {
			return search.Result{}, fmt.Errorf("opensearch search: %w", err)
		}
		res.Items = append(res.Items, it)
	}
	return res, nil
}

// Item returns the item with the given id, or search.ErrNotFound. It searches on the id field
// rather than fetching by document id, so ids such as "." or ".." cannot turn into other paths.
func (b *Backend) Item(ctx context.Context, id string) (search.Item, error) {
	resp, err := b.doSearch(ctx, "item", obj{
		"query":            obj{"bool": obj{"filter": []any{obj{"term": obj{"id": id}}}}},
		"size":             1,
		"track_total_hits": false,
	})
	if err != nil {
		return search.Item{}, err
	}
	if len(resp.Hits.Hits) == 0 {
		return search.Item{}, fmt.Errorf("item %q: %w", id, search.ErrNotFound)
	}
	it, err := decodeItem(resp.Hits.Hits[0].Source)
	if err != nil {
		return search.Item{}, fmt.Errorf("opensearch item: %w", err)
	}
	return it, nil
}

func decodeItem(src json.RawMessage) (search.Item, error) {
	var it search.Item
	if err := json.Unmarshal(src, &it); err != nil {
		return search.Item{}, fmt.Errorf("decode stored item: %w", err)
	}
	return it, nil
}

// compositePageSize is how many buckets one page of a composite aggregation holds.
const compositePageSize = 1000

type compositeBucket struct {
	Key      map[string]any `json:"key"`
	DocCount int            `json:"doc_count"`
	Name     struct {
		Buckets []struct {
			Key string `json:"key"`
		} `json:"buckets"`
	} `json:"name"`
}

// composite pages through every bucket of a terms source over field, calling fn for each.
func (b *Backend) composite(ctx context.Context, op, field string, subs obj, fn func(key string, bk compositeBucket)) error {
	var after map[string]any
	for {
		resp, err := b.doSearch(ctx, op, compositeBody(field, compositePageSize, after, subs))
		if err != nil {
			return err
		}
		var aggs struct {
			Groups struct {
				AfterKey map[string]any    `json:"after_key"`
				Buckets  []compositeBucket `json:"buckets"`
			} `json:"groups"`
		}
		if err := json.Unmarshal(resp.Aggregations, &aggs); err != nil {
			return fmt.Errorf("opensearch %s: decode aggregation: %w", op, err)
		}
		for _, bk := range aggs.Groups.Buckets {
			key, _ := bk.Key["key"].(string)
			fn(key, bk)
		}
		if len(aggs.Groups.Buckets) < compositePageSize || aggs.Groups.AfterKey == nil {
			return nil
		}
		after = aggs.Groups.AfterKey
	}
}

// Categories returns every category with its item count, ordered by slug. The name is the one
// most items of the category carry.
func (b *Backend) Categories(ctx context.Context) ([]search.Category, error) {
	out := []search.Category{}
	subs := obj{"name": obj{"terms": obj{"field": "category_name", "size": 1}}}
	err := b.composite(ctx, "categories", "category", subs, func(slug string, bk compositeBucket) {
		c := search.Category{Slug: slug, Count: bk.DocCount}
		if len(bk.Name.Buckets) > 0 {
			c.Name = bk.Name.Buckets[0].Key
		}
		out = append(out, c)
	})
	if err != nil {
		return nil, err
	}
	// Composite keys come in byte order, which is the slug order; sort anyway so the contract
	// does not rest on an engine detail.
	slices.SortFunc(out, func(a, b search.Category) int { return strings.Compare(a.Slug, b.Slug) })
	return out, nil
}

// Authors returns every credited author with its item count, ordered by search.AuthorLess.
func (b *Backend) Authors(ctx context.Context) ([]search.Author, error) {
	out := []search.Author{}
	err := b.composite(ctx, "authors", "author", nil, func(name string, bk compositeBucket) {
		out = append(out, search.Author{Name: name, Count: bk.DocCount})
	})
	if err != nil {
		return nil, err
	}
	folded := make(map[string]string, len(out))
	for _, a := range out {
		folded[a.Name] = search.Fold(a.Name)
	}
	slices.SortFunc(out, func(x, y search.Author) int {
		if c := strings.Compare(folded[x.Name], folded[y.Name]); c != 0 {
			return c
		}
		return strings.Compare(x.Name, y.Name)
	})
	return out, nil
}

// Ping reports whether the engine answers and the alias names an index to serve.
func (b *Backend) Ping(ctx context.Context) error {
	ctx, cancel := b.bound(ctx, b.cfg.Timeout)
	defer cancel()
	resp, err := b.client.Indices.Exists(ctx, opensearchapi.IndicesExistsReq{Indices: []string{b.cfg.Alias}})
	switch status := statusOf(resp); {
	case status == http.StatusOK:
		return nil
	case status == http.StatusNotFound:
		return fmt.Errorf("opensearch ping: %w: no index behind alias %s", search.ErrUnavailable, b.cfg.Alias)
	case err == nil:
		err = errors.New("unexpected answer")
		fallthrough
	default:
		return classify(ctx, "ping", status, err)
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
		return "", fmt.Errorf("opensearch version: %w: no index behind alias %s", search.ErrUnavailable, b.cfg.Alias)
	}
	return live[0], nil
}

// aliasTargets lists the indices the alias points at, sorted; none when the alias does not exist.
func (b *Backend) aliasTargets(ctx context.Context) ([]string, error) {
	ctx, cancel := b.bound(ctx, b.cfg.Timeout)
	defer cancel()
	resp, err := b.client.Indices.Alias.Get(ctx, opensearchapi.AliasGetReq{Alias: []string{b.cfg.Alias}})
	var status int
	if resp != nil {
		status = statusOf(resp.Inspect().Response)
	}
	if status == http.StatusNotFound {
		return nil, nil
	}
	if err != nil {
		return nil, classify(ctx, "get alias", status, err)
	}
	var names []string
	for name := range resp.GetIndices() {
		names = append(names, name)
	}
	slices.Sort(names)
	return names, nil
}

var (
	_ search.Backend = (*Backend)(nil)
	_ search.Loader  = (*Backend)(nil)
)
