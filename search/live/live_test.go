package live

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// backend stands for a backend's Version: it names version, or fails with err, and moves the
// tag it serves to nextTag as it answers, as an engine reads its rules with its version.
type backend struct {
	mu               sync.Mutex
	version, nextTag string
	err              error
	tag              string
}

func (b *backend) ask(context.Context) (string, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.tag = b.nextTag
	return b.version, b.err
}

func (b *backend) currentTag() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.tag
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

// TestNamedAndTagged: Current and Ask give the version with the tag read right after the answer,
// Named the version alone; both are unknown together, whether asked at every read or in the
// background.
func TestNamedAndTagged(t *testing.T) {
	failed := errors.New("engine down")
	tests := []struct {
		name           string
		every          time.Duration
		version, tag   string
		err            error
		current, named string
		ask            string
		askErr         bool
		noTag          bool
	}{
		{name: "local, no tag", version: "v1", noTag: true, current: "v1", named: "v1", ask: "v1"},
		{name: "local, tagged", version: "v1", tag: "+rules-ab", current: "v1+rules-ab", named: "v1", ask: "v1+rules-ab"},
		{name: "local, empty tag", version: "v1", current: "v1", named: "v1", ask: "v1"},
		{name: "local, failing", err: failed, current: "", named: "", askErr: true},
		{name: "background, tagged", every: time.Second, version: "v1", tag: "+rules-ab",
			current: "v1+rules-ab", named: "v1", ask: "v1+rules-ab"},
		{name: "background, failing", every: time.Second, err: failed, current: "", named: "", askErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := &backend{version: tt.version, nextTag: tt.tag, err: tt.err}
			clk := newClock()
			opts := Options{Every: tt.every, Now: clk.Now, Tag: b.currentTag}
			if tt.noTag {
				opts.Tag = nil
			}
			v := New(b.ask, opts)
			if tt.every > 0 {
				// Nothing held yet: unknown, and a question starts.
				if got := v.Named(); got != "" {
					t.Errorf("Named before any answer = %q, want unknown", got)
				}
				settle(t, v)
			}
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

// TestNamedFollowsTheBackend: a new version is read within Every of the question after it, a
// question that fails makes the version unknown, and Named never waits on a question.
func TestNamedFollowsTheBackend(t *testing.T) {
	const every = time.Second
	b := &backend{version: "v1", nextTag: "+rules-ab"}
	clk := newClock()
	v := New(b.ask, Options{Every: every, Now: clk.Now, Tag: b.currentTag})
	if got, err := v.Ask(t.Context()); err != nil || got != "v1+rules-ab" {
		t.Fatalf("Ask = %q, %v", got, err)
	}
	steps := []struct {
		name   string
		change func()
		wait   time.Duration
		named  string
		tagged string
	}{
		{"held while fresh", func() { b.version = "v2" }, every / 2, "v1", "v1+rules-ab"},
		{"read once Every old", func() {}, every / 2, "v2", "v2+rules-ab"},
		{"new tag", func() { b.nextTag = "+rules-cd" }, every, "v2", "v2+rules-cd"},
		{"failed question", func() { b.err = errors.New("engine down") }, every, "", ""},
		{"answered again", func() { b.err = nil }, every, "v2", "v2+rules-cd"},
	}
	for _, st := range steps {
		b.mu.Lock()
		st.change()
		b.mu.Unlock()
		clk.Add(int64(st.wait))
		v.Named() // starts the question when the answer held is Every old
		settle(t, v)
		if got := v.Named(); got != st.named {
			t.Errorf("%s: Named = %q, want %q", st.name, got, st.named)
		}
		if got, _ := v.Current(); got != st.tagged {
			t.Errorf("%s: Current = %q, want %q", st.name, got, st.tagged)
		}
	}
}
