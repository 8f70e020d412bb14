package elastic

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"mediagw/search"
	"mediagw/search/elastic/mappings"
	"mediagw/search/searchtest"
)

// editDefinition returns the built-in index definition changed by edit, as an operator edits
// the file.
func editDefinition(t *testing.T, edit func(def map[string]any)) []byte {
	t.Helper()
	var def map[string]any
	if err := json.Unmarshal(mappings.Items, &def); err != nil {
		t.Fatal(err)
	}
	edit(def)
	raw, err := json.Marshal(def)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

func field(def map[string]any, path ...string) map[string]any {
	m := def
	for _, p := range path {
		m = m[p].(map[string]any)
	}
	return m
}

// changedDefinition is the built-in definition with two shards and a keyword subfield of the
// title's terms that the built-in one lacks.
func changedDefinition(t *testing.T) []byte {
	return editDefinition(t, func(def map[string]any) {
		field(def, "settings", "index")["number_of_shards"] = 2
		field(def, "mappings", "properties", "w_title")["fields"] = map[string]any{"raw": map[string]any{"type": "keyword", "ignore_above": 256}}
	})
}

// TestReindex: a reindex with a changed definition builds a new index holding every document
// of the live one, built from the new definition, moves the alias to it, and keeps the old
// index, which Rollback brings back. A walk begun on the old index ends with an expired cursor
// rather than pages of the new one.
func TestReindex(t *testing.T) {
	items := searchtest.Fixture(t)
	b := newBackend(t, Config{Keep: 1, Now: stepClock()})
	old := load(t, b, items)
	newest := search.Query{Sort: search.SortNewest, PerPage: 10, Page: 1}
	before, err := b.Search(t.Context(), search.NewRequest(newest))
	if err != nil {
		t.Fatal(err)
	}
	walk := search.Query{Sort: search.SortAZ, PerPage: 10, Cursor: search.StartCursor}
	first, err := b.Search(t.Context(), search.NewRequest(walk))
	if err != nil || first.Next == "" {
		t.Fatalf("first page of a walk: next %q, %v", first.Next, err)
	}

	// A document as an older mediagw made it, with another sort key and no title bonus: the
	// copy makes each document anew from its item, by this mediagw's rules.
	stale := NewDocument(items[0])
	stale.TitleSort, stale.Bonus = "stale", 0
	putDocument(t, old.Index, stale)

	def := changedDefinition(t)
	var seen [][2]int64
	st, err := b.Reindex(t.Context(), search.ReindexOptions{Definition: def, Progress: func(done, total int64) { seen = append(seen, [2]int64{done, total}) }})
	if err != nil {
		t.Fatalf("Reindex: %v", err)
	}
	if st.Indexed != len(items) || st.Index <= old.Index {
		t.Errorf("Reindex = %+v, want %d items in an index newer than %s", st, len(items), old.Index)
	}
	if len(seen) == 0 || seen[len(seen)-1] != [2]int64{int64(len(items)), int64(len(items))} {
		t.Errorf("progress %v, want it to end at %d of %d", seen, len(items), len(items))
	}
	if v, err := b.Version(t.Context()); err != nil || v != st.Index {
		t.Errorf("alias points at %q, %v; want %s", v, err, st.Index)
	}
	if got, want := storedDocument(t, st.Index, items[0].ID), NewDocument(items[0]); got.TitleSort != want.TitleSort || got.Bonus != want.Bonus {
		t.Errorf("copied document: title_sort %q, bonus %v; want %q, %v as a load makes them", got.TitleSort, got.Bonus, want.TitleSort, want.Bonus)
	}
	status, err := b.Status(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	status = undated(t, status)
	v := search.IndexVersion
	want := append(stamped(t, mappings.Items, []search.IndexInfo{{Name: old.Index, Docs: int64(len(items)), Version: v}}),
		stamped(t, def, []search.IndexInfo{{Name: st.Index, Docs: int64(len(items)), Live: true, Version: v}})...)
	if !slices.Equal(status, want) {
		t.Errorf("Status = %+v, want %+v", status, want)
	}
	if shards := indexSetting(t, b, st.Index, "number_of_shards"); shards != "2" {
		t.Errorf("the new index has %s shards, want the 2 of its definition", shards)
	}
	after, err := b.Search(t.Context(), search.NewRequest(newest))
	if err != nil || !slices.Equal(ids(after.Items), ids(before.Items)) || after.Total != before.Total {
		t.Errorf("after Reindex: %v (total %d), %v; want %v (total %d)", ids(after.Items), after.Total, err, ids(before.Items), before.Total)
	}
	for _, it := range []search.Item{items[0], items[len(items)/2], items[len(items)-1]} {
		if got, err := b.Item(t.Context(), it.ID); err != nil || got.Title != it.Title || got.Date != it.Date || !slices.Equal(got.Tags, it.Tags) {
			t.Errorf("Item(%s) after Reindex = %+v, %v; want %+v", it.ID, got, err, it)
		}
	}
	walk.Cursor = first.Next
	if res, err := b.Search(t.Context(), search.NewRequest(walk)); !errors.Is(err, search.ErrCursorExpired) {
		t.Errorf("a walk's next page after the reindex: %d items, %v; want search.ErrCursorExpired", len(res.Items), err)
	}

	back, err := b.Rollback(t.Context())
	if err != nil || back != old.Index {
		t.Fatalf("Rollback = %q, %v; want %s", back, err, old.Index)
	}
	if res, err := b.Search(t.Context(), search.NewRequest(newest)); err != nil || !slices.Equal(ids(res.Items), ids(before.Items)) {
		t.Errorf("after Rollback: %v, %v; want %v", ids(res.Items), err, ids(before.Items))
	}

	// Without a definition, the configured one; the keep rule holds as for a load.
	again, err := b.Reindex(t.Context(), search.ReindexOptions{})
	if err != nil {
		t.Fatalf("Reindex(nil): %v", err)
	}
	status, err = b.Status(t.Context())
	status = undated(t, status)
	want = append(stamped(t, def, []search.IndexInfo{{Name: st.Index, Docs: int64(len(items)), Version: v}}),
		stamped(t, mappings.Items, []search.IndexInfo{{Name: again.Index, Docs: int64(len(items)), Live: true, Version: v}})...)
	if err != nil || !slices.Equal(status, want) {
		t.Errorf("after Reindex(nil): Status = %+v, %v; want %+v (%s pruned)", status, err, want, old.Index)
	}
}

// putDocument writes doc into index, visible at once.
func putDocument(t *testing.T, index string, doc Document) {
	t.Helper()
	body, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPut, engineURL(t)+"/"+index+"/_doc/"+url.PathEscape(doc.ID)+"?refresh=true", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		msg, _ := io.ReadAll(resp.Body)
		t.Fatalf("put %s in %s: %s: %s", doc.ID, index, resp.Status, msg)
	}
}

// storedDocument is the document index holds under id.
func storedDocument(t *testing.T, index, id string) Document {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, engineURL(t)+"/"+index+"/_doc/"+url.PathEscape(id), nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var a struct {
		Source Document `json:"_source"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&a); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("get %s in %s: %s, %v", id, index, resp.Status, err)
	}
	return a.Source
}

// TestReindexPages: a copy reads pages of five bulk requests' items, fewer when the live index's
// max_result_window would refuse them, and copies every item whatever the page.
func TestReindexPages(t *testing.T) {
	items := searchtest.Generated(t, 1200, 5)
	tests := []struct {
		name  string
		def   []byte
		batch int
		want  int
	}{
		{name: "five bulk requests", def: mappings.Items, batch: 100, want: 500},
		{name: "a narrow result window", batch: 100, want: 300, def: editDefinition(t, func(def map[string]any) {
			field(def, "settings", "index")["max_result_window"] = 300
		})},
		{name: "the engine's default window", batch: 3000, want: 10000, def: editDefinition(t, func(def map[string]any) {
			delete(field(def, "settings", "index"), "max_result_window")
		})},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := newBackend(t, Config{Mapping: tt.def, BatchSize: tt.batch, Keep: -1, Now: stepClock()})
			live := load(t, b, items)
			if got, err := b.pageSize(t.Context(), live.Index); err != nil || got != tt.want {
				t.Errorf("pageSize = %d, %v; want %d", got, err, tt.want)
			}
			st, err := b.Reindex(t.Context(), search.ReindexOptions{})
			if err != nil || st.Indexed != len(items) {
				t.Errorf("Reindex = %+v, %v; want all %d items", st, err, len(items))
			}
		})
	}
}

func ids(items []search.Item) []string {
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = it.ID
	}
	return out
}

// indexSetting reads index.<key> of index name.
func indexSetting(t *testing.T, b *Backend, name, key string) string {
	t.Helper()
	resp, err := b.client.Client.Do(t.Context(), http.MethodGet, getRequest("/"+name+"/_settings/index."+key), nil)
	if err != nil {
		t.Fatal(err)
	}
	var a map[string]struct {
		Settings struct {
			Index map[string]string `json:"index"`
		} `json:"settings"`
	}
	if err := decodeBody(resp, &a); err != nil {
		t.Fatal(err)
	}
	return a[name].Settings.Index[key]
}

type getRequest string

func (g getRequest) GetRequest(string) (*http.Request, error) {
	return http.NewRequest(http.MethodGet, string(g), nil)
}

// TestReindexFailures: a reindex that cannot start changes nothing, and one that fails or is
// interrupted on the way leaves the alias where it was and removes the index it began.
func TestReindexFailures(t *testing.T) {
	items := searchtest.Generated(t, 3000, 3)
	transport := &failingTransport{match: func(*http.Request) bool { return false }}
	// Pages and bulk requests of 100 make the copy take a few steps, so it can be interrupted
	// mid-way.
	b := newBackend(t, Config{Keep: 1, Now: stepClock(), BatchSize: 100, Transport: transport})
	live := load(t, b, items)

	refused := editDefinition(t, func(def map[string]any) {
		field(def, "mappings", "properties")["title"] = map[string]any{"type": "long"}
	})
	older := editDefinition(t, func(def map[string]any) {
		field(def, "mappings", "_meta")["mapping_version"] = 1
	})
	failOnce := func(method, suffix string, status int) func() {
		return func() {
			transport.mu.Lock()
			defer transport.mu.Unlock()
			transport.match = func(r *http.Request) bool { return r.Method == method && strings.Contains(r.URL.Path, suffix) }
			transport.statuses, transport.failed = []int{status}, 0
		}
	}
	tests := []struct {
		name string
		def  []byte
		// before runs before the reindex.
		before func()
		// untouched: the reindex fails before it creates an index.
		untouched bool
		want      string
	}{
		{name: "not a definition", def: []byte(`{"settings": {}}`), untouched: true, want: "no mappings"},
		{name: "refresh off", def: []byte(`{"settings": {"refresh_interval": "-1"}, "mappings": {}}`), untouched: true, want: "refresh off"},
		{name: "older mapping version", def: older, untouched: true, want: "older than this mediagw's"},
		// Elasticsearch 8 and 9 name the refusal document_parsing_exception, OpenSearch mapper_parsing_exception.
		{name: "documents refused", def: refused, want: "failed to parse field [title]"},
		{name: "a page read is refused", def: mappings.Items, before: failOnce(http.MethodPost, "/_search", http.StatusBadRequest), want: "reindex read: status 400"},
		{name: "a bulk request is refused", def: mappings.Items, before: failOnce(http.MethodPost, "/_bulk", http.StatusBadRequest), want: "bulk"},
		{name: "the alias cannot move", def: mappings.Items, before: failOnce(http.MethodPost, "/_aliases", http.StatusInternalServerError), want: "aliases"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.before != nil {
				tt.before()
			}
			_, err := b.Reindex(t.Context(), search.ReindexOptions{Definition: tt.def})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Reindex: error %v, want one saying %q", err, tt.want)
			}
			if tt.untouched && strings.Contains(err.Error(), b.Alias()+"-") {
				t.Errorf("Reindex: error %v names an index; a definition it cannot use must fail first", err)
			}
			checkUntouched(t, b, live.Index, len(items))
		})
	}

	t.Run("cancelled", func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		// At the first report, which comes before the copy of 3,000 documents in steps of 100 is
		// done (if it does not, the cancel is seen before the alias moves).
		var seen []int64
		_, err := b.Reindex(ctx, search.ReindexOptions{Progress: func(done, _ int64) { seen = append(seen, done); cancel() }})
		if !errors.Is(err, context.Canceled) {
			t.Errorf("Reindex: error %v, want one wrapping context.Canceled", err)
		}
		if len(seen) == 0 || seen[len(seen)-1] >= int64(len(items)) {
			t.Errorf("progress %v: want the copy cancelled before its end", seen)
		}
		checkUntouched(t, b, live.Index, len(items))
		// The bulk requests had ended before the index was removed: nothing writes it back.
		time.Sleep(time.Second)
		checkUntouched(t, b, live.Index, len(items))
	})

	// A load that goes live while a reindex copies wins: the reindex does not replace the newer
	// index with a copy of the older one.
	t.Run("a load meanwhile", func(t *testing.T) {
		var loaded search.LoadStats
		var lerr error
		_, err := b.Reindex(t.Context(), search.ReindexOptions{Progress: func(int64, int64) {
			if loaded.Index == "" && lerr == nil {
				loaded, lerr = b.Load(t.Context(), search.Values(items[:100]))
			}
		}})
		if lerr != nil {
			t.Fatalf("Load during the reindex: %v", lerr)
		}
		if err == nil || !strings.Contains(err.Error(), "aliases") {
			t.Errorf("Reindex: error %v, want the alias move refused", err)
		}
		if v, err := b.Version(t.Context()); err != nil || v != loaded.Index {
			t.Errorf("alias points at %q, %v; want the load's %s", v, err, loaded.Index)
		}
		if names, err := versionNames(t, b); err != nil || !slices.Equal(names, []string{live.Index, loaded.Index}) {
			t.Errorf("indices %v, %v; want %s and the load's %s", names, err, live.Index, loaded.Index)
		}
	})

	// A page read the engine turns away for being busy is sent again, as a bulk request is.
	t.Run("a busy engine", func(t *testing.T) {
		failOnce(http.MethodPost, "/_search", http.StatusTooManyRequests)()
		st, err := b.Reindex(t.Context(), search.ReindexOptions{})
		if err != nil || st.Indexed != 100 {
			t.Fatalf("Reindex = %+v, %v; want the 100 items of the live index copied", st, err)
		}
		transport.mu.Lock()
		defer transport.mu.Unlock()
		if transport.failed != 1 {
			t.Errorf("%d page reads turned away, want 1", transport.failed)
		}
	})
}

// checkUntouched checks that the alias points at live, which serves n items, and that no other
// index is left.
func checkUntouched(t *testing.T, b *Backend, live string, n int) {
	t.Helper()
	if v, err := b.Version(t.Context()); err != nil || v != live {
		t.Errorf("alias points at %q, %v; want %q", v, err, live)
	}
	if names, err := versionNames(t, b); err != nil || !slices.Equal(names, []string{live}) {
		t.Errorf("indices %v, %v; want only %s", names, err, live)
	}
	if res, err := b.Search(t.Context(), search.NewRequest(search.Query{Sort: search.SortNewest, Page: 1, PerPage: 1})); err != nil || res.Total != n {
		t.Errorf("search: total %d, %v; want %d", res.Total, err, n)
	}
}
