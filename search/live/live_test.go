package live

import (
	"context"
	"errors"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"mediagw/search/curation"
)

// backend stands for a backend's Version and its store of rules: it names version, or fails with
// err; it stores rules, or fails to read them with rulesErr; reads counts the reads.
type backend struct {
	mu       sync.Mutex
	version  string
	err      error
	rules    *curation.Rules
	rulesErr error
	reads    int
}

func (b *backend) ask(context.Context) (string, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.version, b.err
}

func (b *backend) readRules(_ context.Context, _ *curation.Rules) (*curation.Rules, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.reads++
	if b.rulesErr != nil {
		return nil, b.rulesErr
	}
	return b.rules, nil
}

func (b *backend) set(f func()) {
	b.mu.Lock()
	defer b.mu.Unlock()
	f()
}

func rules(t *testing.T, synonyms string) *curation.Rules {
	t.Helper()
	r, err := curation.Parse(curation.Files{Synonyms: synonyms})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// clock is a clock tests move: nanoseconds since the epoch.
type clock struct{ atomic.Int64 }

func newClock() *clock {
	c := &clock{}
	c.Store(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC).UnixNano())
	return c
}

func (c *clock) Now() time.Time { return time.Unix(0, c.Load()) }

// settle waits for the question Current may have started in the background.
func settle(t *testing.T, v *Version) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for v.Asking() {
		if time.Now().After(deadline) {
			t.Fatal("the background question never ended")
		}
		time.Sleep(time.Millisecond)
	}
}

// TestNamedAndTagged: Current and Ask give the version with the digest of the rules read beside
// it, Named the version alone; both are unknown together, whether asked at every read or in the
// background.
func TestNamedAndTagged(t *testing.T) {
	failed := errors.New("engine down")
	set := rules(t, "harbour, port")
	tag := "+rules-" + set.Digest()
	tests := []struct {
		name           string
		every          time.Duration
		version        string
		rules          *curation.Rules
		err            error
		current, named string
		ask            string
		askErr         bool
		noStore        bool
	}{
		{name: "local, no store", version: "v1", noStore: true, current: "v1", named: "v1", ask: "v1"},
		{name: "local, rules", version: "v1", rules: set, current: "v1" + tag, named: "v1", ask: "v1" + tag},
		{name: "local, no rules", version: "v1", rules: &curation.Rules{}, current: "v1", named: "v1", ask: "v1"},
		{name: "local, failing", err: failed, current: "", named: "", askErr: true},
		{name: "background, rules", every: time.Second, version: "v1", rules: set,
			current: "v1" + tag, named: "v1", ask: "v1" + tag},
		{name: "background, failing", every: time.Second, err: failed, current: "", named: "", askErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := &backend{version: tt.version, rules: tt.rules, err: tt.err}
			clk := newClock()
			opts := Options{Every: tt.every, Now: clk.Now, Rules: b.readRules}
			if tt.noStore {
				opts.Rules = nil
			}
			v := New(b.ask, opts)
			// Nothing held yet: with Every unknown; a question (or a read of the rules) starts.
			if got := v.Named(); tt.every > 0 && got != "" {
				t.Errorf("Named before any answer = %q, want unknown", got)
			}
			settle(t, v)
			if got, _ := v.Current(); got != tt.current {
				t.Errorf("Current = %q, want %q", got, tt.current)
			}
			if got := v.Named(); got != tt.named {
				t.Errorf("Named = %q, want %q", got, tt.named)
			}
			got, err := v.Ask(t.Context())
			if (err != nil) != tt.askErr || got != tt.ask {
				t.Errorf("Ask = %q, %v; want %q (error %v)", got, err, tt.ask, tt.askErr)
			}
		})
	}
}

