package elastic

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"mediagw/search"
	"mediagw/search/searchtest"
)

// defaultTypoRules are the rules TestTypoCost compares, the first the baseline of its ratios:
// today's, two stricter ones, and today's with fewer fuzzy expansions per word.
const defaultTypoRules = "3/6,4/8,5/9,3/6:25,3/6:10"

// TestTypoCost is the measure behind search.OneTypoFrom and TwoTyposFrom (docs/relevance.md, "Typo allowance: cost vs precision"). It loads the real catalogue and, for
// each typo rule ("one/two" or "one/two:max_expansions"), finds the known items
// (searchtest.KnownItems: success@10 and MRR per kind) and measures what running all their
// queries costs the engine: the node's CPU (process.cpu.total_in_millis), the index's query-phase
// time (search.query_time_in_millis) and the sum of the answers' took, over ROUNDS rounds, the rules
// taking turns so that each sees the same machine. Ratios are against the first rule, as is the
// count of queries that match fewer or more items. The node's CPU counts whatever else it serves
// meanwhile: run it on a quiet engine.
//
//	MEDIA_TYPO_COST=1 OPENSEARCH_URL=http://127.0.0.1:9200 go test -count=1 -run TestTypoCost -v -timeout 30m ./search/elastic/
//
// MEDIA_TYPO_RULES overrides the rules (default defaultTypoRules), MEDIA_TYPO_ROUNDS the rounds
// (default 3); MEDIA_TYPO_THREE=1 adds queries with a typo in a word of three letters
// (kindThreeLetterTypo).
func TestTypoCost(t *testing.T) {
	if os.Getenv("MEDIA_TYPO_COST") == "" {
		t.Skip("set MEDIA_TYPO_COST=1 to measure the typo rules on the real catalogue (docs/relevance.md)")
	}
	rules, err := parseTypoRules(cmp.Or(os.Getenv("MEDIA_TYPO_RULES"), defaultTypoRules))
	if err != nil {
		t.Fatalf("MEDIA_TYPO_RULES: %v", err)
	}
	rounds, err := strconv.Atoi(cmp.Or(os.Getenv("MEDIA_TYPO_ROUNDS"), "3"))
	if err != nil || rounds < 1 {
		t.Fatalf("MEDIA_TYPO_ROUNDS=%q: want a whole number from 1", os.Getenv("MEDIA_TYPO_ROUNDS"))
	}
	items, queries := searchtest.RealKnownItems(t)
	kinds := searchtest.QueryKinds
	if os.Getenv("MEDIA_TYPO_THREE") != "" {
		queries = append(queries, threeLetterTypos(queries)...)
		kinds = append(slices.Clone(kinds), kindThreeLetterTypo)
	}
	be := newBackend(t, Config{})
	load(t, be, items)
	saved := typoRule
	t.Cleanup(func() { typoRule = saved })

	// The first pass of each rule finds its figures (they do not change between rounds) and warms
	// the engine for it.
	relevance := make([]map[searchtest.QueryKind]searchtest.Relevance, len(rules))
	totals := make([][]int, len(rules))
	for i, r := range rules {
		typoRule = r
		pages, _, err := knownItemPages(t.Context(), be, queries)
		if err != nil {
			t.Fatal(err)
		}
		relevance[i] = searchtest.Relevances(queries, pages.ids)
		totals[i] = pages.totals
	}
	costs := make([]typoCost, len(rules))
	for round := range rounds {
		for j := range rules {
			i := (round + j) % len(rules)
			typoRule = rules[i]
			before := engineCost(t, be)
			start := time.Now()
			_, took, err := knownItemPages(t.Context(), be, queries)
			if err != nil {
				t.Fatal(err)
			}
			wall := time.Since(start)
			after := engineCost(t, be)
			costs[i].cpu += after.cpu - before.cpu
			costs[i].query += after.query - before.query
			costs[i].took += took
			costs[i].wall += wall
		}
	}

	n := float64(rounds * len(queries))
	t.Logf("%d known-item queries on %d items, %d rounds; ratios against %v", len(queries), len(items), rounds, rules[0])
	head := "| rule |"
	for _, kind := range kinds {
		head += fmt.Sprintf(" %s (%d) |", kind, relevance[0][kind].Queries)
	}
	t.Log(head + " CPU ms/query | CPU ratio | query ms/query | query ratio | took ms/query | took ratio |")
	base := costs[0]
	for i, r := range rules {
		line := fmt.Sprintf("| %v |", r)
		for _, kind := range kinds {
			rel := relevance[i][kind]
			line += fmt.Sprintf(" %.3f / %.3f |", rel.Success10, rel.MRR)
		}
		c := costs[i]
		line += fmt.Sprintf(" %.3f | %.2f | %.3f | %.2f | %.3f | %.2f |",
			float64(c.cpu)/n, ratio(c.cpu, base.cpu), float64(c.query)/n, ratio(c.query, base.query), float64(c.took)/n, ratio(c.took, base.took))
		t.Log(line)
		fewer, more := 0, 0
		for j, total := range totals[i] {
			switch base := totals[0][j]; {
			case total < base:
				fewer++
			case total > base:
				more++
			}
		}
		t.Logf("  %v: %.3f ms per query at the client; %d queries match fewer items than with %v, %d more",
			r, float64(c.wall.Microseconds())/1000/n, fewer, rules[0], more)
	}
}

