package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"text/tabwriter"
	"time"

	"mediagw/querylog"
	"mediagw/redisconn"
)

// queriesFlags are mediactl queries' own flags.
type queriesFlags struct {
	top    int
	window time.Duration
}

func queriesFlagSet(fs *flag.FlagSet, e *env) {
	fs.IntVar(&e.queries.top, "n", 20, fmt.Sprintf("queries listed of each kind, of those %d visitors or more searched", querylog.MinVisitors))
	fs.DurationVar(&e.queries.window, "window", 0, "how far back to count, at most MEDIA_QUERY_LOG_WINDOW; 0: all of it")
}

// runQueries prints what people searched for, from every replica: the log is in Redis. Without
// Redis there is none to read: a replica then keeps no query text, only its counters on /metrics.
// It lists only the texts querylog.MinVisitors visitors searched, and says so.
func runQueries(ctx context.Context, e *env, args []string) error {
	if len(args) != 0 {
		return fmt.Errorf("%w: queries takes no arguments", errUsage)
	}
	if e.queries.top < 1 {
		return fmt.Errorf("%w: -n %d, want at least 1", errUsage, e.queries.top)
	}
	if e.cfg.RedisURL == "" || e.cfg.QueryLogTop == 0 {
		return errors.New("no query log to read: it is kept in Redis (REDIS_URL) when MEDIA_QUERY_LOG_TOP is not 0; " +
			"otherwise replicas keep no query text, only the counts on /metrics (mediagw_querylog_*)")
	}
	client, err := redisconn.Open(e.cfg.RedisURL)
	if err != nil {
		return fmt.Errorf("redis: %w", err)
	}
	defer client.Close()
	opt := querylog.Options{Window: e.cfg.QueryLogWindow, Top: e.cfg.QueryLogTop}
	rep, err := querylog.Read(ctx, client, opt, e.queries.window, e.queries.top)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "since %s: %d searches, %d of them found nothing\n", rep.From.UTC().Format(time.RFC3339), rep.Searches, rep.NoResults)
	fmt.Fprintf(e.stdout, "a visitor's searches of a text count once (on each replica); listed: the texts %d visitors or more searched\n", querylog.MinVisitors)
	lists := []struct {
		title string
		top   []querylog.Count
		err   int64
	}{{"most frequent searches", rep.Top, rep.Error}, {"most frequent searches that found nothing", rep.TopNoResults, rep.ErrorNoResults}}
	for _, l := range lists {
		fmt.Fprintf(e.stdout, "\n%s (each count within %d of the true one):\n", l.title, l.err)
		if len(l.top) == 0 {
			fmt.Fprintln(e.stdout, "  none")
			continue
		}
		tw := tabwriter.NewWriter(e.stdout, 2, 4, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "COUNT\t\tQUERY")
		for _, c := range l.top {
			fmt.Fprintf(tw, "%d\t\t%q\n", c.N, c.Text)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	return nil
}
