package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"mediagw/bench"
	"mediagw/bench/chart"
	"mediagw/cmd/internal/backends"
	"mediagw/config"
	"mediagw/search"
	"mediagw/search/elastic"
)

// benchFlags are the flags of `mediabench run`.
type benchFlags struct {
	mode      string
	gateways  string
	via       string
	direct    bool
	catalogue string
	duration  time.Duration
	warmup    time.Duration
	rounds    int
	requests  int
	qps       float64
	conc      int
	visitors  int
	limit     bool
	seed      uint64
	distinct  int
	without   string
	timeout   time.Duration
	rss       string
	cpu       string
	probeN    int
	clear     bool
	batch     int
	workers   int
	metrics   string
	save      string
	label     string
	results   string
	charts    string
}

func benchFlagSet(fs *flag.FlagSet, e *env) {
	b := &e.bench
	fs.StringVar(&b.mode, "mode", "mix", "mix: replay the request mix; forms: its searches alone, of words the catalogue also holds in another form, against the engine direct; extras: its searches with all facets and highlight=true, and as phrases (q in quotes), against the same without; suggest: completions as typed; probe: categories and authors cold, then cached; load: mediactl load against a plain _bulk, then mediactl reindex of what it loaded; charts: draw -results as SVG into -charts")
	fs.StringVar(&b.gateways, "gateway", "", "gateway base URLs to measure, comma-separated, each URL or NAME=URL (e.g. gateway=http://127.0.0.1:8080/)")
	fs.StringVar(&b.via, "via", "", "proxies in front of the engine (mediabench passthrough) to send the direct requests through, comma-separated NAME=URL, visitors as for -gateway: the floor of what any gateway costs")
	fs.BoolVar(&b.direct, "direct", true, "also send the mix straight to the engine MEDIA_BACKEND names (OpenSearch unless elasticsearch; its URL and alias settings): the baseline")
	fs.StringVar(&b.catalogue, "catalogue", "", "catalogue file the mix is drawn from (mix), or loaded (load)")
	fs.DurationVar(&b.duration, "duration", 20*time.Second, "measured time per target")
	fs.DurationVar(&b.warmup, "warmup", 5*time.Second, "unmeasured warm-up per target")
	fs.IntVar(&b.rounds, "rounds", 2, "phases per target, alternating between targets")
	fs.IntVar(&b.requests, "requests", 0, "measure this many requests per target instead of -duration (closed loop; a multiple of -rounds, at least -c a round), after a warm-up of one round's if -warmup is set: every target answers the very same requests")
	fs.Float64Var(&b.qps, "qps", 0, "open-loop rate in requests/s; 0 runs closed-loop at -c")
	fs.IntVar(&b.conc, "c", 8, "concurrent connections (closed-loop clients)")
	fs.IntVar(&b.visitors, "visitors", 10000, "distinct visitors sent in X-Forwarded-For (the gateway must trust 127.0.0.1)")
	fs.BoolVar(&b.limit, "limit", false, "one visitor, no X-Forwarded-For: the real rate limit applies")
	fs.Uint64Var(&b.seed, "seed", 1, "seed of the mix: the same seed and catalogue give the same requests")
	fs.IntVar(&b.distinct, "distinct", 20000, "distinct searches (and items) the mix repeats")
	fs.StringVar(&b.without, "without", "", "resources to leave out of the mix, comma-separated (items, item, categories, authors)")
	fs.DurationVar(&b.timeout, "timeout", 10*time.Second, "deadline of one request")
	fs.StringVar(&b.rss, "rss", "", "processes whose RSS to sample during the run, comma-separated NAME=PID")
	fs.StringVar(&b.cpu, "cpu", "", "processes whose CPU time to charge to each target, comma-separated NAME=PID (the harness is always counted)")
	fs.IntVar(&b.probeN, "n", 50, "probe: cached requests after the cold one")
	fs.BoolVar(&b.clear, "clear-cache", true, "probe: clear the engine's request cache before each target's cold request")
	fs.IntVar(&b.batch, "batch", 1000, "load: documents per bulk request, both ways (1000 is what mediactl load sends)")
	fs.IntVar(&b.workers, "workers", 2, "load: bulk requests in flight, both ways (2 is what mediactl load sends)")
	fs.StringVar(&b.metrics, "metrics", "", "gateways' metrics URLs (admin listener), comma-separated NAME=URL by -gateway name: their own time, GC and cache figures per run")
	fs.StringVar(&b.save, "save", "", "mix, forms, extras, suggest: also write the results as JSON to this file, for -mode charts")
	fs.StringVar(&b.label, "label", "", "name of the run in charts (default: the mode)")
	fs.StringVar(&b.results, "results", "", "charts: directory of the JSON files -save wrote")
	fs.StringVar(&b.charts, "charts", "", "charts: directory to write the SVG charts to")
}

