package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"iter"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"mediagw/catalogue"
	"mediagw/cmd/internal/backends"
	"mediagw/search"
	"mediagw/search/rights"
)

// defaultMediaMaxMB bounds the media file hashed for a line: a large video, not a disk image.
const defaultMediaMaxMB = 4096

// catalogueFlags are the flags of the commands that read a catalogue: validate and load.
func catalogueFlags(fs *flag.FlagSet, e *env) {
	e.media.MaxBytes = defaultMediaMaxMB << 20
	fs.StringVar(&e.rejects, "rejects", "", "write bad lines, unchanged, to this file and go on with the good ones")
	fs.StringVar(&e.media.Dir, "media-dir", "", "directory a line's media_path must lie under (regular files; links may not leave it) to be hashed for its sha256; empty refuses every media_path")
	fs.Func("media-max-mb", fmt.Sprintf("largest media file hashed, in MiB; a larger one refuses its line (default %d)", defaultMediaMaxMB), func(v string) error {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 1 || n > 1<<40/(1<<20) {
			return errors.New("must be a whole number of MiB from 1 to 1048576")
		}
		e.media.MaxBytes = n << 20
		return nil
	})
}

// loadFlags are load's flags: those of the catalogue, and the guard against a worse catalogue
// going live (search.Guard).
func loadFlags(fs *flag.FlagSet, e *env) {
	catalogueFlags(fs, e)
	e.guard = search.DefaultGuard
	fs.BoolVar(&e.guard.AllowEmpty, "allow-empty", false, "let a catalogue with no items go live")
	fs.BoolFunc("allow-shrink", "let a catalogue with any number fewer items than the live one go live", func(string) error {
		e.guard.MaxShrink = 1
		return nil
	})
	fs.Func("max-shrink", fmt.Sprintf("largest share, in percent, by which the new catalogue may hold fewer items than the live one (default %g)", 100*search.DefaultGuard.MaxShrink),
		percentFlag(&e.guard.MaxShrink))
	fs.Func("max-rejected", fmt.Sprintf("largest share, in percent, of the lines read that -rejects may set aside (default %g)", 100*search.DefaultGuard.MaxRejected),
		percentFlag(&e.guard.MaxRejected))
}

// percentFlag parses a percentage from 0 to 100 ("5" or "5%") into share, from 0 to 1.
func percentFlag(share *float64) func(string) error {
	return func(v string) error {
		p, err := strconv.ParseFloat(strings.TrimSuffix(v, "%"), 64)
		if err != nil || p < 0 || p > 100 {
			return errors.New("must be a percentage from 0 to 100")
		}
		*share = p / 100
		return nil
	}
}

// source is an open catalogue file whose progress through its bytes (compressed ones for a .gz
// file) can be read while it loads.
type source struct {
	path   string
	size   int64
	read   atomic.Int64
	f      *os.File
	rc     io.ReadCloser
	reader *catalogue.Reader
}

// openSource opens the catalogue at path; hashing its lines' media files stops when ctx is done.
func openSource(ctx context.Context, e *env, path string) (*source, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open catalogue: %w", err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("open catalogue: %w", err)
	}
	s := &source{path: path, size: st.Size(), f: f}
	rc, err := catalogue.Decompress(countingReader{f, &s.read})
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("open catalogue %s: %w", path, err)
	}
	s.rc = rc
	s.reader = catalogue.NewReader(rc).WithMedia(ctx, e.media).WithMaxLine(e.cfg.CatalogueMaxLine)
	return s, nil
}

func (s *source) Close() error { return errors.Join(s.rc.Close(), s.f.Close()) }

// readStep bounds each read of the catalogue file, so that the bytes counted follow the items
// read: the readers above buffer a MiB each, half of a gzipped 10,000-item file in one read.
const readStep = 64 << 10

// countingReader counts the bytes read from the file, in reads of at most readStep.
type countingReader struct {
	r io.Reader
	n *atomic.Int64
}

func (c countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p[:min(len(p), readStep)])
	c.n.Add(int64(n))
	return n, err
}

// rejectSink opens the reject file when one is asked for.
func rejectSink(path string) (io.Writer, func() error, error) {
	if path == "" {
		return nil, func() error { return nil }, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, nil, fmt.Errorf("create reject file: %w", err)
	}
	return f, f.Close, nil
}