// kindThreeLetterTypo is a typo in a word of three letters (searchtest.WithTypo: "tie" for "the"),
// the words a rule from four letters leaves without one: measured here only, as what such a rule
// gives up, until the team settles the rule (docs/relevance.md).
const kindThreeLetterTypo searchtest.QueryKind = "title with a typo in a 3-letter word"

// threeLetterTypos are the title queries with their first word of three letters misspelt.
func threeLetterTypos(queries []searchtest.KnownItem) []searchtest.KnownItem {
	var out []searchtest.KnownItem
	for _, k := range queries {
		if k.Kind != searchtest.KindTitle {
			continue
		}
		if typo, ok := searchtest.WithTypo(strings.Fields(k.Text), 3, 3); ok {
			out = append(out, searchtest.KnownItem{Kind: kindThreeLetterTypo, Text: strings.Join(typo, " "), ID: k.ID})
		}
	}
	return out
}

// parseTypoRules reads "one/two[:max_expansions]" rules separated by commas.
func parseTypoRules(s string) ([]fuzzyRule, error) {
	var out []fuzzyRule
	for f := range strings.SplitSeq(s, ",") {
		var r fuzzyRule
		lengths, exp, hasExp := strings.Cut(strings.TrimSpace(f), ":")
		_, err := fmt.Sscanf(lengths, "%d/%d", &r.OneTypoFrom, &r.TwoTyposFrom)
		if err == nil && hasExp {
			r.MaxExpansions, err = strconv.Atoi(exp)
		}
		if err != nil || r.OneTypoFrom < 1 || r.TwoTyposFrom <= r.OneTypoFrom || r.MaxExpansions < 0 {
			return nil, fmt.Errorf("rule %q: want one/two or one/two:max_expansions, 0 < one < two", f)
		}
		out = append(out, r)
	}
	return out, nil
}

// typoAnswer is a search's answer with the engine's own time for it.
type typoAnswer struct {
	searchResponse
	Took int64 `json:"took"`
}

// knownPages are the answers to the known-item queries: the ids of each one's first page and
// the number of items it matches.
type knownPages struct {
	ids    [][]string
	totals []int
}

// knownItemPages runs the known-item queries as Search does, each for the first page of ten by
// relevance, and returns their answers and the sum of the answers' took in milliseconds.
func knownItemPages(ctx context.Context, be *Backend, queries []searchtest.KnownItem) (knownPages, int64, error) {
	pages := knownPages{ids: make([][]string, len(queries)), totals: make([]int, len(queries))}
	var took int64
	for i, k := range queries {
		body, err := json.Marshal(searchBody(search.NewRequest(search.Query{Text: k.Text, Sort: search.SortRelevance, Page: 1, PerPage: 10})))
		var a typoAnswer
		if err := be.doSearch(ctx, "search", body, err, &a); err != nil {
			return knownPages{}, 0, fmt.Errorf("search %q: %w", k.Text, err)
		}
		took += a.Took
		pages.totals[i] = a.Hits.Total.Value
		for _, h := range a.Hits.Hits {
			pages.ids[i] = append(pages.ids[i], h.Source.ID)
		}
	}
	return pages, took, nil
}

// typoCost sums what a rule's queries cost: the node's CPU and the index's query-phase time in
// milliseconds, the answers' took and the client's wall time.
type typoCost struct {
	cpu, query, took int64
	wall             time.Duration
}

func ratio(a, b int64) float64 { return float64(a) / float64(b) }

// engineCost reads the node's CPU and the backend's index's query time so far, in milliseconds.
func engineCost(t *testing.T, be *Backend) typoCost {
	t.Helper()
	var nodes struct {
		Nodes map[string]struct {
			Process struct {
				CPU struct {
					TotalInMillis int64 `json:"total_in_millis"`
				} `json:"cpu"`
			} `json:"process"`
		} `json:"nodes"`
	}
	getJSON(t, "/_nodes/_local/stats/process", &nodes)
	var stats struct {
		All struct {
			Total struct {
				Search struct {
					QueryTimeInMillis int64 `json:"query_time_in_millis"`
				} `json:"search"`
			} `json:"total"`
		} `json:"_all"`
	}
	getJSON(t, "/"+be.Alias()+"/_stats/search", &stats)
	var c typoCost
	for _, n := range nodes.Nodes {
		c.cpu += n.Process.CPU.TotalInMillis
	}
	c.query = stats.All.Total.Search.QueryTimeInMillis
	return c
}

// getJSON decodes the engine's answer to GET path into out.
func getJSON(t *testing.T, path string, out any) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, engineURL(t)+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s", path, resp.Status)
	}
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		t.Fatalf("GET %s: decode: %v", path, err)
	}
}