func runBench(ctx context.Context, e *env, args []string) error {
	if len(args) != 0 {
		return fmt.Errorf("%w: run takes flags only, got %q", errUsage, args)
	}
	b := e.bench
	switch b.mode {
	case "mix", "forms", "extras", "suggest":
		return benchMix(ctx, e)
	case "charts":
		return benchCharts(e)
	case "probe":
		return benchProbe(ctx, e)
	case "load":
		return benchLoad(ctx, e)
	}
	return fmt.Errorf("%w: -mode must be mix, forms, extras, suggest, probe, load or charts", errUsage)
}

// benchTargets are the direct baseline (first, when asked for), the gateways and the proxies.
func benchTargets(e *env) ([]bench.Target, error) {
	b := e.bench
	var out []bench.Target
	if b.direct {
		u, _ := backends.EngineAddress(e.cfg)
		name := config.BackendOpenSearch
		if e.cfg.Backend == config.BackendElasticsearch {
			name = e.cfg.Backend
		}
		out = append(out, bench.NewOpenSearch(name, u, bench.NewClient(b.conc, b.timeout)))
	}
	gateways, err := benchGateways(e)
	if err != nil {
		return nil, err
	}
	for _, g := range gateways {
		out = append(out, g)
	}
	for _, v := range config.SplitList(b.via) {
		name, u, ok := strings.Cut(v, "=")
		if !ok || name == "" || !strings.HasPrefix(u, "http://") && !strings.HasPrefix(u, "https://") {
			return nil, fmt.Errorf("%w: -via %q: want NAME=URL, an http(s) URL", errUsage, v)
		}
		out = append(out, bench.NewProxied(name, u, bench.NewClient(b.conc, b.timeout), visitors(b)))
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%w: nothing to measure: give -gateway URL or keep -direct", errUsage)
	}
	return out, nil
}

// benchGateways are the gateways of -gateway.
func benchGateways(e *env) ([]*bench.Gateway, error) {
	b := e.bench
	client := bench.NewClient(b.conc, b.timeout)
	var out []*bench.Gateway
	for i, g := range config.SplitList(b.gateways) {
		name, u, ok := strings.Cut(g, "=")
		if !ok {
			name, u = "gateway", g
			if i > 0 {
				name += strconv.Itoa(i + 1)
			}
		}
		if !strings.HasPrefix(u, "http://") && !strings.HasPrefix(u, "https://") {
			return nil, fmt.Errorf("%w: -gateway %q: want an http(s) URL", errUsage, u)
		}
		out = append(out, bench.NewGateway(name, u, client, visitors(b)))
	}
	return out, nil
}

// visitors is how many visitors the requests come from in X-Forwarded-For; 0 with -limit.
func visitors(b benchFlags) int {
	if b.limit {
		return 0
	}
	return b.visitors
}

