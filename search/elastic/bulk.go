package elastic

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"math/rand/v2"
	"net/http"
	"time"

	"github.com/opensearch-project/opensearch-go/v4"
	"github.com/opensearch-project/opensearch-go/v4/opensearchapi"
	"golang.org/x/sync/errgroup"

	"mediagw/search"
)

// maxBatchBytes caps one bulk request, whatever the batch size, since long descriptions add up.
const maxBatchBytes = 8 << 20

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
		held := 0
		for it, err := range items {
			if err != nil {
				return err
			}
			if err := gctx.Err(); err != nil {
				return context.Cause(gctx)
			}
			bt = append(bt, it)
			n++
			held += search.TextBytes(it)
			// Cut by bytes too: the batches in flight are what a load holds, whatever its lines hold.
			if len(bt) >= b.cfg.BatchSize || held >= search.MaxBatchBytes {
				if err := send(bt); err != nil {
					return err
				}
				bt, held = make([]search.Item, 0, b.cfg.BatchSize), 0
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
		if len(enc.buf) >= maxBatchBytes {
			body, lines := enc.body()
			if err := b.bulk(ctx, index, body, lines); err != nil {
				return err
			}
			enc.reset()
		}
	}
	if len(enc.ends) == 0 {
		return nil
	}
	body, lines := enc.body()
	return b.bulk(ctx, index, body, lines)
}

// bulkEncoder writes the bulk lines (action and source) of items into one request body, reused
// from body to body, with appendDocument (the bytes encoding/json writes: TestBulkLines).
type bulkEncoder struct {
	buf []byte
	// ends are where each item's lines end in buf.
	ends []int
}

// reset starts a new body in the same buffer.
func (e *bulkEncoder) reset() {
	if e.buf == nil {
		e.buf = make([]byte, 0, 64<<10)
	}
	e.buf = e.buf[:0]
	e.ends = e.ends[:0]
}

// add appends the lines of one item, each ended by the newline the bulk format wants.
func (e *bulkEncoder) add(it search.Item) error {
	start := len(e.buf)
	e.buf = append(appendAction(e.buf, &it), '\n')
	d := NewDocument(it)
	buf, err := appendDocument(e.buf, &d)
	if err != nil {
		e.buf = e.buf[:start]
		return fmt.Errorf("item %q: %w", it.ID, err)
	}
	e.buf = append(buf, '\n')
	e.ends = append(e.ends, len(e.buf))
	return nil
}

// body is a copy of the body so far, and each item's lines in it: the copy is the request's,
// which the HTTP transport may still be reading after the request returns, while the buffer
// goes on to the next body.
func (e *bulkEncoder) body() ([]byte, [][]byte) {
	body := bytes.Clone(e.buf)
	out := make([][]byte, len(e.ends))
	start := 0
	for i, end := range e.ends {
		out[i] = body[start:end:end]
		start = end
	}
	return body, out
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
		return nil, classify(rctx, b.name(), "bulk", statusOf(resp), err)
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
