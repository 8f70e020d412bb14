package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"math/rand/v2"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/opensearch-project/opensearch-go/v4"
	"github.com/opensearch-project/opensearch-go/v4/opensearchapi"
	"golang.org/x/sync/errgroup"

	"mediagw/search"
	"mediagw/search/engine/mappings"
	"mediagw/search/text"
)

// indexName names a versioned index by its UTC creation time, to the millisecond, so that names
// sort by age and two loads a second apart do not collide. Index names must be lower case.
func indexName(alias string, t time.Time) string {
	t = t.UTC()
	return fmt.Sprintf("%s-%s-%03d", alias, t.Format("20060102-150405"), t.Nanosecond()/int(time.Millisecond))
}

// maxBatchBytes caps one bulk request, whatever the batch size, since long descriptions add up.
const maxBatchBytes = 8 << 20

// cleanupTimeout bounds removing a failed load's index, which runs after ctx may have ended.
const cleanupTimeout = 30 * time.Second

// Document is what a load sends for an item: the item, plus the az sort key and the title bonus
// computed in Go so both backends sort and score alike, and the terms of its searched fields. The
// mapping keeps most terms out of the stored _source (mappings/items.json): they are indexed, never
// read back, and would more than double each hit the engine reads and sends; related items'
// more_like_this reads the title's, tags' and keywords' from there. The load benchmark
// (bench) sends the same.
type Document struct {
	search.Item
	TitleSort  string  `json:"title_sort"`
	TitleBonus float64 `json:"title_bonus"`
	// Year is the date's year, which the year facet counts (facetFields).
	Year string `json:"year,omitempty"`
	// AuthorKey is the author's search.AuthorKey, which the authors list counts so that the
	// engine gives it in order.
	AuthorKey string `json:"author_key,omitempty"`
	// The terms of each searched field (search/text), spaces between them: the engine splits them
	// at spaces only, so it holds the words the embedded index holds and needs no analysis of its
	// own (mappings/items.json uses only the built-in whitespace analyzer, on every engine line).
	TitleTerms       string   `json:"w_title,omitempty"`
	SummaryTerms     string   `json:"w_summary,omitempty"`
	DescriptionTerms string   `json:"w_description,omitempty"`
	TagsTerms        []string `json:"w_tags,omitempty"`
	KeywordsTerms    []string `json:"w_keywords,omitempty"`
	AuthorTerms      string   `json:"w_author,omitempty"`
	// TitlePrefixes holds the prefixes of the title's terms, up to maxPrefixRunes runes, for
	// completions.
	TitlePrefixes string `json:"title_prefixes,omitempty"`
	// Vocabulary holds every distinct term of the searched fields, as values the engine can list
	// (Backend.Words), for the did-you-mean's dictionary.
	Vocabulary []string `json:"vocabulary,omitempty"`
}

// NewDocument is the stored document of it.
func NewDocument(it search.Item) Document {
	d := Document{Item: it, TitleSort: search.TitleKey(it.Title), TitleBonus: search.TitleBonus(it.Title), Year: it.Year()}
	if it.Author != "" {
		d.AuthorKey = search.AuthorKey(it.Author)
	}
	var all []string
	terms := func(s string) string {
		var ts []string
		for _, t := range text.IndexTerms(s) {
			ts = append(ts, t.Term)
		}
		all = append(all, ts...)
		return strings.Join(ts, " ")
	}
	list := func(ss []string) []string {
		var out []string
		for _, s := range ss {
			if t := terms(s); t != "" {
				out = append(out, t)
			}
		}
		return out
	}
	d.TitleTerms = terms(it.Title)
	d.SummaryTerms = terms(it.Summary)
	d.DescriptionTerms = terms(it.Description)
	d.TagsTerms = list(it.Tags)
	d.KeywordsTerms = list(it.Keywords)
	d.AuthorTerms = terms(it.Author)
	d.TitlePrefixes = prefixes(d.TitleTerms)
	slices.Sort(all)
	d.Vocabulary = slices.Compact(all)
	return d
}

