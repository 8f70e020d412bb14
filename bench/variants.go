package bench

import (
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"net/url"
	"strings"
	"sync"
)

// Variants of a target's searches: searches that ask for the search-box extras (every facet and
// highlighted matches), searches of their words as a phrase, and searches with the filters and
// facets of reuse, each measured against the same searches without.

// extrasQuery is what a search box adds to a search for the extras: every facet and highlights.
const extrasQuery = "&facets=type,category,language,year&highlight=true"

// WithExtras is a copy of g, named name, whose searches (resource=items) also ask for all four
// facets and for highlighted matches. Run against g on the same mix, in alternating rounds, it
// gives what the extras cost over plain searches.
func (g *Gateway) WithExtras(name string) *Gateway {
	out := *g
	out.name, out.extra = name, []string{extrasQuery}
	return &out
}

// reuseQueries are what a search box for reusers adds to a search: filters of the licence, the
// uses it allows, the format, the duration and what an item has, comma lists among them (of the
// parameters the mix never sets), and the licence, format and duration facets.
var reuseQueries = []string{
	"&license=by,by-sa,cc0,noc-us,pdm&facets=license,format,duration",
	"&reuse=commercial&has=thumbnail&facets=license,format,duration",
	"&reuse=commercial,modification&format=jpeg,png,mp4&facets=license,format,duration",
	"&duration=short,medium&license=by,cc0,in-copyright,unknown&has=media&facets=license,format,duration",
}

// WithReuse is a copy of g, named name, whose searches (resource=items) also ask for one of
// reuseQueries, each search always the same one. Run against g on the same mix, it gives what
// those filters and facets cost over plain searches.
func (g *Gateway) WithReuse(name string) *Gateway {
	out := *g
	out.name, out.extra = name, reuseQueries
	return &out
}

// extraOf is what g adds to the search r: its one extra, or the one r's query draws of several.
func (g *Gateway) extraOf(r *Request) string {
	switch len(g.extra) {
	case 0:
		return ""
	case 1:
		return g.extra[0]
	}
	h := fnv.New32a()
	h.Write([]byte(r.Query))
	return g.extra[h.Sum32()%uint32(len(g.extra))]
}

// ExtrasSuffix, PhraseSuffix and ReuseSuffix end the names of the targets WithExtras, WithPhrase and
// WithReuse make beside
// a gateway (mediabench run -mode extras), by which reports pair each with its plain searches.
const (
	ExtrasSuffix = "+extras"
	PhraseSuffix = "+phrase"
	ReuseSuffix  = "+reuse"
)

// Extras, Phrase and Reuse say what the targets of WithExtras, WithPhrase and WithReuse add to a search, for reports.
const (
	Extras = "all four facets and highlight=true"
	Phrase = `q's words in quotes, a phrase`
	Reuse  = "licence, use, format, duration and has filters with their facets"
)

// WithPhrase is a copy of g, named name, whose searches with text ask for it as a phrase: q in
// quotes. Run against g on the same mix, it gives what a phrase costs over the same words.
func (g *Gateway) WithPhrase(name string) *Gateway {
	out := *g
	out.name, out.quoted = name, &sync.Map{}
	return &out
}

// phrased is r's query with q in quotes, kept per request so that the run measures the gateway
// and not the rewriting.
func (g *Gateway) phrased(r *Request) string {
	if q, ok := g.quoted.Load(r); ok {
		return q.(string)
	}
	q := quoteQ(r.Query)
	g.quoted.Store(r, q)
	return q
}

// quoteQ is query with the value of q in quotes, its other parameters as they are, in order.
func quoteQ(query string) string {
	params := strings.Split(query, "&")
	for i, p := range params {
		v, ok := strings.CutPrefix(p, "q=")
		if !ok {
			continue
		}
		if text, err := url.QueryUnescape(v); err == nil && strings.TrimSpace(text) != "" {
			params[i] = "q=" + url.QueryEscape(`"`+text+`"`)
		}
	}
	return strings.Join(params, "&")
}

// ExtrasCost compares searches with an extra (the target made by WithExtras or WithPhrase) with the
// same searches without it, measured in the same run.
type ExtrasCost struct {
	Plain, Extras string
	// What is what the extras' searches add (Extras, Phrase).
	What string
	// P50, Mean and P99 are the extras' latency over the plain searches'.
	P50, Mean, P99 float64
	// Throughput is the plain searches' throughput over the extras' (closed loop: what a search
	// costs in the machine's capacity); 0 when a run had none.
	Throughput float64
	// CPU is the extras' CPU time per request over the plain searches', every watched process
	// but the harness added up; 0 when none was watched.
	CPU float64
}

// CompareExtras returns what extras, whose searches add what, cost over plain.
func CompareExtras(plain, extras *Result, what string) ExtrasCost {
	ratio := func(a, b float64) float64 {
		if b == 0 {
			return 0
		}
		return a / b
	}
	cpu := func(r *Result) float64 {
		var sum float64
		for p, d := range r.CPU {
			if p != "harness" {
				sum += float64(d)
			}
		}
		return ratio(sum, float64(r.Requests))
	}
	return ExtrasCost{Plain: plain.Target, Extras: extras.Target, What: what,
		P50:        ratio(float64(extras.Latency.P50), float64(plain.Latency.P50)),
		Mean:       ratio(float64(extras.Latency.Mean), float64(plain.Latency.Mean)),
		P99:        ratio(float64(extras.Latency.P99), float64(plain.Latency.P99)),
		Throughput: ratio(plain.Throughput, extras.Throughput),
		CPU:        ratio(cpu(extras), cpu(plain)),
	}
}

// WriteExtrasCost prints a comparison of CompareExtras.
func WriteExtrasCost(w io.Writer, c ExtrasCost) error {
	var parts []string
	if c.Throughput > 0 {
		parts = append(parts, fmt.Sprintf("time per request at capacity (plain req/s over extras req/s) %.2fx", c.Throughput))
	}
	if c.CPU > 0 {
		parts = append(parts, fmt.Sprintf("CPU per request %.2fx", c.CPU))
	}
	parts = append(parts, fmt.Sprintf("p50 %.2fx, mean %.2fx, p99 %.2fx", c.P50, c.Mean, c.P99))
	_, err := fmt.Fprintf(w, "%s (%s) costs over %s (plain searches): %s\n",
		c.Extras, c.What, c.Plain, strings.Join(parts, "; "))
	return err
}

// errNoDirect answers a request that has no direct form, a completion: the harness replays the
// backend's exchange only for the original resources.
var errNoDirect = errors.New("bench: the request has no direct OpenSearch form")
