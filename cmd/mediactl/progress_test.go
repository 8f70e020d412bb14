package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"

	"mediagw/catalogue"
)

// openTerminal opens a pseudo-terminal: what mediactl writes to tty, the test reads from out.
func openTerminal(t *testing.T) (tty *os.File, out *bytes.Buffer, closeTTY func()) {
	t.Helper()
	ptm, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatalf("open a pseudo-terminal: %v", err)
	}
	if err := unix.IoctlSetPointerInt(int(ptm.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Fatalf("unlock the pseudo-terminal: %v", err)
	}
	n, err := unix.IoctlGetInt(int(ptm.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatalf("pseudo-terminal number: %v", err)
	}
	tty, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatalf("open the terminal side: %v", err)
	}
	out = &bytes.Buffer{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		io.Copy(out, ptm) //nolint:errcheck // ends with an error once the terminal side closes
	}()
	return tty, out, func() {
		tty.Close()
		<-done
		ptm.Close()
	}
}

// TestProgressOnlyOnATerminal runs gen, validate and load with standard error on a terminal, where
// each shows its progress, and on a pipe, where gen and validate show none.
func TestProgressOnlyOnATerminal(t *testing.T) {
	dir := t.TempDir()
	gz := filepath.Join(dir, "c.ndjson.gz")
	envs := map[string]string{"MEDIA_INDEX_DIR": filepath.Join(dir, "index")}
	getenv := func(k string) string { return envs[k] }
	for _, tc := range []struct {
		args []string
		what string
	}{
		{[]string{"gen", "-n", "3000", "-seed", "3", "-o", gz}, "generating"},
		{[]string{"validate", gz}, "validating"},
		{[]string{"load", gz}, "loading"},
	} {
		t.Run(tc.what, func(t *testing.T) {
			tty, shown, closeTTY := openTerminal(t)
			var stdout bytes.Buffer
			err := run(context.Background(), tc.args, getenv, &stdout, tty)
			closeTTY()
			if err != nil {
				t.Fatalf("%v on a terminal: %v\n%s", tc.args, err, shown)
			}
			if !strings.Contains(shown.String(), tc.what) || !strings.Contains(shown.String(), "%") {
				t.Errorf("%v on a terminal showed no progress: %q", tc.args, shown)
			}
			if tc.what == "loading" {
				return // a pipe gets load's log lines every few seconds instead, none in so short a load
			}
			r, w, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			var piped bytes.Buffer
			done := make(chan struct{})
			go func() {
				defer close(done)
				io.Copy(&piped, r) //nolint:errcheck // ends when the pipe closes
			}()
			err = run(context.Background(), tc.args, getenv, &stdout, w)
			w.Close()
			<-done
			r.Close()
			if err != nil {
				t.Fatalf("%v on a pipe: %v", tc.args, err)
			}
			if strings.Contains(piped.String(), tc.what) || strings.Contains(piped.String(), "\r") {
				t.Errorf("%v on a pipe showed progress: %q", tc.args, piped.String())
			}
		})
	}
}

// TestReadProgressFollowsTheItems: the share of the file validate and load show as read moves
// with the lines read, whether the file is compressed (its compressed bytes) or not.
func TestReadProgressFollowsTheItems(t *testing.T) {
	const n, every = 10_000, 500
	for _, name := range []string{"c.ndjson", "c.ndjson.gz"} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), name)
			if _, stderr, err := mediactl(t, nil, "gen", "-n", strconv.Itoa(n), "-seed", "3", "-o", path); err != nil {
				t.Fatalf("gen: %v\n%s", err, stderr)
			}
			src, err := openSource(t.Context(), &env{}, path)
			if err != nil {
				t.Fatal(err)
			}
			defer src.Close()
			m := readProgress("loading", src)
			for lines := 1; ; lines++ {
				_, err := src.reader.Next()
				if errors.Is(err, io.EOF) {
					break
				}
				var lerr *catalogue.LineError
				if err != nil && !errors.As(err, &lerr) {
					t.Fatal(err)
				}
				if lines%every != 0 {
					continue
				}
				// A read goes at most 64 KiB ahead of the lines: 3% of this gzipped file.
				shown, read := float64(m.done())/float64(m.total), float64(lines)/n
				if math.Abs(shown-read) > 0.05 {
					t.Errorf("after %d of %d lines, %.0f%% of the file shown as read", lines, n, 100*shown)
				}
			}
		})
	}
}