// prefixes returns the distinct prefixes of the space-separated terms, each up to maxPrefixRunes runes.
func prefixes(terms string) string {
	var out []string
	seen := map[string]bool{}
	for _, t := range strings.Fields(terms) {
		n := 0
		for i := range t {
			if i == 0 {
				continue
			}
			if n++; n > maxPrefixRunes {
				break
			}
			if p := t[:i]; !seen[p] {
				seen[p] = true
				out = append(out, p)
			}
		}
		if n < maxPrefixRunes && !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	return strings.Join(out, " ")
}

// Load builds a new index "<alias>-<UTC time>" from the configured index definition, fills it in
// concurrent bulk requests, checks it holds every item, and then points the alias at it in one
// atomic _aliases call. Older indices beyond Config.Keep are removed (an error wrapping
// search.ErrPrune says that failed; the load itself succeeded). If items yields an error,
// ctx ends or any step fails, the alias is left as it was and the new index is deleted.
func (b *Backend) Load(ctx context.Context, items iter.Seq2[search.Item, error]) (stats search.LoadStats, err error) {
	start := b.cfg.Now()
	name := indexName(b.cfg.Alias, start)
	stats.Index = name
	if err := b.createIndex(ctx, name, b.cfg.Mapping); err != nil {
		return stats, err
	}
	// live: the alias points at the new index; from then on an error (a failed prune) must not
	// remove it.
	live := false
	defer func() {
		if err != nil && !live {
			err = errors.Join(err, b.discard(ctx, name))
		}
	}()

	n, err := b.fill(ctx, name, items, nil)
	if err != nil {
		return stats, fmt.Errorf("load %s: %w", name, err)
	}
	count, err := b.seal(ctx, name, b.refreshInterval)
	if err != nil {
		return stats, err
	}
	if count != int64(n) {
		return stats, fmt.Errorf("load %s: the index holds %d items, but %d were accepted (duplicate ids?)", name, count, n)
	}
	if err := ctx.Err(); err != nil {
		return stats, fmt.Errorf("load %s: %w", name, err)
	}
	if err := b.pointAlias(ctx, name); err != nil {
		return stats, err
	}
	live = true
	stats.Indexed = n
	stats.Duration = b.cfg.Now().Sub(start)
	if err := b.prune(ctx, name); err != nil {
		// The load itself succeeded: report, but do not remove what is now live.
		return stats, fmt.Errorf("load %s is live, but %w: %w", name, search.ErrPrune, err)
	}
	return stats, nil
}

// discard removes the index name that a load or reindex began and did not make live; it runs
// after ctx may have ended, since the partial index goes even when ctx is what ended the build.
func (b *Backend) discard(ctx context.Context, name string) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cleanupTimeout)
	defer cancel()
	// An _aliases call can take effect and still fail for the client (a timeout): the index
	// is then live, and stays. If the alias cannot be read, the index stays too: an unneeded
	// index is removed by a later load, a deleted live one takes the API down.
	targets, err := b.aliasTargets(ctx)
	if err != nil || slices.Contains(targets, name) {
		return err
	}
	if err := b.deleteIndices(ctx, name); err != nil {
		return fmt.Errorf("remove partial index %s: %w", name, err)
	}
	return nil
}

// seal ends the filling of index name: it turns refresh back on (to the definition's interval,
// or the engine's default when nil), which marks the index finished, refreshes it once and
// returns how many documents it holds.
func (b *Backend) seal(ctx context.Context, name string, refresh any) (int64, error) {
	// Each step may find a shard briefly without a copy (a node lost, a replica being promoted):
	// they change nothing twice, so they are sent again like bulk requests.
	if err := b.withRetries(ctx, func() error {
		return b.putSettings(ctx, name, obj{"index": obj{"refresh_interval": refresh}})
	}); err != nil {
		return 0, err
	}
	if err := b.withRetries(ctx, func() error { return b.refresh(ctx, name) }); err != nil {
		return 0, err
	}
	var count int64
	err := b.withRetries(ctx, func() (err error) { count, err = b.count(ctx, name); return err })
	return count, err
}

// createIndex creates index name from the index definition def, stamped with its hash (see
// mappings.Stamp) and with refresh off until seal.
func (b *Backend) createIndex(ctx context.Context, name string, def []byte) error {
	def, err := mappings.Stamp(def)
	if err == nil {
		def, err = mappings.WithoutRefresh(def)
	}
	if err != nil {
		return err
	}
	ctx, cancel := b.bound(ctx, b.cfg.BulkTimeout)
	defer cancel()
	resp, err := b.client.Indices.Create(ctx, opensearchapi.IndicesCreateReq{Index: name, Body: bytes.NewReader(def)})
	if err != nil {
		return fmt.Errorf("create index %s: %w", name, failed(ctx, "create index", resp, err))
	}
	return nil
}

