package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/opensearch-project/opensearch-go/v4"
	"github.com/opensearch-project/opensearch-go/v4/opensearchapi"

	"mediagw/mappings"
	"mediagw/search"
)

// pollInterval is how often a reindex asks the engine how far its task is.
const pollInterval = 250 * time.Millisecond

// Reindex builds a new index "<alias>-<UTC time>" from the index definition def (nil: the
// configured one) with the documents of the live index, copied inside the engine by a _reindex
// task (sliced, so that the copy runs in parallel, see slices), checks it holds as many
// documents as the live one, and then moves the alias from the live index to it in one _aliases
// call. Older indices are kept and pruned as by Load, so Rollback brings the live one back.
// progress, when not nil, is called as the copy goes on with how many documents the engine has
// written to the new index (done) of the total the live one holds.
//
// A definition the backend cannot use fails before anything changes. If ctx ends or any step
// fails, the engine's task is cancelled, the alias is left as it was and the new index deleted;
// when the task cannot be seen to end, the index is left unfinished, as a load that died leaves
// one, for a later load to remove.
func (b *Backend) Reindex(ctx context.Context, def []byte, progress func(done, total int64)) (stats search.LoadStats, err error) {
	if def == nil {
		def = b.cfg.Mapping
	}
	refresh, err := b.checkDefinition(def)
	if err != nil {
		return stats, fmt.Errorf("reindex: %w", err)
	}
	start := b.cfg.Now()
	live, err := b.aliasTargets(ctx)
	if err != nil {
		return stats, fmt.Errorf("reindex: %w", err)
	}
	if len(live) != 1 {
		return stats, fmt.Errorf("reindex: alias %s points at %d indices, want one (mediactl load builds the first)", b.cfg.Alias, len(live))
	}
	source := live[0]
	want, err := b.count(ctx, source)
	if err != nil {
		return stats, fmt.Errorf("reindex: %w", err)
	}
	name := indexName(b.cfg.Alias, start)
	stats.Index = name
	if err := b.createIndex(ctx, name, def); err != nil {
		return stats, fmt.Errorf("reindex: %w", err)
	}
	// task is the engine's copy while it may still write to the new index; isLive, that the
	// alias points at the new index (see Load).
	task, isLive := "", false
	defer func() {
		if err == nil || isLive {
			return
		}
		if task != "" {
			if cerr := b.stopTask(ctx, task); cerr != nil {
				// Writes still on their way would create the index again if it were deleted now:
				// it stays, with refresh off, which marks it unfinished.
				err = errors.Join(err, fmt.Errorf("%w; index %s is left unfinished for a later load to remove", cerr, name))
				return
			}
		}
		err = errors.Join(err, b.discard(ctx, name))
	}()

	slices, err := b.slices(ctx, source)
	if err != nil {
		return stats, fmt.Errorf("reindex: %w", err)
	}
	task, err = b.startReindex(ctx, source, name, slices)
	if err != nil {
		return stats, fmt.Errorf("reindex %s into %s: %w", source, name, err)
	}
	if err := b.waitTask(ctx, task, want, progress); err != nil {
		return stats, fmt.Errorf("reindex %s into %s: %w", source, name, err)
	}
	task = ""
	count, err := b.seal(ctx, name, refresh)
	if err != nil {
		return stats, fmt.Errorf("reindex: %w", err)
	}
	if count != want {
		return stats, fmt.Errorf("reindex %s into %s: the new index holds %d documents, the live one %d", source, name, count, want)
	}
	if err := ctx.Err(); err != nil {
		return stats, fmt.Errorf("reindex %s: %w", name, err)
	}
	// From the live index only: if a load or rollback moved the alias meanwhile, this fails
	// rather than replace the newer index with a copy of the older.
	if err := b.moveAlias(ctx, []string{source}, name); err != nil {
		return stats, fmt.Errorf("reindex: %w", err)
	}
	isLive = true
	stats.Indexed = int(count)
	stats.Duration = b.cfg.Now().Sub(start)
	if err := b.prune(ctx, name); err != nil {
		return stats, fmt.Errorf("reindex %s is live, but %w: %w", name, search.ErrPrune, err)
	}
	return stats, nil
}