// benchMix runs the mix, forms, extras and suggest modes: the targets of -mode, the requests it replays, the run, and its
// tables (and saved results).
func benchMix(ctx context.Context, e *env) error {
	b := e.bench
	if b.catalogue == "" {
		return fmt.Errorf("%w: -catalogue FILE is required", errUsage)
	}
	metrics, err := parseNamed(b.metrics)
	if err != nil {
		return err
	}
	targets, err := modeTargets(e, metrics)
	if err != nil {
		return err
	}
	corpus, err := bench.ReadCorpus(b.catalogue)
	if err != nil {
		return err
	}
	mix, err := benchRequests(e, corpus)
	if err != nil {
		return err
	}
	describeRun(e, mix, corpus)
	procs, err := parsePIDs(b.cpu)
	if err != nil {
		return err
	}
	rssProcs, err := parsePIDs(b.rss)
	if err != nil {
		return err
	}
	var watches []*bench.RSSWatch
	for _, p := range rssProcs {
		watches = append(watches, bench.WatchRSS(p.Name, p.PID, 500*time.Millisecond))
	}
	results, runErr := bench.Run(ctx, mix, targets, bench.RunOptions{
		QPS: b.qps, Concurrency: b.conc, Duration: b.duration, Rounds: b.rounds, Requests: b.requests,
		Warmup: b.warmup, Timeout: b.timeout, Progress: e.stderr, Processes: procs, Metrics: metrics,
	})
	var reports []bench.RSSReport
	for _, w := range watches {
		reports = append(reports, w.Stop())
	}
	if runErr != nil && !errors.Is(runErr, context.Canceled) {
		return runErr
	}
	if err := writeResults(e, results, reports); err != nil {
		return err
	}
	if b.save != "" && runErr == nil {
		label := cmp.Or(b.label, b.mode)
		if err := (bench.Saved{Label: label, Mode: b.mode, QPS: b.qps,
			Direct: b.mode != "extras" && b.mode != "suggest" && b.direct, Results: results, RSS: reports}).Save(b.save); err != nil {
			return err
		}
	}
	return runErr
}

// modeTargets are the targets -mode measures: the gateways and the engine for the mix and forms; the
// gateways alone otherwise (the engine has no direct form of the extras), each beside itself
// with the extras and with phrases for -mode extras, whose metrics they share.
func modeTargets(e *env, metrics map[string]string) ([]bench.Target, error) {
	b := e.bench
	if b.mode == "mix" || b.mode == "forms" {
		return benchTargets(e)
	}
	if b.via != "" {
		return nil, fmt.Errorf("%w: -via measures the mix's direct requests: -mode mix only", errUsage)
	}
	gateways, err := benchGateways(e)
	if err != nil {
		return nil, err
	}
	var targets []bench.Target
	for _, g := range gateways {
		targets = append(targets, g)
		if b.mode == "extras" {
			for _, t := range []bench.Target{g.WithExtras(g.Name() + bench.ExtrasSuffix), g.WithPhrase(g.Name() + bench.PhraseSuffix),
				g.WithReuse(g.Name() + bench.ReuseSuffix)} {
				targets = append(targets, t)
				if u, ok := metrics[g.Name()]; ok {
					metrics[t.Name()] = u
				}
			}
		}
	}
	if len(targets) == 0 {
		return nil, fmt.Errorf("%w: -mode %s measures gateways: give -gateway URL", errUsage, b.mode)
	}
	return targets, nil
}

// describeRun writes what the run replays and how: the mix's make-up, the loop and the rounds.
func describeRun(e *env, mix *bench.Mix, corpus *bench.Corpus) {
	b := e.bench
	n := mix.Count()
	loop := fmt.Sprintf("closed loop, %d connections", b.conc)
	if b.qps > 0 {
		loop = fmt.Sprintf("open loop at %.0f req/s over %d connections", b.qps, b.conc)
	}
	fmt.Fprintf(e.stdout, "mix: %d requests (%d distinct) from %d items: items %d, item %d, categories %d, authors %d, suggest %d; seed %d\n",
		len(mix.Seq), mix.Distinct, len(corpus.IDs), n[bench.KindItems], n[bench.KindItem], n[bench.KindCategories], n[bench.KindAuthors], n[bench.KindSuggest], b.seed)
	measured := fmt.Sprintf("%s measured per target in %d rounds after %s warm-up", b.duration, b.rounds, b.warmup)
	if b.requests > 0 {
		measured = fmt.Sprintf("the same %d requests measured on each target in %d rounds", b.requests, b.rounds)
		if b.warmup > 0 {
			measured += " after one round's to warm up"
		}
	}
	fmt.Fprintf(e.stdout, "run: %s; %s; visitors %s\n", loop, measured, visitorsNote(b))
}