func (b *Backend) putSettings(ctx context.Context, name string, settings obj) error {
	ctx, cancel := b.bound(ctx, b.cfg.BulkTimeout)
	defer cancel()
	resp, err := b.client.Indices.Settings.Put(ctx, opensearchapi.SettingsPutReq{Indices: []string{name}, Body: jsonBody(settings)})
	if err != nil {
		return fmt.Errorf("settings of %s: %w", name, failed(ctx, "put settings", resp, err))
	}
	return nil
}

func (b *Backend) refresh(ctx context.Context, name string) error {
	ctx, cancel := b.bound(ctx, b.cfg.BulkTimeout)
	defer cancel()
	resp, err := b.client.Indices.Refresh(ctx, &opensearchapi.IndicesRefreshReq{Index: []string{name}})
	if err != nil {
		return fmt.Errorf("refresh %s: %w", name, failed(ctx, "refresh", resp, err))
	}
	return nil
}

func (b *Backend) count(ctx context.Context, name string) (int64, error) {
	ctx, cancel := b.bound(ctx, b.cfg.Timeout)
	defer cancel()
	resp, err := b.client.Indices.Count(ctx, &opensearchapi.IndicesCountReq{Indices: []string{name}})
	if err != nil {
		return 0, fmt.Errorf("count %s: %w", name, failed(ctx, "count", resp, err))
	}
	return int64(resp.Count), nil
}

func (b *Backend) deleteIndices(ctx context.Context, names ...string) error {
	if len(names) == 0 {
		return nil
	}
	ctx, cancel := b.bound(ctx, b.cfg.BulkTimeout)
	defer cancel()
	// An index already gone is what was asked: on the 3-node cluster, a delete of an index that
	// existed when it was sent once came back 404 (index_not_found_exception).
	ignore := true
	resp, err := b.client.Indices.Delete(ctx, opensearchapi.IndicesDeleteReq{Indices: names,
		Params: opensearchapi.IndicesDeleteParams{IgnoreUnavailable: &ignore}})
	if err != nil {
		return fmt.Errorf("delete %s: %w", strings.Join(names, ","), failed(ctx, "delete index", resp, err))
	}
	return nil
}

// pointAlias moves the alias from wherever it points to name (see moveAlias).
func (b *Backend) pointAlias(ctx context.Context, name string) error {
	live, err := b.aliasTargets(ctx)
	if err != nil {
		return err
	}
	return b.moveAlias(ctx, live, name)
}

// moveAlias moves the alias from the indices live to name in one _aliases call: readers see the
// old index or the new one, never none. If the alias no longer points at each of live, the call
// fails as a whole and changes nothing.
func (b *Backend) moveAlias(ctx context.Context, live []string, name string) error {
	actions := []any{}
	for _, old := range live {
		if old != name {
			actions = append(actions, obj{"remove": obj{"index": old, "alias": b.cfg.Alias, "must_exist": true}})
		}
	}
	actions = append(actions, obj{"add": obj{"index": name, "alias": b.cfg.Alias}})
	ctx, cancel := b.bound(ctx, b.cfg.Timeout)
	defer cancel()
	resp, err := b.client.Aliases(ctx, opensearchapi.AliasesReq{Body: jsonBody(obj{"actions": actions})})
	if err != nil {
		return fmt.Errorf("point alias %s at %s: %w", b.cfg.Alias, name, failed(ctx, "aliases", resp, err))
	}
	return nil
}

// version is one of the alias's versioned indices.
type version struct {
	name string
	// finished: the load that built the index filled it completely. A load turns refresh off
	// while it fills an index and back on once every item is in, so an index whose refresh is
	// still off was left by a load that crashed or was killed before it could remove it.
	finished bool
	// mapping is the _meta of the definition the index was built from.
	mapping mappings.Meta
}

