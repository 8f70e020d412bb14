package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"maps"
	"net/http"
	"os"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"golang.org/x/sync/errgroup"

	"mediagw/catalogue"
	"mediagw/search"
	"mediagw/search/elastic"
	"mediagw/search/elastic/mappings"
)

// LoadResult is one way of putting a catalogue into OpenSearch, timed.
type LoadResult struct {
	Name     string
	Items    int
	Duration time.Duration
	// CPU is the CPU time watched processes used meanwhile (see Charge).
	CPU map[string]time.Duration
}

// Charge runs f and records in its result the CPU time each of procs used meanwhile, the
// harness's own process included, so a load's cost shows beside its speed.
func Charge(procs []Process, f func() (LoadResult, error)) (LoadResult, error) {
	procs = append([]Process{{Name: "harness", PID: os.Getpid()}}, procs...)
	before := cpuTimes(procs)
	r, err := f()
	after := cpuTimes(procs)
	r.CPU = map[string]time.Duration{}
	for i, p := range procs {
		if before[i] >= 0 && after[i] >= 0 {
			r.CPU[p.Name] = after[i] - before[i]
		}
	}
	return r, err
}

// Rate is items per second.
func (r LoadResult) Rate() float64 {
	if r.Duration <= 0 {
		return 0
	}
	return float64(r.Items) / r.Duration.Seconds()
}

// Loaded times loader building a live index from the catalogue at path, as `mediactl load`
// does: reading, validating and encoding are part of the time.
func Loaded(ctx context.Context, name string, loader search.Loader, path string) (LoadResult, error) {
	start := time.Now()
	rc, err := catalogue.Open(path)
	if err != nil {
		return LoadResult{}, err
	}
	defer rc.Close()
	st, err := loader.Load(ctx, catalogue.Items(catalogue.NewReader(rc), io.Discard))
	if err != nil {
		return LoadResult{}, fmt.Errorf("%s: %w", name, err)
	}
	return LoadResult{Name: name, Items: st.Indexed, Duration: time.Since(start)}, nil
}

// BulkDocs reads the catalogue at path into _bulk lines (action and source, as the OpenSearch
// backend indexes an item), so a plain upload can be timed without reading or encoding.
func BulkDocs(path string) ([][]byte, error) {
	rc, err := catalogue.Open(path)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	return bulkDocs(catalogue.Items(catalogue.NewReader(rc), io.Discard))
}

func bulkDocs(items iter.Seq2[search.Item, error]) ([][]byte, error) {
	var out [][]byte
	for it, err := range items {
		if err != nil {
			return nil, err
		}
		action, err := json.Marshal(map[string]any{"index": map[string]any{"_id": it.ID}})
		if err != nil {
			return nil, err
		}
		src, err := json.Marshal(elastic.NewDocument(it))
		if err != nil {
			return nil, err
		}
		line := append(append(append(action, '\n'), src...), '\n')
		out = append(out, line)
	}
	return out, nil
}

// PlainBulk is the baseline of a load: the same documents, already encoded, sent in _bulk
// requests of batch documents, workers at a time, into a new index with the same definition and
// the same refresh handling as a load (off while filling, one refresh at the end). It deletes the
// index afterwards.
type PlainBulk struct {
	Client *http.Client
	URL    string
	Index  string
	// Definition is the index settings and mappings; nil uses mappings.Items.
	Definition []byte
	Batch      int
	Workers    int
}