// TestNamedFollowsTheBackend: a new version or set is read within Every of the question after
// it, a question that fails makes the version unknown, a read of the rules that fails keeps the
// set held and the version known, and Named never waits on a question.
func TestNamedFollowsTheBackend(t *testing.T) {
	const every = time.Second
	ab, cd := rules(t, "a, b"), rules(t, "c, d")
	b := &backend{version: "v1", rules: ab}
	clk := newClock()
	var heard []error
	v := New(b.ask, Options{Every: every, Now: clk.Now, Rules: b.readRules, RulesRead: func(err error) { heard = append(heard, err) }})
	if got, err := v.Ask(t.Context()); err != nil || got != "v1+rules-"+ab.Digest() {
		t.Fatalf("Ask = %q, %v", got, err)
	}
	denied := errors.New("403 forbidden")
	steps := []struct {
		name      string
		change    func()
		wait      time.Duration
		named     string
		tagged    string
		rulesErr  error
		curations *curation.Rules
	}{
		{"held while fresh", func() { b.version = "v2" }, every / 2, "v1", "v1+rules-" + ab.Digest(), nil, ab},
		{"read once Every old", func() {}, every / 2, "v2", "v2+rules-" + ab.Digest(), nil, ab},
		{"new set", func() { b.rules = cd }, every, "v2", "v2+rules-" + cd.Digest(), nil, cd},
		{"rules unreadable", func() { b.rulesErr, b.rules = denied, ab }, every, "v2", "v2+rules-" + cd.Digest(), denied, cd},
		{"failed question", func() { b.err = errors.New("engine down") }, every, "", "", denied, cd},
		{"answered again", func() { b.err, b.rulesErr = nil, nil }, every, "v2", "v2+rules-" + ab.Digest(), nil, ab},
	}
	for _, st := range steps {
		b.set(st.change)
		clk.Add(int64(st.wait))
		v.Named() // starts the question when the answer held is Every old
		settle(t, v)
		s := v.Snapshot()
		if s.Named != st.named || s.Version != st.tagged {
			t.Errorf("%s: Named %q, Version %q; want %q, %q", st.name, s.Named, s.Version, st.named, st.tagged)
		}
		if !errors.Is(s.RulesErr, st.rulesErr) || s.Rules != st.curations {
			t.Errorf("%s: rules %s, error %v; want %s, %v", st.name, s.Rules.Digest(), s.RulesErr, st.curations.Digest(), st.rulesErr)
		}
		if (s.RulesErr != nil) == s.RulesFailing.IsZero() {
			t.Errorf("%s: failing since %v with error %v", st.name, s.RulesFailing, s.RulesErr)
		}
	}
	if !slices.ContainsFunc(heard, func(err error) bool { return errors.Is(err, denied) }) || heard[len(heard)-1] != nil {
		t.Errorf("RulesRead heard %v; want the failure, then success", heard)
	}
}

// TestLocalReadsRulesEveryDefaultEvery: a version asked at every read has its rules read in the
// background once they are DefaultEvery old, not at every read.
func TestLocalReadsRulesEveryDefaultEvery(t *testing.T) {
	set := rules(t, "a, b")
	b := &backend{version: "v1", rules: set}
	clk := newClock()
	v := New(b.ask, Options{Now: clk.Now, Rules: b.readRules})
	v.Named()
	settle(t, v)
	for range 100 {
		if got, _ := v.Current(); got != "v1+rules-"+set.Digest() {
			t.Fatalf("Current = %q", got)
		}
	}
	settle(t, v)
	b.mu.Lock()
	reads := b.reads
	b.mu.Unlock()
	if reads != 1 {
		t.Errorf("%d reads of the rules in one DefaultEvery, want 1", reads)
	}
	clk.Add(int64(DefaultEvery))
	v.Named()
	settle(t, v)
	b.mu.Lock()
	reads = b.reads
	b.mu.Unlock()
	if reads != 2 {
		t.Errorf("%d reads after DefaultEvery, want 2", reads)
	}
}

// TestLanguagesOncePerVersion: the languages held are asked once per version, after the question
// that names it (in the background for a version asked at every read), unknown until then; a
// failed question leaves them unknown and is asked again DefaultEvery later.
func TestLanguagesOncePerVersion(t *testing.T) {
	for _, every := range []time.Duration{0, time.Second} {
		t.Run(every.String(), func(t *testing.T) {
			b := &backend{version: "v1"}
			var asked atomic.Int32
			var fail atomic.Bool
			held := []string{"de", "en"}
			languages := func(context.Context) ([]string, error) {
				asked.Add(1)
				if fail.Load() {
					return nil, errors.New("engine down")
				}
				b.mu.Lock()
				defer b.mu.Unlock()
				return slices.Clone(held), nil
			}
			clk := newClock()
			v := New(b.ask, Options{Every: every, Now: clk.Now, Languages: languages})
			if _, err := v.Ask(t.Context()); err != nil {
				t.Fatal(err)
			}
			steps := []struct {
				name   string
				change func()
				wait   time.Duration
				want   []string
				asked  int32
			}{
				{"known of the version", func() {}, 0, []string{"de", "en"}, 1},
				{"not asked again", func() {}, 3 * time.Second, []string{"de", "en"}, 1},
				{"unknown of a new version while asking fails", func() { b.version, held = "v2", []string{"fr"}; fail.Store(true) }, 3 * time.Second, nil, 2},
				{"not asked again within DefaultEvery", func() { fail.Store(false) }, DefaultEvery / 2, nil, 2},
				{"asked DefaultEvery later", func() {}, DefaultEvery, []string{"fr"}, 3},
			}
			for _, st := range steps {
				b.set(st.change)
				clk.Add(int64(st.wait))
				for range 2 {
					v.Named() // starts the questions due in the background
					settle(t, v)
				}
				if got := v.Snapshot().Languages.Values(); !slices.Equal(got, st.want) || asked.Load() != st.asked {
					t.Errorf("%s: languages %v, asked %d times; want %v, %d", st.name, got, asked.Load(), st.want, st.asked)
				}
			}
		})
	}
}