// versions lists the alias's versioned indices, oldest first.
func (b *Backend) versions(ctx context.Context) ([]version, error) {
	ctx, cancel := b.bound(ctx, b.cfg.Timeout)
	defer cancel()
	resp, err := b.client.Indices.Get(ctx, opensearchapi.IndicesGetReq{Indices: []string{b.cfg.Alias + "-*"}})
	if err != nil {
		return nil, fmt.Errorf("list indices: %w", failed(ctx, "list indices", resp, err))
	}
	// The wildcard also matches indices of other aliases that share the prefix ("items-old-…").
	own := regexp.MustCompile(`^` + regexp.QuoteMeta(b.cfg.Alias) + `-\d{8}-\d{6}-\d{3}$`)
	var out []version
	if resp.IndicesGetRespData != nil {
		for name, in := range *resp.IndicesGetRespData {
			if !own.MatchString(name) {
				continue
			}
			var settings struct {
				Index struct {
					RefreshInterval string `json:"refresh_interval"`
				} `json:"index"`
			}
			if err := json.Unmarshal(in.Settings, &settings); err != nil {
				return nil, fmt.Errorf("list indices: settings of %s: %w", name, err)
			}
			// The engine gives the mappings back in the shape of a definition's.
			mapping, err := mappings.ReadMeta(append(append([]byte(`{"mappings":`), in.Mappings...), '}'))
			if err != nil {
				return nil, fmt.Errorf("list indices: mappings of %s: %w", name, err)
			}
			out = append(out, version{name: name, finished: settings.Index.RefreshInterval != "-1", mapping: mapping})
		}
	}
	slices.SortFunc(out, func(a, b version) int { return strings.Compare(a.name, b.name) })
	return out, nil
}

// abandonedAfter is how old an unfinished index must be before a load removes it: older than any
// load takes (1,000,000 items take under two minutes), so that one still running is left alone.
const abandonedAfter = time.Hour

// prune deletes the versioned indices older than live beyond the newest Keep finished ones, and
// the unfinished ones created over abandonedAfter ago (the others may be loads still running).
func (b *Backend) prune(ctx context.Context, live string) error {
	r, err := b.retention(ctx, live)
	if err != nil {
		return err
	}
	return b.deleteIndices(ctx, r.Remove...)
}

// retention is search.Retain over the alias's versioned indices, with live the live one.
func (b *Backend) retention(ctx context.Context, live string) (search.Retention, error) {
	vs, err := b.versions(ctx)
	if err != nil {
		return search.Retention{}, err
	}
	abandoned := indexName(b.cfg.Alias, b.cfg.Now().Add(-abandonedAfter))
	stored := make([]search.StoredVersion, len(vs))
	for i, v := range vs {
		stored[i] = search.StoredVersion{Name: v.name, Unfinished: !v.finished, Abandoned: !v.finished && v.name < abandoned}
	}
	return search.Retain(stored, live, b.cfg.Keep), nil
}

// Rollback points the alias at the newest finished index older than the live one and returns its
// name. The index it leaves stays, so a rollback can itself be undone by pointing the alias back.
func (b *Backend) Rollback(ctx context.Context) (string, error) {
	live, err := b.aliasTargets(ctx)
	if err != nil {
		return "", err
	}
	if len(live) == 0 {
		return "", fmt.Errorf("rollback: alias %s points at no index", b.cfg.Alias)
	}
	r, err := b.retention(ctx, live[0])
	if err != nil {
		return "", err
	}
	if r.Rollback == "" {
		return "", fmt.Errorf("rollback: no finished index older than %s is kept", live[0])
	}
	if err := b.pointAlias(ctx, r.Rollback); err != nil {
		return "", err
	}
	return r.Rollback, nil
}

var _ search.Admin = (*Backend)(nil)

// Status lists the alias's versioned indices, oldest first, with their document counts: the live
// one, the kept ones, and those unfinished loads left. An index built from an older mapping than
// this code reads (a _meta.mapping_version lower than search.IndexVersion) is outdated, whatever
// definition the backend was configured with: it lacks fields that newer queries read
// (completions and neighbours find nothing in it), and a load or reindex builds a current one.
func (b *Backend) Status(ctx context.Context) ([]search.IndexInfo, error) {
	live, err := b.aliasTargets(ctx)
	if err != nil {
		return nil, err
	}
	vs, err := b.versions(ctx)
	if err != nil {
		return nil, err
	}
	// An alias can point at an index this tool did not name (set up by hand); list it too.
	for _, l := range live {
		if !slices.ContainsFunc(vs, func(v version) bool { return v.name == l }) {
			// Its mapping is the operator's business: it is not reported outdated.
			vs = append(vs, version{name: l, finished: true, mapping: mappings.Meta{Version: search.IndexVersion}})
		}
	}
	var out []search.IndexInfo
	for _, v := range vs {
		in := search.IndexInfo{Name: v.name, Live: slices.Contains(live, v.name), Unfinished: !v.finished,
			Version: v.mapping.Version, MappingHash: v.mapping.Hash, Outdated: v.mapping.Version < search.IndexVersion}
		in.Docs, in.Err = b.count(ctx, v.name)
		out = append(out, in)
	}
	return out, nil
}

