package redisconn

import (
	"errors"
	"net/url"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestParseURL(t *testing.T) {
	pool := 10 * runtime.GOMAXPROCS(0)
	tests := []struct {
		url   string
		check func(t *testing.T, c Config)
	}{
		{"redis://127.0.0.1:6379/0", func(t *testing.T, c Config) {
			o := c.Single
			if o == nil || o.Addr != "127.0.0.1:6379" || o.DB != 0 || o.TLSConfig != nil {
				t.Fatalf("got %+v", c)
			}
			if o.ReadTimeout != 100*time.Millisecond || o.WriteTimeout != 100*time.Millisecond ||
				o.DialTimeout != 250*time.Millisecond || o.PoolSize != pool || !o.ContextTimeoutEnabled ||
				o.DialerRetries != 1 || o.MaxRetries != 1 {
				t.Errorf("defaults not applied: read %s write %s dial %s pool %d ctx %v dials %d retries %d",
					o.ReadTimeout, o.WriteTimeout, o.DialTimeout, o.PoolSize, o.ContextTimeoutEnabled, o.DialerRetries, o.MaxRetries)
			}
		}},
		{"rediss://user:pw@cache.example:6380/2?pool_size=5&read_timeout=1s&max_retries=-1", func(t *testing.T, c Config) {
			o := c.Single
			if o == nil || o.Addr != "cache.example:6380" || o.DB != 2 || o.TLSConfig == nil ||
				o.Username != "user" || o.Password != "pw" || o.PoolSize != 5 || o.ReadTimeout != time.Second || o.MaxRetries != -1 {
				t.Fatalf("got %+v", c.Single)
			}
		}},
		{"unix:///run/redis.sock?db=3", func(t *testing.T, c Config) {
			if o := c.Single; o == nil || o.Network != "unix" || o.Addr != "/run/redis.sock" || o.DB != 3 {
				t.Fatalf("got %+v", c.Single)
			}
		}},
		{"redis://s0:26379/1?master_name=mymaster&addr=s1:26379&password=pw", func(t *testing.T, c Config) {
			o := c.Sentinel
			if o == nil || o.MasterName != "mymaster" || o.DB != 1 || o.Password != "pw" ||
				!slices.Equal(o.SentinelAddrs, []string{"s0:26379", "s1:26379"}) || !o.ContextTimeoutEnabled || o.PoolSize != pool ||
				o.DialerRetries != 1 || o.MaxRetries != 1 {
				t.Fatalf("got %+v", c)
			}
		}},
		{"redis+cluster://n0:6379?addr=n1:6379&addr=n2:6379", func(t *testing.T, c Config) {
			o := c.Cluster
			if o == nil || !slices.Equal(o.Addrs, []string{"n0:6379", "n1:6379", "n2:6379"}) || o.TLSConfig != nil ||
				!o.ContextTimeoutEnabled || o.ReadTimeout != 100*time.Millisecond || o.DialerRetries != 1 || o.MaxRetries != 0 {
				t.Fatalf("got %+v", c)
			}
		}},
		// Hosts separated by commas, as OPENSEARCH_URL takes them.
		{"redis+cluster://n0:7000,n1:7001,n2:7002?addr=n3:7003", func(t *testing.T, c Config) {
			if o := c.Cluster; o == nil || !slices.Equal(o.Addrs, []string{"n0:7000", "n3:7003", "n1:7001", "n2:7002"}) {
				t.Fatalf("got %+v", c)
			}
		}},
		{"redis://u:pw@s0:26379,s1:26380/2?master_name=m", func(t *testing.T, c Config) {
			o := c.Sentinel
			if o == nil || o.MasterName != "m" || o.DB != 2 || o.SentinelUsername != "u" || o.SentinelPassword != "pw" ||
				!slices.Equal(o.SentinelAddrs, []string{"s0:26379", "s1:26380"}) {
				t.Fatalf("got %+v", c)
			}
		}},
		{"rediss+cluster://n0?addr=n1:7000&dialer_retries=3", func(t *testing.T, c Config) {
			if o := c.Cluster; o == nil || o.TLSConfig == nil || !slices.Equal(o.Addrs, []string{"n0:6379", "n1:7000"}) || o.DialerRetries != 3 {
				t.Fatalf("got %+v", c)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.url, func(t *testing.T) {
			c, err := ParseURL(tt.url)
			if err != nil {
				t.Fatal(err)
			}
			tt.check(t, c)
		})
	}
}

func TestParseURLRejects(t *testing.T) {
	for _, raw := range []string{
		"",
		"127.0.0.1:6379",
		"http://127.0.0.1:6379",
		"redis-sentinel://s0:26379?master_name=m",
		"redis://h?bogus=1",
		"redis://h/not-a-db",
		"redis://h?master_name=",
		"redis://h?master_name=m&route_randomly=true",
		"redis+cluster://h/0?master_name=m",
		"redis://user:sekrit-pass@[::1:bad/0",
		"redis://user:sekrit-pass@h0:6379,h1:6379/0", // several hosts but no master_name
		"redis+cluster://n0?addr=n1",                 // go-redis gives an addr option no port
		"redis+cluster://n0:7000,n1,n2:7002",
		"redis://s0?master_name=m&addr=:26379",
	} {
		t.Run(raw, func(t *testing.T) {
			_, err := ParseURL(raw)
			if !errors.Is(err, ErrInvalidURL) {
				t.Fatalf("got %v, want ErrInvalidURL", err)
			}
			if strings.Contains(err.Error(), "sekrit") {
				t.Fatalf("error shows the password: %v", err)
			}
		})
	}
}

func FuzzParseURL(f *testing.F) {
	for _, s := range []string{
		"redis://127.0.0.1:6379/0", "rediss://u:p@h:1/2?pool_size=5", "unix:///s?db=1",
		"redis://s0/1?master_name=m&addr=s1:1", "redis+cluster://n0?addr=n1:1", "redis://u:secret@h:x",
		"redis://h?master_name=m&replica_only=1", "redis://h?dial_timeout=-1",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		c, err := ParseURL(raw)
		if err != nil {
			if !errors.Is(err, ErrInvalidURL) {
				t.Fatalf("error %v does not wrap ErrInvalidURL", err)
			}
			if u, perr := url.Parse(raw); perr == nil {
				if pw, ok := u.User.Password(); ok && len(pw) >= 6 && strings.Count(raw, pw) == 1 &&
					strings.Contains(err.Error(), pw) {
					t.Fatalf("error %q shows the password", err)
				}
			}
			return
		}
		set := 0
		for _, p := range []bool{c.Single != nil, c.Cluster != nil, c.Sentinel != nil} {
			if p {
				set++
			}
		}
		if set != 1 {
			t.Fatalf("%d configurations set, want 1: %+v", set, c)
		}
		c.NewClient().Close()
	})
}