// checkDefinition checks that def is an index definition the backend's queries can use, and
// returns its refresh interval.
func (b *Backend) checkDefinition(def []byte) (any, error) {
	if err := mappings.Check(def); err != nil {
		return nil, fmt.Errorf("index definition: %w", err)
	}
	meta, err := mappings.ReadMeta(def)
	if err != nil {
		return nil, err
	}
	if meta.Version < b.mappingVersion {
		return nil, fmt.Errorf("index definition: its _meta.mapping_version %d is older than this mediagw's %d: it lacks fields the queries read (start from mappings/items.json)",
			meta.Version, b.mappingVersion)
	}
	return mappings.RefreshInterval(def)
}

// slices is how many parts a copy of index runs in: one per shard, as the engine's slices=auto
// picks, but no fewer than Config.Workers, the bulk requests a load keeps in flight. With the
// built-in definition's one shard, auto copies in one serial stream of reads and writes, which
// leaves a core idle: two slices took 0.75x the time of one for 100,000 items on 2 cores.
func (b *Backend) slices(ctx context.Context, index string) (int, error) {
	ctx, cancel := b.bound(ctx, b.cfg.Timeout)
	defer cancel()
	resp, err := b.client.Indices.Settings.Get(ctx, &opensearchapi.SettingsGetReq{Indices: []string{index}, Settings: []string{"index.number_of_shards"}})
	if err != nil {
		return 0, fmt.Errorf("settings of %s: %w", index, failed(ctx, "get settings", resp, err))
	}
	var settings struct {
		Index struct {
			Shards string `json:"number_of_shards"`
		} `json:"index"`
	}
	if err := json.Unmarshal(resp.GetIndices()[index].Settings, &settings); err != nil {
		return 0, fmt.Errorf("settings of %s: %w", index, err)
	}
	shards, err := strconv.Atoi(settings.Index.Shards)
	if err != nil {
		return 0, fmt.Errorf("settings of %s: number_of_shards %q: %w", index, settings.Index.Shards, err)
	}
	return max(shards, b.cfg.Workers), nil
}

// startReindex starts the engine copying every document of source into dest in slices parts,
// in the background, and returns the task's id.
func (b *Backend) startReindex(ctx context.Context, source, dest string, slices int) (string, error) {
	ctx, cancel := b.bound(ctx, b.cfg.Timeout)
	defer cancel()
	wait, refresh := false, false
	body := obj{"source": obj{"index": source, "size": b.cfg.BatchSize}, "dest": obj{"index": dest, "op_type": "create"}}
	resp, err := b.client.Reindex(ctx, opensearchapi.ReindexReq{Body: jsonBody(body),
		Params: opensearchapi.ReindexParams{Slices: slices, WaitForCompletion: &wait, Refresh: &refresh}})
	if err != nil {
		return "", failed(ctx, "reindex", resp, err)
	}
	if resp.Task == "" {
		return "", errors.New("the engine named no task")
	}
	return resp.Task, nil
}

// reindexCounts are the counters of a reindex task, running or done.
type reindexCounts struct {
	Total   int64 `json:"total"`
	Created int64 `json:"created"`
	Updated int64 `json:"updated"`
}

// taskAnswer is what the backend reads of the tasks API's answer about a reindex.
type taskAnswer struct {
	Completed bool `json:"completed"`
	Task      struct {
		Status reindexCounts `json:"status"`
	} `json:"task"`
	// Response is the reindex's own answer, once it completed.
	Response *struct {
		reindexCounts
		TimedOut bool `json:"timed_out"`
		// Failures are documents the new index refused (cause) or shards the copy could not
		// read (reason).
		Failures []struct {
			ID     string      `json:"id"`
			Status int         `json:"status"`
			Cause  *errorCause `json:"cause"`
			Reason *errorCause `json:"reason"`
		} `json:"failures"`
	} `json:"response"`
	// Error is why the task failed as a whole.
	Error *errorCause `json:"error"`
}

type errorCause struct {
	Type   string `json:"type"`
	Reason string `json:"reason"`
}

// outcome is the error of a completed reindex task, or nil when it copied everything.
func (a *taskAnswer) outcome() error {
	switch r := a.Response; {
	case a.Error != nil:
		return fmt.Errorf("the task failed: %s: %.300s", a.Error.Type, a.Error.Reason)
	case r == nil:
		return errors.New("the task completed without an answer")
	case len(r.Failures) > 0:
		f := r.Failures[0]
		cause := f.Cause
		if cause == nil {
			cause = f.Reason
		}
		if cause == nil {
			cause = &errorCause{}
		}
		// As for a load, the reason names the field an operator must fix in the definition.
		return fmt.Errorf("%d failures, the first: document %q: status %d (%s): %.300s", len(r.Failures), f.ID, f.Status, cause.Type, cause.Reason)
	case r.TimedOut:
		return errors.New("the task timed out")
	}
	return nil
}