// fill sends items to index in bulk requests, Config.Workers at a time, and returns how many it
// sent. The reading goroutine only batches items; the workers encode them, so that reading and
// encoding, the loader's two main costs, run side by side. written, when not nil, is called by
// the workers with the number of items of each batch the engine has taken.
func (b *Backend) fill(ctx context.Context, index string, items iter.Seq2[search.Item, error], written func(int)) (int, error) {
	g, gctx := errgroup.WithContext(ctx)
	batches := make(chan []search.Item, b.cfg.Workers)
	for range b.cfg.Workers {
		g.Go(func() error {
			var enc bulkEncoder
			for bt := range batches {
				if err := b.send(gctx, index, bt, &enc); err != nil {
					return err
				}
				if written != nil {
					written(len(bt))
				}
			}
			return nil
		})
	}
	n := 0
	g.Go(func() error {
		defer close(batches)
		send := func(bt []search.Item) error {
			select {
			case batches <- bt:
				return nil
			case <-gctx.Done():
				return context.Cause(gctx)
			}
		}
		bt := make([]search.Item, 0, b.cfg.BatchSize)
		for it, err := range items {
			if err != nil {
				return err
			}
			if err := gctx.Err(); err != nil {
				return context.Cause(gctx)
			}
			bt = append(bt, it)
			n++
			if len(bt) >= b.cfg.BatchSize {
				if err := send(bt); err != nil {
					return err
				}
				bt = make([]search.Item, 0, b.cfg.BatchSize)
			}
		}
		if len(bt) > 0 {
			return send(bt)
		}
		return nil
	})
	if err := g.Wait(); err != nil {
		// errgroup's context ends with the first error; report the caller's own end as such.
		if ctx.Err() != nil {
			return 0, context.Cause(ctx)
		}
		return 0, err
	}
	return n, nil
}

// send encodes items and sends them in bulk requests, cutting a request once it reaches maxBatchBytes.
func (b *Backend) send(ctx context.Context, index string, items []search.Item, enc *bulkEncoder) error {
	enc.reset()
	for _, it := range items {
		if err := enc.add(it); err != nil {
			return err
		}
		if enc.buf.Len() >= maxBatchBytes {
			if err := b.bulk(ctx, index, enc.buf.Bytes(), enc.lines()); err != nil {
				return err
			}
			enc.reset()
		}
	}
	if len(enc.ends) == 0 {
		return nil
	}
	return b.bulk(ctx, index, enc.buf.Bytes(), enc.lines())
}

// bulkEncoder writes the bulk lines (action and source) of items into one request body.
type bulkEncoder struct {
	buf bytes.Buffer
	enc *json.Encoder
	// ends are where each item's lines end in buf.
	ends []int
}

// bulkAction is the action line of an item: index it under its id. Encoded, it is what
// json.Marshal makes of {"index": {"_id": id}}.
type bulkAction struct {
	Index struct {
		ID string `json:"_id"`
	} `json:"index"`
}

// reset starts a new body. The buffer is not reused: the HTTP transport may still be reading
// the previous body after the request returns.
func (e *bulkEncoder) reset() {
	size := max(e.buf.Cap(), 64<<10)
	e.buf = bytes.Buffer{}
	e.buf.Grow(min(size, maxBatchBytes+maxBatchBytes/4))
	e.enc = json.NewEncoder(&e.buf)
	e.ends = e.ends[:0]
}

// add appends the lines of one item. The encoder ends each value with the newline the bulk
// format wants, and escapes as json.Marshal does.
func (e *bulkEncoder) add(it search.Item) error {
	var a bulkAction
	a.Index.ID = it.ID
	start := e.buf.Len()
	if err := e.enc.Encode(a); err != nil {
		return fmt.Errorf("item %q: %w", it.ID, err)
	}
	if err := e.enc.Encode(NewDocument(it)); err != nil {
		e.buf.Truncate(start)
		return fmt.Errorf("item %q: %w", it.ID, err)
	}
	e.ends = append(e.ends, e.buf.Len())
	return nil
}

// lines are each item's lines, in the body.
func (e *bulkEncoder) lines() [][]byte {
	body := e.buf.Bytes()
	out := make([][]byte, len(e.ends))
	start := 0
	for i, end := range e.ends {
		out[i] = body[start:end:end]
		start = end
	}
	return out
}

