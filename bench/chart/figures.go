package chart

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode"

	"mediagw/bench"
)

// Draw writes the charts of a bench run's saved sections into dir and returns the files written.
// A chart whose sections are missing from saved is not drawn.
func Draw(saved []bench.Saved, dir string) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("charts: %w", err)
	}
	type figure struct {
		name string
		svg  []byte
		err  error
	}
	var figs []figure
	// A chart with nothing to show comes back nil without an error, and is left out.
	add := func(name string, svg []byte, err error) {
		if svg != nil || err != nil {
			figs = append(figs, figure{name, svg, err})
		}
	}

	var groups []string
	var direct, gateway Series
	direct.Name, gateway.Name = "OpenSearch direct", "through the gateway"
	for _, s := range saved {
		if !s.Direct || len(s.Results) == 0 {
			continue
		}
		if s.QPS == 0 && len(s.Results) > 1 {
			groups = append(groups, s.Label)
			direct.Values = append(direct.Values, s.Results[0].Throughput)
			gateway.Values = append(gateway.Values, s.Results[1].Throughput)
		}
		svg, err := latency(s)
		add("latency-"+slug(s.Label)+".svg", svg, err)
	}
	if len(groups) > 0 {
		svg, err := Bars("Throughput, closed loop: gateway vs OpenSearch direct", "requests/s", groups, []Series{direct, gateway}, false)
		add("throughput.svg", svg, err)
	}
	for _, f := range []struct {
		name string
		draw func([]bench.Saved) ([]byte, error)
	}{{"cache.svg", cache}, {"rss.svg", rss}, {"own.svg", own}, {"extras.svg", extras}, {"suggest.svg", suggest}} {
		svg, err := f.draw(saved)
		add(f.name, svg, err)
	}

	var files []string
	for _, f := range figs {
		if f.err != nil {
			return files, f.err
		}
		path := filepath.Join(dir, f.name)
		if err := os.WriteFile(path, f.svg, 0o644); err != nil {
			return files, fmt.Errorf("charts: %w", err)
		}
		files = append(files, path)
	}
	return files, nil
}

// ms is d in milliseconds.
func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// latency draws p50 and p99 by resource for every target of a section.
func latency(s bench.Saved) ([]byte, error) {
	var kinds []bench.Kind
	for k := range bench.Kind(len(s.Results[0].ByKind)) {
		for _, r := range s.Results {
			if r.ByKind[k].N > 0 {
				kinds = append(kinds, k)
				break
			}
		}
	}
	groups := make([]string, len(kinds))
	for i, k := range kinds {
		groups[i] = k.String()
	}
	var series []Series
	for _, q := range []string{"p50", "p99"} {
		for _, r := range s.Results {
			v := Series{Name: r.Target + " " + q}
			for _, k := range kinds {
				l := r.ByKind[k]
				v.Values = append(v.Values, ms(map[string]time.Duration{"p50": l.P50, "p99": l.P99}[q]))
			}
			series = append(series, v)
		}
	}
	return Bars("Latency by resource: "+s.Label, "ms (log scale)", groups, series, true)
}

// cache draws the share of each operation the cache answered from memory, per cached target.
func cache(saved []bench.Saved) ([]byte, error) {
	ops := []string{"search", "item", "categories", "authors"}
	var series []Series
	for _, s := range saved {
		for _, r := range s.Results {
			if r.Gateway == nil || len(r.Gateway.Cache) == 0 {
				continue
			}
			v := Series{Name: s.Label + ": " + r.Target}
			for _, op := range ops {
				rate, _ := r.Gateway.HitRate(op)
				v.Values = append(v.Values, 100*rate)
			}
			series = append(series, v)
		}
	}
	if len(series) == 0 {
		return nil, nil
	}
	return Bars("Cache: answers from memory (hit or shared)", "% of the engine questions", ops, series, false)
}

// rss draws every process's resident memory over each section that sampled it.
func rss(saved []bench.Saved) ([]byte, error) {
	var lines []Line
	for _, s := range saved {
		for _, r := range s.RSS {
			if len(r.Samples) == 0 {
				continue
			}
			l := Line{Name: s.Label + ": " + r.Name}
			for i, kib := range r.Samples {
				l.X = append(l.X, (time.Duration(i) * r.Every).Seconds())
				l.Y = append(l.Y, float64(kib)/1024)
			}
			lines = append(lines, l)
		}
	}
	if len(lines) == 0 {
		return nil, nil
	}
	return Lines("Resident memory (RSS) during the runs", "seconds from the section's start", "MiB", lines)
}

// own draws the gateway's own time per request (its time less the engine's) from its metric.
func own(saved []bench.Saved) ([]byte, error) {
	var groups []string
	series := []Series{{Name: "p50"}, {Name: "p90"}, {Name: "p99"}}
	for _, s := range saved {
		if s.Mode != "mix" {
			continue // the extras' runs have charts of their own
		}
		for _, r := range s.Results {
			if r.Gateway == nil || r.Gateway.Own.Count == 0 {
				continue
			}
			groups = append(groups, s.Label+": "+r.Target)
			for i, q := range []float64{.5, .9, .99} {
				series[i].Values = append(series[i].Values, 1000*r.Gateway.Own.Quantile(q))
			}
		}
	}
	if len(groups) == 0 {
		return nil, nil
	}
	return Bars("The gateway's own time per request (total less engine calls)", "ms (log scale)", groups, series, true)
}

// extras draws searches with all facets and highlighting against plain ones, per backend.
func extras(saved []bench.Saved) ([]byte, error) {
	var groups []string
	series := []Series{{Name: "plain p50"}, {Name: "facets+highlight p50"}, {Name: "plain p99"}, {Name: "facets+highlight p99"}}
	for _, s := range saved {
		if s.Mode != "extras" {
			continue
		}
		for i := 1; i < len(s.Results); i++ {
			plain, ex := s.Results[i-1], s.Results[i]
			if !strings.HasSuffix(ex.Target, bench.ExtrasSuffix) {
				continue // the plain searches, or their phrases (the report gives their cost)
			}
			groups = append(groups, plain.Target)
			for j, v := range []time.Duration{plain.Latency.P50, ex.Latency.P50, plain.Latency.P99, ex.Latency.P99} {
				series[j].Values = append(series[j].Values, ms(v))
			}
		}
	}
	if len(groups) == 0 {
		return nil, nil
	}
	return Bars("Search-box extras: all four facets and highlight=true vs plain searches", "ms (log scale)", groups, series, true)
}

// suggest draws the completions' latency percentiles per backend.
func suggest(saved []bench.Saved) ([]byte, error) {
	var groups []string
	series := []Series{{Name: "p50"}, {Name: "p90"}, {Name: "p99"}}
	for _, s := range saved {
		if s.Mode != "suggest" {
			continue
		}
		for _, r := range s.Results {
			groups = append(groups, s.Label+": "+r.Target)
			for j, v := range []time.Duration{r.Latency.P50, r.Latency.P90, r.Latency.P99} {
				series[j].Values = append(series[j].Values, ms(v))
			}
		}
	}
	if len(groups) == 0 {
		return nil, nil
	}
	return Bars("Completions (resource=suggest) through the gateway", "ms (log scale)", groups, series, true)
}

// slug makes a label a file name: its letters and digits, lower-case, words joined by "-".
func slug(s string) string {
	return strings.Join(strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}), "-")
}
