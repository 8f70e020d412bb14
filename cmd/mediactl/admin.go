package main

import (
	"context"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"mediagw/cmd/internal/backends"
	"mediagw/search"
	"mediagw/search/elastic"
)

func runStatus(ctx context.Context, e *env, args []string) error {
	if len(args) != 0 {
		return fmt.Errorf("%w: status takes no arguments", errUsage)
	}
	var infos []search.IndexInfo
	var eng interface{ Engine() elastic.Engine }
	err := withAdmin(ctx, e, func(b search.Admin) (err error) {
		// An engine backend knows what it talks to (it checked at open); the embedded index is ours.
		eng, _ = b.(interface{ Engine() elastic.Engine })
		infos, err = b.Status(ctx)
		return err
	})
	if err != nil {
		return err
	}
	if eng != nil {
		fmt.Fprintf(e.stdout, "engine: %s\n", eng.Engine())
	}
	if len(infos) == 0 {
		fmt.Fprintln(e.stdout, "no index yet: mediactl load FILE builds one")
		return nil
	}
	tw := tabwriter.NewWriter(e.stdout, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "INDEX\tITEMS\tMAPPING\tMADE\tSTATE")
	for _, in := range infos {
		live := ""
		switch {
		case in.Live:
			live = "live"
		case in.Unfinished:
			live = "unfinished load (the next load removes it)"
		}
		if in.Outdated {
			live = strings.TrimPrefix(live+", ", ", ") + "built by an older mediagw: mediactl reindex (or load) builds a current one"
		}
		docs := fmt.Sprint(in.Docs)
		if in.Err != nil {
			docs = "? (" + in.Err.Error() + ")"
		}
		made := "?"
		if !in.Created.IsZero() {
			made = in.Created.UTC().Format(time.DateTime) + " UTC"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", in.Name, docs, mappingColumn(in), made, live)
	}
	return tw.Flush()
}

func runRollback(ctx context.Context, e *env, args []string) error {
	if len(args) != 0 {
		return fmt.Errorf("%w: rollback takes no arguments", errUsage)
	}
	var name string
	err := withAdmin(ctx, e, func(b search.Admin) (err error) {
		name, err = b.Rollback(ctx)
		return err
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "%s is live again (mediactl use VERSION makes a newer kept one live again; mediactl status lists them)\n", name)
	return nil
}

func runUse(ctx context.Context, e *env, args []string) error {
	if len(args) != 1 {
		return fmt.Errorf("%w: use takes one index version (mediactl status lists them)", errUsage)
	}
	if err := withAdmin(ctx, e, func(b search.Admin) error { return b.Use(ctx, args[0]) }); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "%s is live\n", args[0])
	return nil
}

// withAdmin runs f with the configured backend's Admin, opened for it and closed after.
func withAdmin(ctx context.Context, e *env, f func(search.Admin) error) error {
	b, err := backends.OpenAdmin(ctx, e.cfg, e.log)
	if err != nil {
		return err
	}
	defer b.Close()
	return f(b)
}

// mappingColumn names the mapping an index version was built with: its version, and the hash of
// the OpenSearch index definition (see mappings.Hash) when the version carries one.
func mappingColumn(in search.IndexInfo) string {
	if in.MappingHash == "" {
		return fmt.Sprintf("v%d", in.Version)
	}
	return fmt.Sprintf("v%d %s", in.Version, in.MappingHash)
}