func summary(e *env, st catalogue.Stats) {
	fmt.Fprintf(e.stdout, "read %d lines: %d accepted, %d rejected\n", st.Lines, st.Accepted, st.Rejected)
	if st.Rejected > 0 && e.rejects != "" {
		fmt.Fprintf(e.stdout, "rejected lines written unchanged to %s\n", e.rejects)
	}
	if st.Unheld > 0 {
		fmt.Fprintf(e.stdout, "%d lines over the line bound of %d bytes (-catalogue-max-line) were refused unread, in no reject file: %s\n",
			st.Unheld, e.cfg.CatalogueMaxLine, lineNumbers(st.UnheldLines, st.Unheld))
	}
	for _, k := range st.UnknownKeyNames() {
		fmt.Fprintf(e.stdout, "key %q is not in the format: left out of the index (%d lines)\n", k, st.UnknownKeys[k])
	}
	if st.OtherUnknownKeys > 0 {
		fmt.Fprintf(e.stdout, "%d lines carried other keys outside the format, past the %d named: left out of the index\n",
			st.OtherUnknownKeys, catalogue.MaxUnknownKeys)
	}
	licenseSummary(e, st)
}

// topUnread is how many of the statements no rule reads the summary lists.
const topUnread = 10

// licenseSummary says how many accepted items got each licence id, and which statements no rule
// reads most items gave, so that an operator sees what to fix at the source.
func licenseSummary(e *env, st catalogue.Stats) {
	if st.Accepted == 0 {
		return
	}
	var counts []string
	for _, id := range rights.IDs {
		switch n := st.Licenses[id]; {
		case id == rights.Unknown && st.Unstated > 0:
			counts = append(counts, fmt.Sprintf("%s %d (%d without a statement)", id, n, st.Unstated))
		case n > 0:
			counts = append(counts, fmt.Sprintf("%s %d", id, n))
		}
	}
	fmt.Fprintf(e.stdout, "licences read from the rights statements: %s\n", strings.Join(counts, ", "))
	top := st.TopUnread(topUnread)
	if len(top) == 0 {
		return
	}
	fmt.Fprintf(e.stdout, "rights statements no rule reads (licence unknown), most items first:\n")
	for _, s := range top {
		fmt.Fprintf(e.stdout, "%8d  %q\n", s.Items, s.Text)
	}
}

// lineNumbers lists the numbers of lines, of total such lines: "line 3", "lines 3, 9 and 2 more".
func lineNumbers(lines []int, total int) string {
	parts := make([]string, len(lines))
	for i, n := range lines {
		parts[i] = strconv.Itoa(n)
	}
	s := "line "
	if total > 1 {
		s = "lines "
	}
	s += strings.Join(parts, ", ")
	if more := total - len(lines); more > 0 {
		s += fmt.Sprintf(" and %d more", more)
	}
	return s
}

func runValidate(ctx context.Context, e *env, args []string) error {
	path, err := oneFile(args)
	if err != nil {
		return err
	}
	src, err := openSource(ctx, e, path)
	if err != nil {
		return err
	}
	defer src.Close()
	rejects, closeRejects, err := rejectSink(e.rejects)
	if err != nil {
		return err
	}
	stopProgress := progress(e, readProgress("validating", src))
	defer stopProgress()
	for {
		_, err := src.reader.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		var lerr *catalogue.LineError
		if errors.As(err, &lerr) {
			fmt.Fprintf(e.stderr, "%s: %v\n", path, lerr)
			if rejects != nil {
				if err := src.reader.WriteReject(rejects); err != nil {
					return err
				}
			}
			continue
		}
		if err != nil {
			return err
		}
	}
	stopProgress()
	if err := closeRejects(); err != nil {
		return fmt.Errorf("write reject file: %w", err)
	}
	st := src.reader.Stats()
	summary(e, st)
	if st.Rejected > 0 {
		return fmt.Errorf("%s: %d of %d lines break the format", path, st.Rejected, st.Lines)
	}
	return nil
}

