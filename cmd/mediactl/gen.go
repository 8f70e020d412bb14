package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"mediagw/catalogue/gen"
)

func runGen(_ context.Context, e *env, args []string) error {
	if len(args) != 0 {
		return fmt.Errorf("%w: gen takes no arguments, got %q", errUsage, args)
	}
	if e.n < 10 || e.n > 10_000_000 {
		return fmt.Errorf("%w: -n must be from 10 to 10,000,000", errUsage)
	}
	if e.out == "" {
		return fmt.Errorf("%w: -o FILE is required (- for standard output)", errUsage)
	}
	start := time.Now()
	var written atomic.Int64
	stopProgress := progress(e, meter{what: "generating", total: int64(e.n), done: written.Load})
	defer stopProgress()
	if e.out == "-" {
		w := bufio.NewWriter(e.stdout)
		if err := gen.Generate(lineCounter{w, &written}, e.n, e.seed); err != nil {
			return err
		}
		return w.Flush()
	}
	if err := writeAtomically(e.out, func(w io.Writer) error {
		if strings.HasSuffix(e.out, ".gz") {
			zw, _ := gzip.NewWriterLevel(w, gzip.BestSpeed)
			if err := gen.Generate(lineCounter{zw, &written}, e.n, e.seed); err != nil {
				return err
			}
			return zw.Close()
		}
		return gen.Generate(lineCounter{w, &written}, e.n, e.seed)
	}); err != nil {
		return err
	}
	stopProgress()
	e.log.Sugar().Infof("wrote %d items to %s in %s", e.n, e.out, time.Since(start).Round(time.Millisecond))
	return nil
}

// lineCounter counts the lines written through it: the items, one a line.
type lineCounter struct {
	w io.Writer
	n *atomic.Int64
}

func (c lineCounter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n.Add(int64(bytes.Count(p[:n], []byte{'\n'})))
	return n, err
}

// writeAtomically writes path through a temporary file beside it, so that an interrupted run never
// leaves a truncated catalogue behind under the real name.
func writeAtomically(path string, write func(io.Writer) error) (err error) {
	if dir := filepath.Dir(path); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("create %s: %w", dir, err)
		}
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return fmt.Errorf("create %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	// CreateTemp makes the file its owner's alone; a catalogue is data others (a loader, a server's
	// user) read, as a file made by os.Create would be.
	if err := f.Chmod(0o644); err != nil {
		return fmt.Errorf("create %s: %w", path, err)
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	if err := write(bw); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := errors.Join(bw.Flush(), f.Sync(), f.Close()); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(f.Name(), path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