// getTask asks the engine how far task is.
func (b *Backend) getTask(ctx context.Context, task string) (taskAnswer, error) {
	ctx, cancel := b.bound(ctx, b.cfg.Timeout)
	defer cancel()
	resp, err := b.client.Client.Do(ctx, http.MethodGet, opensearchapi.TasksGetReq{TaskID: task}, nil)
	if err == nil && resp.IsError() {
		err = opensearch.ParseError(resp)
	}
	if err != nil {
		return taskAnswer{}, classify(ctx, "get task", statusOf(resp), err)
	}
	var a taskAnswer
	if err := decodeBody(resp, &a); err != nil {
		return taskAnswer{}, fmt.Errorf("get task: decode answer: %w", err)
	}
	return a, nil
}

// waitTask polls task until it completes and returns its outcome. A poll the engine turns away
// for being busy or failing is tried again at the next tick, up to Config.Retries in a row.
func (b *Backend) waitTask(ctx context.Context, task string, total int64, progress func(done, total int64)) error {
	tick := time.NewTicker(pollInterval)
	defer tick.Stop()
	for fails := 0; ; {
		a, err := b.getTask(ctx, task)
		switch {
		case err != nil && (!retryable(ctx, err) || fails >= b.cfg.Retries):
			return fmt.Errorf("task %s: %w", task, err)
		case err != nil:
			fails++
		case a.Completed:
			if progress != nil && a.Response != nil {
				progress(a.Response.Created+a.Response.Updated, total)
			}
			return a.outcome()
		default:
			fails = 0
			if progress != nil {
				progress(b.copied(ctx, task, a.Task.Status), total)
			}
		}
		select {
		case <-tick.C:
		case <-ctx.Done():
			return fmt.Errorf("task %s: %w", task, context.Cause(ctx))
		}
	}
}

// copied is how many documents a running reindex task has written. The task's own status counts
// only the slices that have completed; the running ones are its child tasks, whose counts are
// added. Progress is only shown: when the children cannot be read, the task's count stands.
func (b *Backend) copied(ctx context.Context, task string, own reindexCounts) int64 {
	ctx, cancel := b.bound(ctx, b.cfg.Timeout)
	defer cancel()
	detailed := true
	resp, err := b.client.Client.Do(ctx, http.MethodGet, opensearchapi.TasksListReq{
		Params: opensearchapi.TasksListParams{ParentTaskID: task, Detailed: &detailed, GroupBy: "none"}}, nil)
	if err == nil && resp.IsError() {
		err = opensearch.ParseError(resp)
	}
	if err != nil {
		return own.Created + own.Updated
	}
	var children struct {
		// group_by=none gives a list.
		Tasks []struct {
			Status reindexCounts `json:"status"`
		} `json:"tasks"`
	}
	if err := decodeBody(resp, &children); err != nil {
		return own.Created + own.Updated
	}
	n := own.Created + own.Updated
	for _, c := range children.Tasks {
		n += c.Status.Created + c.Status.Updated
	}
	return n
}

// stopTask cancels task and waits, up to cleanupTimeout, until the engine says it has ended:
// only then has it stopped writing.
func (b *Backend) stopTask(ctx context.Context, task string) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cleanupTimeout)
	defer cancel()
	resp, err := b.client.Tasks.Cancel(ctx, opensearchapi.TasksCancelReq{TaskID: task})
	if err != nil {
		// A task that already completed cannot be cancelled; polling says whether it did.
		err = failed(ctx, "cancel task", resp, err)
	}
	tick := time.NewTicker(pollInterval)
	defer tick.Stop()
	for {
		a, gerr := b.getTask(ctx, task)
		if gerr == nil && a.Completed {
			return nil
		}
		select {
		case <-tick.C:
		case <-ctx.Done():
			return fmt.Errorf("stop task %s: it did not end: %w", task, errors.Join(err, gerr, ctx.Err()))
		}
	}
}
