//go:build cluster

package elastic

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"testing"

	"mediagw/catalogue"
	"mediagw/catalogue/gen"
	"mediagw/internal/clustertest"
	"mediagw/internal/servicetest"
	"mediagw/search"
	"mediagw/search/bleve"
)

// TestClusterCounts (make cluster-test): on an index spread over the cluster's three nodes, every
// count is exact: the categories and authors lists, however many partitions their terms counting
// takes, and the totals and facets of searches, against the embedded index over the same items.
func TestClusterCounts(t *testing.T) {
	urls := clustertest.URLs(t)
	var buf bytes.Buffer
	if err := gen.Generate(&buf, 5000, 16); err != nil {
		t.Fatal(err)
	}
	var items []search.Item
	for it, err := range catalogue.Items(catalogue.NewReader(&buf), nil) {
		if err != nil {
			t.Fatal(err)
		}
		items = append(items, it)
	}
	b, err := New(Config{URLs: urls, Alias: servicetest.NewAlias(), Mapping: clustertest.Mapping(t)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := servicetest.Release(b); err != nil {
			t.Errorf("remove the test's indices: %v", err)
		}
	})
	st := load(t, b, items)
	checkSpread(t, urls[0], st.Index)
	model, err := bleve.NewFromItems(t.Context(), t.TempDir(), items)
	if err != nil {
		t.Fatal(err)
	}
	defer model.Close()
	ctx := t.Context()

	wantCats, err := model.Categories(ctx, search.Query{})
	if err != nil {
		t.Fatal(err)
	}
	wantAuthors, err := model.Authors(ctx, search.Query{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		limits listLimits
	}{
		{"one partition", defaultLimits[ListAuthors]},
		{"several partitions", listLimits{size: 400, target: 200}},
		{"partitions that overflow and split", listLimits{size: 400, target: 4000}},
	} {
		b.limits[ListCategories], b.limits[ListAuthors] = tc.limits, tc.limits
		if got, err := b.Categories(ctx, search.Query{}); err != nil || !slices.Equal(got, wantCats) {
			t.Errorf("%s: %d categories (%v), want the model's %d", tc.name, len(got), err, len(wantCats))
		}
		if got, err := b.Authors(ctx, search.Query{}); err != nil || !slices.Equal(got, wantAuthors) {
			t.Errorf("%s: %d authors (%v), want the model's %d", tc.name, len(got), err, len(wantAuthors))
		}
	}
	t.Logf("%d items on %d shards of %d replica: %d categories, %d authors exact", len(items), clustertest.Shards,
		clustertest.Replicas, len(wantCats), len(wantAuthors))

	// Each list's count is the total of the search filtered by it, on the same shards.
	type filtered struct {
		name  string
		q     search.Query
		count int
	}
	var checks []filtered
	for _, c := range wantCats {
		checks = append(checks, filtered{"category " + c.Slug, search.Query{Category: search.ListOf(c.Slug)}, c.Count})
	}
	for _, a := range wantAuthors[:min(len(wantAuthors), 50)] {
		checks = append(checks, filtered{"author " + a.Name, search.Query{Author: a.Name}, a.Count})
	}
	for _, c := range checks {
		c.q.Sort, c.q.Page, c.q.PerPage = search.SortNewest, 1, 1
		res, err := b.Search(ctx, search.NewRequest(c.q))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if res.Total != c.count {
			t.Errorf("%s: the list counts %d, the filtered search's total is %d", c.name, c.count, res.Total)
		}
	}
	t.Logf("the counts of %d categories and %d authors equal their filtered searches' totals", len(wantCats), min(len(wantAuthors), 50))

	var all search.FacetSet
	for _, f := range search.Facets {
		all |= search.FacetSet(f)
	}
	for _, q := range []search.Query{
		{},
		{Type: search.TypePhoto},
		{Language: "fr", From: "1950-01-01"},
		{Category: search.ListOf(wantCats[0].Slug), To: "2000-12-31"},
		{Author: wantAuthors[0].Name},
	} {
		q.Sort, q.Page, q.PerPage, q.Facets = search.SortNewest, 1, 10, all
		want, err := model.Search(ctx, search.NewRequest(q))
		if err != nil {
			t.Fatal(err)
		}
		got, err := b.Search(ctx, search.NewRequest(q))
		if err != nil {
			t.Fatalf("%+v: %v", q, err)
		}
		if got.Total != want.Total || fmt.Sprint(got.Facets) != fmt.Sprint(want.Facets) {
			t.Errorf("%+v: total %d, facets %v; want %d, %v", q, got.Total, got.Facets, want.Total, want.Facets)
		}
	}
}

// checkSpread fails unless index has the cluster tests' shards and replicas, all started.
func checkSpread(t *testing.T, node, index string) {
	t.Helper()
	resp, err := http.Get(node + "/_cluster/health/" + index + "?wait_for_status=green&timeout=30s")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var h struct {
		Status        string `json:"status"`
		ActivePrimary int    `json:"active_primary_shards"`
		Active        int    `json:"active_shards"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&h); err != nil {
		t.Fatal(err)
	}
	if h.Status != "green" || h.ActivePrimary != clustertest.Shards || h.Active != clustertest.Shards*(1+clustertest.Replicas) {
		t.Fatalf("index %s: %+v; want green, %d primaries, %d shards in all", index, h, clustertest.Shards,
			clustertest.Shards*(1+clustertest.Replicas))
	}
}