func runLoad(ctx context.Context, e *env, args []string) error {
	path, err := oneFile(args)
	if err != nil {
		return err
	}
	b, err := backends.OpenAdmin(ctx, e.cfg, e.log)
	if err != nil {
		return err
	}
	defer b.Close()
	src, err := openSource(ctx, e, path)
	if err != nil {
		return err
	}
	defer src.Close()
	rejects, closeRejects, err := rejectSink(e.rejects)
	if err != nil {
		return err
	}

	var loaded atomic.Int64
	items := counted(catalogue.Items(src.reader, rejects), &loaded)
	m := readProgress("loading", src)
	m.note = func(elapsed time.Duration) string {
		n := loaded.Load()
		return fmt.Sprintf("loading: %d items read (%.0f%% of the file, %.0f items/s)",
			n, 100*float64(src.read.Load())/float64(max(src.size, 1)), float64(n)/elapsed.Seconds())
	}
	stopProgress := progress(e, m)
	start := time.Now()
	guard := e.guard
	guard.Rejected = func() (int64, int64) {
		st := src.reader.Stats()
		return int64(st.Rejected), int64(st.Lines)
	}
	stats, err := b.LoadGuarded(ctx, items, guard)
	stopProgress()
	cerr := closeRejects()
	summary(e, src.reader.Stats())
	if errors.Is(err, search.ErrPrune) {
		// The new index is live; only the housekeeping failed.
		e.log.Sugar().Warnf("the load succeeded, but old indices were not removed: %v", err)
		err = nil
	}
	if cerr != nil {
		cerr = fmt.Errorf("write reject file %s: %w", e.rejects, cerr)
	}
	if err != nil {
		var lerr *catalogue.LineError
		if errors.As(err, &lerr) {
			return errors.Join(fmt.Errorf("%s: %v; nothing went live (-rejects FILE loads the good lines and sets the bad ones aside)", path, lerr), cerr)
		}
		if errors.Is(err, search.ErrWorse) {
			return errors.Join(fmt.Errorf("load %s: refused, %w; the live index is unchanged (%s)", path, err, guardAdvice(err)), cerr)
		}
		return errors.Join(fmt.Errorf("load %s: %w; the live index is unchanged", path, err), cerr)
	}
	if cerr != nil {
		// The rejected lines are not where the operator will look for them: a failure, live index or not.
		return fmt.Errorf("index %s is live with %d items, but %w", stats.Index, stats.Indexed, cerr)
	}
	took := time.Since(start)
	fmt.Fprintf(e.stdout, "index %s is live with %d items; took %s (%.0f items/s)\n",
		stats.Index, stats.Indexed, took.Round(time.Millisecond), float64(stats.Indexed)/took.Seconds())
	return nil
}

// guardAdvice names the flag that lets the version a guard refused with err go live.
func guardAdvice(err error) string {
	switch {
	case errors.Is(err, search.ErrRejected):
		return "-max-rejected PCT lets more refused lines through"
	case errors.Is(err, search.ErrEmpty):
		return "-allow-empty lets an empty catalogue go live"
	}
	return "-allow-shrink, or -max-shrink PCT, lets a smaller catalogue go live"
}

func counted(seq iter.Seq2[search.Item, error], n *atomic.Int64) iter.Seq2[search.Item, error] {
	return func(yield func(search.Item, error) bool) {
		for it, err := range seq {
			if err == nil {
				n.Add(1)
			}
			if !yield(it, err) {
				return
			}
		}
	}
}

// meter is what a progress display follows: done() of total, counted in bytes or in items.
type meter struct {
	what  string
	total int64
	bytes bool
	done  func() int64
	// note, when not nil, is logged every few seconds where no bar can be shown (not a terminal);
	// without it nothing is shown there.
	note func(elapsed time.Duration) string
}

// progress shows a bar of m on a terminal, and m's note every few seconds otherwise; the returned
// function stops it (once; later calls do nothing).
func progress(e *env, m meter) func() {
	stop := make(chan struct{})
	finished := make(chan struct{})
	tty := false
	if f, ok := e.stderr.(*os.File); ok {
		tty = term.IsTerminal(int(f.Fd()))
	}
	if !tty && m.note == nil {
		return func() {}
	}
	go func() {
		defer close(finished)
		if tty {
			bar := progressbar.NewOptions64(m.total, progressbar.OptionSetWriter(e.stderr),
				progressbar.OptionSetDescription(m.what), progressbar.OptionShowBytes(m.bytes),
				progressbar.OptionShowCount(), progressbar.OptionSetRenderBlankState(true),
				progressbar.OptionThrottle(200*time.Millisecond), progressbar.OptionClearOnFinish())
			tick := time.NewTicker(200 * time.Millisecond)
			defer tick.Stop()
			for {
				select {
				case <-stop:
					bar.Finish() //nolint:errcheck // cosmetic
					return
				case <-tick.C:
					bar.Set64(m.done()) //nolint:errcheck // cosmetic
				}
			}
		}
		start := time.Now()
		tick := time.NewTicker(5 * time.Second)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
				e.log.Sugar().Info(m.note(time.Since(start)))
			}
		}
	}()
	var once sync.Once
	return func() {
		once.Do(func() {
			close(stop)
			<-finished
		})
	}
}

// readProgress follows the reading of a catalogue file, in bytes.
func readProgress(what string, src *source) meter {
	return meter{what: what, total: src.size, bytes: true, done: src.read.Load}
}