// writeResults writes the run's tables: the targets', the extras', the phrases' and the reuse
// filters' cost (-mode extras, each gateway beside itself with them) and the processes' memory.
func writeResults(e *env, results []*bench.Result, reports []bench.RSSReport) error {
	if err := bench.WriteTable(e.stdout, results); err != nil {
		return err
	}
	if e.bench.mode == "extras" {
		for i := 0; i+3 < len(results); i += 4 {
			for _, c := range []bench.ExtrasCost{bench.CompareExtras(results[i], results[i+1], bench.Extras), bench.CompareExtras(results[i], results[i+2], bench.Phrase),
				bench.CompareExtras(results[i], results[i+3], bench.Reuse)} {
				if err := bench.WriteExtrasCost(e.stdout, c); err != nil {
					return err
				}
			}
		}
	}
	if len(reports) > 0 {
		fmt.Fprintln(e.stdout)
		return bench.WriteRSSTable(e.stdout, reports)
	}
	return nil
}

// benchRequests is the sequence of requests -mode replays: the mix; its searches alone (extras);
// or completions (suggest).
func benchRequests(e *env, corpus *bench.Corpus) (*bench.Mix, error) {
	b := e.bench
	_, alias := backends.EngineAddress(e.cfg)
	opt := bench.MixOptions{Seed: b.seed, Alias: alias, Distinct: b.distinct}
	switch b.mode {
	case "extras":
		opt.Without = []bench.Kind{bench.KindItem, bench.KindCategories, bench.KindAuthors}
	case "forms":
		opt.Without, opt.Forms = []bench.Kind{bench.KindItem, bench.KindCategories, bench.KindAuthors}, true
	case "suggest":
		return bench.BuildCompletions(corpus, bench.CompletionOptions{Seed: b.seed, Distinct: b.distinct})
	default:
		without, err := bench.ParseKinds(b.without)
		if err != nil {
			return nil, fmt.Errorf("%w: -without: %v", errUsage, err)
		}
		opt.Without = without
	}
	return bench.BuildMix(corpus, opt)
}

// benchCharts draws the charts of the results -save kept.
func benchCharts(e *env) error {
	b := e.bench
	if b.results == "" || b.charts == "" {
		return fmt.Errorf("%w: -mode charts needs -results DIR and -charts DIR", errUsage)
	}
	saved, err := bench.LoadSaved(b.results)
	if err != nil {
		return err
	}
	files, err := chart.Draw(saved, b.charts)
	if err != nil {
		return err
	}
	for _, f := range files {
		fmt.Fprintln(e.stdout, "wrote", f)
	}
	return nil
}

func visitorsNote(b benchFlags) string {
	if b.limit {
		return "1 (the real rate limit applies)"
	}
	return strconv.Itoa(b.visitors) + " via X-Forwarded-For"
}

// parsePIDs reads a NAME=PID list of running processes.
func parsePIDs(list string) ([]bench.Process, error) {
	var out []bench.Process
	for _, p := range config.SplitList(list) {
		name, pidStr, ok := strings.Cut(p, "=")
		if !ok {
			name, pidStr = "pid "+p, p
		}
		pid, err := strconv.Atoi(pidStr)
		if err != nil || pid <= 0 {
			return nil, fmt.Errorf("%w: %q: want NAME=PID", errUsage, p)
		}
		if _, err := bench.ReadCPU(pid); err != nil {
			return nil, err
		}
		out = append(out, bench.Process{Name: name, PID: pid})
	}
	return out, nil
}