// bulk sends body, the given lines, in one request and sends again, with growing waits, the
// lines the engine rejects for being busy (429) or failing (5xx); any other rejection fails the load.
func (b *Backend) bulk(ctx context.Context, index string, body []byte, lines [][]byte) error {
	wait := b.cfg.RetryBackoff
	for attempt := 0; ; attempt++ {
		again, err := b.bulkOnce(ctx, index, body, lines)
		switch {
		case err == nil && len(again) == 0:
			return nil
		case err != nil && !retryable(ctx, err):
			return err
		case attempt >= b.cfg.Retries:
			if err == nil {
				err = fmt.Errorf("%d items still rejected", len(again))
			}
			return fmt.Errorf("bulk: giving up after %d attempts: %w", attempt+1, err)
		}
		if err == nil {
			lines = again
			body = bytes.Join(lines, nil)
		}
		if err := backoff(ctx, &wait); err != nil {
			return err
		}
	}
}

// withRetries runs step, which changes nothing when run twice, until it succeeds, fails in a way
// another attempt cannot mend (retryable), or has been sent again Config.Retries times.
func (b *Backend) withRetries(ctx context.Context, step func() error) error {
	wait := b.cfg.RetryBackoff
	for attempt := 0; ; attempt++ {
		err := step()
		if err == nil || !retryable(ctx, err) || attempt >= b.cfg.Retries {
			return err
		}
		if err := backoff(ctx, &wait); err != nil {
			return err
		}
	}
}

// backoff waits about *wait before an attempt is sent again, then doubles *wait up to 30s. Full
// jitter keeps concurrent workers from retrying in step.
func backoff(ctx context.Context, wait *time.Duration) error {
	d := *wait/2 + rand.N(*wait/2+1)
	select {
	case <-time.After(d):
	case <-ctx.Done():
		return context.Cause(ctx)
	}
	*wait = min(*wait*2, 30*time.Second)
	return nil
}

// bulkFilter keeps of a bulk answer what bulkOnce reads: a fifth of the bytes to send and decode.
var bulkFilter = []string{"errors", "items.*._id", "items.*.status", "items.*.error.type", "items.*.error.reason"}

// bulkResponse is a bulk answer; its items are decoded only when some failed.
type bulkResponse struct {
	Errors bool            `json:"errors"`
	Items  json.RawMessage `json:"items"`
}

type bulkItemResult struct {
	ID     string `json:"_id"`
	Status int    `json:"status"`
	Error  *struct {
		Type   string `json:"type"`
		Reason string `json:"reason"`
	} `json:"error"`
}

// bulkOnce sends body, the given lines, once and returns the lines to send again. An error means
// the request as a whole failed.
func (b *Backend) bulkOnce(ctx context.Context, index string, body []byte, lines [][]byte) ([][]byte, error) {
	rctx, cancel := context.WithTimeout(ctx, b.cfg.BulkTimeout)
	defer cancel()
	req := opensearchapi.BulkReq{Index: index, Body: bytes.NewReader(body), Params: opensearchapi.BulkParams{FilterPath: bulkFilter}}
	resp, err := b.client.Client.Do(rctx, http.MethodPost, req, nil)
	if err == nil && resp.IsError() {
		err = opensearch.ParseError(resp)
	}
	if err != nil {
		return nil, classify(rctx, "bulk", statusOf(resp), err)
	}
	var res bulkResponse
	if err := decodeBody(resp, &res); err != nil {
		return nil, fmt.Errorf("bulk: decode answer: %w", err)
	}
	if !res.Errors {
		return nil, nil
	}
	var items []map[string]bulkItemResult
	if err := json.Unmarshal(res.Items, &items); err != nil {
		return nil, fmt.Errorf("bulk: decode answer: %w", err)
	}
	if len(items) != len(lines) {
		return nil, fmt.Errorf("bulk: %d results for %d items", len(items), len(lines))
	}
	var again [][]byte
	for i, res := range items {
		for _, r := range res {
			if r.Error == nil {
				continue
			}
			if r.Status == http.StatusTooManyRequests || r.Status >= 500 {
				again = append(again, lines[i])
				continue
			}
			// The reason says which field of which item is wrong; operators need it to fix the file.
			return nil, fmt.Errorf("bulk: item %q: status %d (%s): %.300s", r.ID, r.Status, r.Error.Type, r.Error.Reason)
		}
	}
	return again, nil
}

// Drop deletes every versioned index of the alias, and with them the alias: for tests and
// benchmarks that load into an alias of their own.
func (b *Backend) Drop(ctx context.Context) error {
	vs, err := b.versions(ctx)
	if err != nil {
		return err
	}
	names := make([]string, len(vs))
	for i, v := range vs {
		names[i] = v.name
	}
	return b.deleteIndices(ctx, names...)
}
