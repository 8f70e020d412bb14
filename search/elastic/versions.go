package elastic

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/opensearch-project/opensearch-go/v4/opensearchapi"

	"mediagw/search"
	"mediagw/search/elastic/mappings"
)

// indexName names a versioned index by its UTC creation time, to the millisecond, so that names
// sort by age and two loads a second apart do not collide. Index names must be lower case.
func indexName(alias string, t time.Time) string {
	t = t.UTC()
	return fmt.Sprintf("%s-%s-%03d", alias, t.Format("20060102-150405"), t.Nanosecond()/int(time.Millisecond))
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
		return fmt.Errorf("point alias %s at %s: %w", b.cfg.Alias, name, failed(ctx, b.name(), "aliases", resp, err))
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
		return nil, fmt.Errorf("list indices: %w", failed(ctx, b.name(), "list indices", resp, err))
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

// retention is search.Retain over the alias's versioned indices, with live the live one. One
// that cannot be counted is taken to hold items.
func (b *Backend) retention(ctx context.Context, live string) (search.Retention, error) {
	vs, err := b.versions(ctx)
	if err != nil {
		return search.Retention{}, err
	}
	abandoned := indexName(b.cfg.Alias, b.cfg.Now().Add(-abandonedAfter))
	stored := make([]search.StoredVersion, len(vs))
	for i, v := range vs {
		stored[i] = search.StoredVersion{Name: v.name, Unfinished: !v.finished, Abandoned: !v.finished && v.name < abandoned}
		if v.finished {
			docs, err := b.count(ctx, v.name)
			stored[i].Empty = err == nil && docs == 0
		}
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
			Version: v.mapping.Version, MappingHash: v.mapping.Hash, Outdated: v.mapping.Version < search.IndexVersion,
			Created: b.created(v.name)}
		in.Docs, in.Err = b.count(ctx, v.name)
		out = append(out, in)
	}
	return out, nil
}

// created is when the load that named index name began (indexName); zero for an index this
// tool did not name.
func (b *Backend) created(name string) time.Time {
	stamp, ok := strings.CutPrefix(name, b.cfg.Alias+"-")
	if !ok || len(stamp) != len("20060102-150405-000") {
		return time.Time{}
	}
	t, err := time.Parse("20060102-150405", stamp[:15])
	ms, err2 := strconv.Atoi(stamp[16:])
	if err != nil || err2 != nil {
		return time.Time{}
	}
	return t.Add(time.Duration(ms) * time.Millisecond)
}

// Use points the alias at the kept finished index name, older or newer than the live one.
func (b *Backend) Use(ctx context.Context, name string) error {
	vs, err := b.versions(ctx)
	if err != nil {
		return fmt.Errorf("use %s: %w", name, err)
	}
	i := slices.IndexFunc(vs, func(v version) bool { return v.name == name })
	switch {
	case i < 0:
		return fmt.Errorf("use %s: alias %s has no such index (mediactl status lists them)", name, b.cfg.Alias)
	case !vs[i].finished:
		return fmt.Errorf("use %s: its load did not finish it", name)
	case vs[i].mapping.Version < search.IndexVersion:
		return fmt.Errorf("use %s: it was built by an older mediagw (mapping version %d, this one reads %d)", name, vs[i].mapping.Version, search.IndexVersion)
	}
	return b.pointAlias(ctx, name)
}

// Drop deletes every versioned index of the alias, and with them the alias, and the rules index:
// for tests and benchmarks that load into an alias of their own.
func (b *Backend) Drop(ctx context.Context) error {
	vs, err := b.versions(ctx)
	if err != nil {
		return err
	}
	names := []string{b.rulesIndex()}
	for _, v := range vs {
		names = append(names, v.name)
	}
	return b.deleteIndices(ctx, names...)
}