// parseNamed reads a NAME=URL list.
func parseNamed(list string) (map[string]string, error) {
	out := map[string]string{}
	for _, p := range config.SplitList(list) {
		name, u, ok := strings.Cut(p, "=")
		if !ok || !strings.HasPrefix(u, "http") {
			return nil, fmt.Errorf("%w: %q: want NAME=URL", errUsage, p)
		}
		out[name] = u
	}
	return out, nil
}

func benchProbe(ctx context.Context, e *env) error {
	b := e.bench
	targets, err := benchTargets(e)
	if err != nil {
		return err
	}
	var clear func(context.Context) error
	if b.clear {
		client := bench.NewClient(1, b.timeout)
		u, alias := backends.EngineAddress(e.cfg)
		u += "/" + alias + "/_cache/clear?request=true"
		clear = func(ctx context.Context) error {
			req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, nil)
			if err != nil {
				return err
			}
			resp, err := client.Do(req)
			if err != nil {
				return fmt.Errorf("clear the engine's request cache: %w", err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				return fmt.Errorf("clear the engine's request cache: status %d", resp.StatusCode)
			}
			return nil
		}
	}
	_, alias := backends.EngineAddress(e.cfg)
	res, err := bench.Probe(ctx, targets, alias, b.probeN, b.timeout, clear)
	if err != nil {
		return err
	}
	return bench.WriteProbeTable(e.stdout, res)
}

func benchLoad(ctx context.Context, e *env) error {
	b := e.bench
	if b.catalogue == "" {
		return fmt.Errorf("%w: -catalogue FILE is required", errUsage)
	}
	docs, err := bench.BulkDocs(b.catalogue)
	if err != nil {
		return err
	}
	mapping, err := backends.Definition(e.cfg, e.cfg.EngineMapping)
	if err != nil {
		return err
	}
	url, alias := backends.EngineAddress(e.cfg)
	fmt.Fprintf(e.stdout, "load: %d items from %s into %s, %d per bulk request, %d in flight, both ways\n",
		len(docs), b.catalogue, config.Redact(url), b.batch, b.workers)
	plain := bench.PlainBulk{Client: bench.NewClient(b.workers, 0), URL: url, Index: alias + "-plainbulk",
		Definition: mapping, Batch: b.batch, Workers: b.workers}
	procs, err := parsePIDs(b.cpu)
	if err != nil {
		return err
	}
	fmt.Fprintln(e.stderr, "bench: plain _bulk upload")
	base, err := bench.Charge(procs, func() (bench.LoadResult, error) { return plain.Run(ctx, docs) })
	if err != nil {
		return err
	}
	// The backend as mediactl load makes it (cmd/internal/backends), with the same bulk sizes.
	backend, err := backends.Engine(e.cfg, func(c *elastic.Config) { c.BatchSize, c.Workers = b.batch, b.workers })
	if err != nil {
		return err
	}
	defer backend.Close()
	fmt.Fprintln(e.stderr, "bench: mediactl load (the alias moves to the new index)")
	loaded, err := bench.Charge(procs, func() (bench.LoadResult, error) {
		return bench.Loaded(ctx, "mediactl load", backend, b.catalogue)
	})
	if err != nil {
		return err
	}
	fmt.Fprintln(e.stderr, "bench: mediactl reindex (from the index the load made, with the same definition)")
	reindexed, err := bench.Charge(procs, func() (bench.LoadResult, error) {
		start := time.Now()
		st, err := backend.Reindex(ctx, search.ReindexOptions{Definition: mapping})
		if err != nil {
			return bench.LoadResult{}, fmt.Errorf("mediactl reindex: %w", err)
		}
		return bench.LoadResult{Name: "mediactl reindex", Items: st.Indexed, Duration: time.Since(start)}, nil
	})
	if err != nil {
		return err
	}
	if err := bench.WriteLoadTable(e.stdout, []bench.LoadResult{base, loaded, reindexed}); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "reindex vs load: %.2fx the throughput\n", reindexed.Rate()/loaded.Rate())
	return nil
}
