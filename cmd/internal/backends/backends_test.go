package backends

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"mediagw/config"
	"mediagw/internal/servicetest"
	"mediagw/search"
	"mediagw/search/elastic"
	"mediagw/search/searchtest"
)

// TestEveryConfiguredBackendOpens: the names the configuration accepts are exactly those this
// package opens, so a name that passes config always opens.
func TestEveryConfiguredBackendOpens(t *testing.T) {
	got := slices.Sorted(maps.Keys(openers))
	if want := slices.Sorted(slices.Values(config.Backends)); !slices.Equal(got, want) {
		t.Errorf("openers for %v, config.Backends %v", got, want)
	}
}

// TestMaxInflight: the setting wins; left at 0, each backend sizes the bound from GOMAXPROCS.
func TestMaxInflight(t *testing.T) {
	procs := runtime.GOMAXPROCS(0)
	tests := []struct {
		backend string
		set     int
		want    int
	}{
		{config.BackendEmbedded, 0, 2 * procs},
		{config.BackendOpenSearch, 0, 8 * procs},
		{config.BackendEmbedded, 3, 3},
		{config.BackendOpenSearch, 3, 3},
		{config.BackendElasticsearch, 0, 8 * procs},
	}
	for _, tt := range tests {
		if got, err := MaxInflight(config.Config{Backend: tt.backend, MaxInflight: tt.set}); err != nil || got != tt.want {
			t.Errorf("MaxInflight(%s, %d) = %d, %v; want %d", tt.backend, tt.set, got, err, tt.want)
		}
	}
	for name, o := range openers {
		if o.inflightPerCPU < 1 {
			t.Errorf("backend %s has no inflightPerCPU", name)
		}
	}
	if _, err := MaxInflight(config.Config{Backend: "elastic"}); err == nil {
		t.Error("MaxInflight of an unknown backend: no error")
	}
}

func TestUnknownBackend(t *testing.T) {
	cfg := config.Config{Backend: "elastic"}
	if _, _, err := Open(t.Context(), cfg, zap.NewNop(), prometheus.NewRegistry(), 0); err == nil || !strings.Contains(err.Error(), `unknown backend "elastic"`) {
		t.Errorf("Open: %v, want unknown backend", err)
	}
	if _, err := OpenAdmin(t.Context(), cfg, zap.NewNop()); err == nil || !strings.Contains(err.Error(), `unknown backend "elastic"`) {
		t.Errorf("OpenAdmin: %v, want unknown backend", err)
	}
}

// TestEmbedded: with no index yet, serving fails saying how to build one; after the admin's load,
// the server answers from it.
func TestEmbedded(t *testing.T) {
	cfg := config.Config{Backend: config.BackendEmbedded, IndexDir: filepath.Join(t.TempDir(), "index"), KeepIndices: 1}
	if _, _, err := Open(t.Context(), cfg, zap.NewNop(), prometheus.NewRegistry(), 0); !errors.Is(err, search.ErrUnavailable) || !strings.Contains(err.Error(), "mediactl load") {
		t.Fatalf("Open without an index: %v, want search.ErrUnavailable saying to run mediactl load", err)
	}
	admin, err := OpenAdmin(t.Context(), cfg, zap.NewNop())
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	items := searchtest.Fixture(t)
	if _, err := admin.Load(t.Context(), search.Values(items)); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	b, closeBackend, err := Open(ctx, cfg, zap.NewNop(), prometheus.NewRegistry(), 0)
	if err != nil {
		t.Fatal(err)
	}
	defer closeBackend()
	res, err := b.Search(t.Context(), search.NewRequest(search.Query{Sort: search.SortNewest, Page: 1, PerPage: 1}))
	if err != nil || res.Total != len(items) {
		t.Errorf("Search: total %d, %v; want %d", res.Total, err, len(items))
	}
}

// TestEngineInfo: serving from an engine says which, and which version, in mediagw_engine_info.
func TestEngineInfo(t *testing.T) {
	e := servicetest.TestEngine(t)
	cfg := config.Config{Backend: e.Name, EngineURL: e.URL(t), EngineIndex: "media", BackendTimeout: 5 * time.Second}
	reg := prometheus.NewRegistry()
	_, closeBackend, err := Open(t.Context(), cfg, zap.NewNop(), reg, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer closeBackend()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() != "mediagw_engine_info" {
			continue
		}
		labels := map[string]string{}
		for _, l := range f.GetMetric()[0].GetLabel() {
			labels[l.GetName()] = l.GetValue()
		}
		if labels["engine"] != e.Product || labels["version"] == "" || f.GetMetric()[0].GetGauge().GetValue() != 1 {
			t.Errorf("mediagw_engine_info %v = %v, want engine %s and a version", labels, f.GetMetric()[0].GetGauge().GetValue(), e.Product)
		}
		return
	}
	t.Error("no mediagw_engine_info")
}