// Run uploads docs and returns the time from creating the index to its count being right.
func (p PlainBulk) Run(ctx context.Context, docs [][]byte) (res LoadResult, err error) {
	base := strings.TrimSuffix(p.URL, "/") + "/" + p.Index
	definition := p.Definition
	if definition == nil {
		definition = mappings.Items
	}
	def, err := mappings.WithoutRefresh(definition)
	if err != nil {
		return res, err
	}
	// A run that was interrupted may have left its index behind.
	if err := p.do(ctx, http.MethodDelete, base, nil, nil); err != nil && !errors.Is(err, errNotFound) {
		return res, fmt.Errorf("delete %s: %w", p.Index, err)
	}
	start := time.Now()
	if err := p.do(ctx, http.MethodPut, base, def, nil); err != nil {
		return res, fmt.Errorf("create %s: %w", p.Index, err)
	}
	defer func() {
		dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		defer cancel()
		if derr := p.do(dctx, http.MethodDelete, base, nil, nil); derr != nil {
			err = errors.Join(err, fmt.Errorf("delete %s: %w", p.Index, derr))
		}
	}()
	g, gctx := errgroup.WithContext(ctx)
	batches := make(chan [][]byte)
	for range max(p.Workers, 1) {
		g.Go(func() error {
			for b := range batches {
				var resp struct {
					Errors bool `json:"errors"`
				}
				if err := p.do(gctx, http.MethodPost, base+"/_bulk", bytes.Join(b, nil), &resp); err != nil {
					return err
				}
				if resp.Errors {
					return errors.New("bulk: some documents were rejected")
				}
			}
			return nil
		})
	}
	g.Go(func() error {
		defer close(batches)
		for i := 0; i < len(docs); i += max(p.Batch, 1) {
			select {
			case batches <- docs[i:min(i+max(p.Batch, 1), len(docs))]:
			case <-gctx.Done():
				return gctx.Err()
			}
		}
		return nil
	})
	if err := g.Wait(); err != nil {
		return res, err
	}
	if err := p.do(ctx, http.MethodPut, base+"/_settings", []byte(`{"index":{"refresh_interval":null}}`), nil); err != nil {
		return res, err
	}
	if err := p.do(ctx, http.MethodPost, base+"/_refresh", nil, nil); err != nil {
		return res, err
	}
	var cnt struct {
		Count int `json:"count"`
	}
	if err := p.do(ctx, http.MethodGet, base+"/_count", nil, &cnt); err != nil {
		return res, err
	}
	if cnt.Count != len(docs) {
		return res, fmt.Errorf("plain bulk: index holds %d documents, sent %d", cnt.Count, len(docs))
	}
	return LoadResult{Name: "plain _bulk", Items: len(docs), Duration: time.Since(start)}, nil
}

func (p PlainBulk) do(ctx context.Context, method, url string, body []byte, out any) error {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	var r io.Reader
	if body != nil {
		r = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, url, r)
	if err != nil {
		return err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
		if strings.HasSuffix(url, "/_bulk") {
			req.Header.Set("Content-Type", "application/x-ndjson")
		}
	}
	resp, err := p.Client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode == http.StatusNotFound {
		return fmt.Errorf("%s %s: %w", method, url, errNotFound)
	}
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("%s %s: status %d: %.300s", method, url, resp.StatusCode, raw)
	}
	if out != nil {
		return json.Unmarshal(raw, out)
	}
	return nil
}

// errNotFound is a 404 from the engine.
var errNotFound = errors.New("not found")

// WriteLoadTable prints load results and each one's rate against the first, the baseline.
func WriteLoadTable(w io.Writer, results []LoadResult) error {
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "method\titems\tseconds\titems/s\tvs first\tCPU seconds\t")
	for _, r := range results {
		ratio := 0.0
		if results[0].Rate() > 0 {
			ratio = r.Rate() / results[0].Rate()
		}
		var cpu []string
		for _, p := range slices.Sorted(maps.Keys(r.CPU)) {
			cpu = append(cpu, fmt.Sprintf("%s %.1f", p, r.CPU[p].Seconds()))
		}
		fmt.Fprintf(tw, "%s\t%d\t%.1f\t%.0f\t%.2fx\t%s\t\n", r.Name, r.Items, r.Duration.Seconds(), r.Rate(), ratio, strings.Join(cpu, ", "))
	}
	return tw.Flush()
}
