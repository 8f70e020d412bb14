package main

import (
	"context"
	"fmt"
	"strings"
	"text/tabwriter"

	"mediagw/search"
	blevebackend "mediagw/search/bleve"
)

// admin is what mediactl needs of a backend to manage its index versions.
type admin interface {
	search.Loader
	// Status lists the index versions, oldest first.
	Status(ctx context.Context) ([]indexInfo, error)
	// Rollback makes the previous kept version live and returns its name.
	Rollback(ctx context.Context) (string, error)
	Close() error
}

type indexInfo struct {
	Name string
	Docs int64
	Live bool
	// Unfinished: a load began the version and died before it could remove it.
	Unfinished bool
	// Outdated: the version was built by an older mediagw, and lacks what this one reads.
	Outdated bool
	// Err says why the version could not be counted.
	Err error
}

func openAdmin(ctx context.Context, e *env) (admin, error) {
	switch e.cfg.Backend {
	case "embedded":
		return &embeddedAdmin{Loader: blevebackend.NewLoader(e.cfg.IndexDir, e.cfg.KeepIndices), dir: e.cfg.IndexDir}, nil
	case "opensearch":
		return newOpenSearchAdmin(e)
	}
	return nil, fmt.Errorf("unknown backend %q", e.cfg.Backend)
}

type embeddedAdmin struct {
	*blevebackend.Loader
	dir string
}

func (a *embeddedAdmin) Status(context.Context) ([]indexInfo, error) {
	infos, err := blevebackend.Status(a.dir)
	if err != nil {
		return nil, err
	}
	out := make([]indexInfo, len(infos))
	for i, in := range infos {
		out[i] = indexInfo{Name: in.Name, Docs: int64(in.Docs), Live: in.Current, Err: in.Err}
	}
	return out, nil
}

func (a *embeddedAdmin) Rollback(context.Context) (string, error) {
	return blevebackend.Rollback(a.dir)
}

func (a *embeddedAdmin) Close() error { return nil }

func runStatus(ctx context.Context, e *env, args []string) error {
	if len(args) != 0 {
		return fmt.Errorf("%w: status takes no arguments", errUsage)
	}
	b, err := openAdmin(ctx, e)
	if err != nil {
		return err
	}
	defer b.Close()
	infos, err := b.Status(ctx)
	if err != nil {
		return err
	}
	if len(infos) == 0 {
		fmt.Fprintln(e.stdout, "no index yet: mediactl load FILE builds one")
		return nil
	}
	tw := tabwriter.NewWriter(e.stdout, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "INDEX\tITEMS\tSTATE")
	for _, in := range infos {
		live := ""
		switch {
		case in.Live:
			live = "live"
		case in.Unfinished:
			live = "unfinished load (the next load removes it)"
		}
		if in.Outdated {
			live = strings.TrimPrefix(live+", ", ", ") + "built by an older mediagw: load the catalogue again"
		}
		docs := fmt.Sprint(in.Docs)
		if in.Err != nil {
			docs = "? (" + in.Err.Error() + ")"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", in.Name, docs, live)
	}
	return tw.Flush()
}

func runRollback(ctx context.Context, e *env, args []string) error {
	if len(args) != 0 {
		return fmt.Errorf("%w: rollback takes no arguments", errUsage)
	}
	b, err := openAdmin(ctx, e)
	if err != nil {
		return err
	}
	defer b.Close()
	name, err := b.Rollback(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "%s is live again\n", name)
	return nil
}