// TestEngineSettings: both engines take every engine setting alike, and the backend takes the
// configured alias and refuses a mapping file that is not an index definition, before contacting
// any engine.
func TestEngineSettings(t *testing.T) {
	for _, tt := range []struct {
		backend string
		product elastic.Product
	}{{config.BackendOpenSearch, elastic.OpenSearch}, {config.BackendElasticsearch, elastic.Elasticsearch}} {
		t.Run(tt.backend, func(t *testing.T) {
			cfg := config.Config{Backend: tt.backend, EngineURL: "http://127.0.0.1:1, http://127.0.0.1:2", EngineIndex: "some-alias",
				EngineDiscover: time.Minute, EngineAuth: config.EngineAuth{APIKey: "k", CAFile: "ca.pem"}}
			got := EngineConfig(cfg)
			if got.Product != tt.product || !slices.Equal(got.URLs, []string{"http://127.0.0.1:1", "http://127.0.0.1:2"}) ||
				got.Alias != "some-alias" || got.DiscoverInterval != time.Minute || got.APIKey != "k" || got.CAFile != "ca.pem" {
				t.Errorf("EngineConfig = %+v", got)
			}
			cfg.EngineAuth = config.EngineAuth{}
			b, err := Engine(cfg)
			if err != nil || b.Alias() != "some-alias" {
				t.Fatalf("alias %v, %v", b, err)
			}
			b.Close()
			cfg.EngineMapping = filepath.Join(t.TempDir(), "missing.json")
			if _, err := OpenAdmin(t.Context(), cfg, zap.NewNop()); err == nil || !strings.Contains(err.Error(), "mapping file") {
				t.Errorf("OpenAdmin with a missing mapping file: %v", err)
			}
		})
	}
}

// TestWaitIsNeverSilent: opening an engine backend against an address nothing listens on says,
// at once and every waitNote, that it waits and why, until its deadline, to serve (mediagw) and to
// manage (mediactl) alike.
func TestWaitIsNeverSilent(t *testing.T) {
	cfg := config.Config{Backend: config.BackendOpenSearch, EngineURL: "http://127.0.0.1:1", EngineIndex: "items"}
	opens := map[string]func(ctx context.Context, log *zap.Logger) error{
		"serve": func(ctx context.Context, log *zap.Logger) error {
			_, _, err := Open(ctx, cfg, log, prometheus.NewRegistry(), 0)
			return err
		},
		"admin": func(ctx context.Context, log *zap.Logger) error {
			_, err := OpenAdmin(ctx, cfg, log)
			return err
		},
	}
	for name, open := range opens {
		t.Run(name, func(t *testing.T) {
			core, logs := observer.New(zapcore.InfoLevel)
			ctx, cancel := context.WithTimeout(t.Context(), waitNote+waitNote/2)
			defer cancel()
			if err := open(ctx, zap.New(core)); err == nil {
				t.Fatal("opened an engine backend where nothing listens")
			}
			waits := logs.FilterMessage("waiting for the search engine").All()
			if len(waits) != 2 {
				t.Fatalf("logged %d waits in %s, want 2 (at once, then after %s): %v", len(waits), waitNote+waitNote/2, waitNote, logs.All())
			}
			for _, w := range waits {
				if !strings.Contains(fmt.Sprint(w.ContextMap()["error"]), "127.0.0.1:1") {
					t.Errorf("the wait's line does not say why: %v", w.ContextMap())
				}
			}
		})
	}
}

// TestDefinition: new indices get the operator's shards and replicas over the definition's, and
// the definition's own (1 and 0 built in) when neither is set.
func TestDefinition(t *testing.T) {
	tests := []struct {
		name                     string
		shards, replicas         int
		wantShards, wantReplicas int
	}{
		{"neither", 0, -1, 1, 0},
		{"both", 3, 1, 3, 1},
		{"replicas only", 0, 2, 1, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			def, err := Definition(config.Config{EngineShards: tt.shards, EngineReplicas: tt.replicas}, "")
			if err != nil {
				t.Fatal(err)
			}
			var d struct {
				Settings struct {
					Index struct {
						Shards   int `json:"number_of_shards"`
						Replicas int `json:"number_of_replicas"`
					} `json:"index"`
				} `json:"settings"`
			}
			if err := json.Unmarshal(def, &d); err != nil {
				t.Fatal(err)
			}
			if got := d.Settings.Index; got.Shards != tt.wantShards || got.Replicas != tt.wantReplicas {
				t.Errorf("shards %d, replicas %d; want %d, %d", got.Shards, got.Replicas, tt.wantShards, tt.wantReplicas)
			}
		})
	}
	if _, err := Definition(config.Config{EngineReplicas: -1}, filepath.Join(t.TempDir(), "missing.json")); err == nil {
		t.Error("a missing definition file: no error")
	}
}
