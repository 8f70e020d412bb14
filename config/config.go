// Package config is the one place the binaries read their settings: environment variables, each
// mirrored by a command-line flag that overrides it, validated once at start-up.
package config

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/netip"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"mediagw/querylog"
	"mediagw/ratelimit"
	"mediagw/redisconn"
)

// Config holds every setting of mediagw and mediactl.
type Config struct {
	Addr      string
	AdminAddr string
	// Pprof says whether the admin listener serves Go's profiler.
	Pprof bool
	// MaxConns and MaxConnsPerIP cap the public listener's open connections (0: no cap);
	// HeaderTimeout, ReadTimeout and MaxHeaderBytes bound what one request may make the server read.
	MaxConns       int
	MaxConnsPerIP  int
	HeaderTimeout  time.Duration
	ReadTimeout    time.Duration
	MaxHeaderBytes int
	// Backend is one of Backends.
	Backend  string
	IndexDir string
	// EngineURL (comma-separated nodes) and EngineIndex (the alias) say where the search engine
	// is, OpenSearch or Elasticsearch alike: one group of settings serves both.
	EngineURL   string
	EngineIndex string
	// EngineMapping is an operator's own index definition file; empty means the built-in one.
	EngineMapping string
	// EngineShards and EngineReplicas override the definition's number_of_shards (0 keeps it)
	// and number_of_replicas (-1 keeps it) for new indices.
	EngineShards   int
	EngineReplicas int
	// EngineDiscover is how often the client asks the cluster for its nodes; 0 never.
	EngineDiscover time.Duration
	// EngineAuth is the engine's credentials and CA file.
	EngineAuth EngineAuth
	RedisURL   string
	RateLimit  int
	RateWindow time.Duration
	// RatePolicies is the operator's file of networks with rate limits of their own
	// (ratelimit.ParsePolicies); empty means none.
	RatePolicies string
	// QueryLogTop is how many queries each bucket of the query log counts (querylog.Options.Top);
	// 0 keeps no query text. QueryLogWindow is how far back the log reaches.
	QueryLogTop    int
	QueryLogWindow time.Duration
	TrustedProxies []netip.Prefix
	PublicURL      string
	BasePath       string
	Attribution    string
	// DemoAPIs are the origins (scheme://host[:port]) the search page may be pointed at with ?api=,
	// besides its own.
	DemoAPIs       []string
	BackendTimeout time.Duration
	// Cache says whether answers are cached in memory (search/cache); CacheTTL is how long a search
	// or item answer is kept.
	Cache    bool
	CacheTTL time.Duration
	// StaleMax is how long past CacheTTL a cached answer is still served when the engine fails.
	StaleMax time.Duration
	// BreakerFailures is how many engine failures in a row open the circuit breaker (0: none);
	// BreakerOpen how long it stays open before a call probes the engine.
	BreakerFailures int
	BreakerOpen     time.Duration
	// MaxInflight bounds the engine calls running at once (search/admit); 0 sizes it from
	// GOMAXPROCS by the backend (cmd/internal/backends). AdmitWait is how long a call past it
	// waits for a slot before the client gets 503.
	MaxInflight int
	AdmitWait   time.Duration
	// CacheMaxMB bounds the cache's answers in MiB; 0 derives it from the memory limit.
	CacheMaxMB    int
	ShutdownGrace time.Duration
	// ShutdownDelay is how long readiness fails before the listener closes, so that load balancers
	// stop sending traffic first.
	ShutdownDelay time.Duration
	// KeepIndices is how many replaced indices a load keeps for rollback; 0 keeps none.
	KeepIndices int
	// CatalogueMaxLine is the longest catalogue line mediactl validate and load read, in bytes.
	CatalogueMaxLine int
	LogLevel         string
}

// EngineAuth is how the gateway and mediactl prove who they are to a search engine, and which
// authorities sign its HTTPS certificates. User info in the engine's URL serves as well.
type EngineAuth struct {
	Username, Password string
	// APIKey is an Elasticsearch API key (its "encoded" form), sent as "Authorization: ApiKey ...".
	APIKey string
	// CAFile is a PEM file of certificate authorities trusted besides the system's.
	CAFile string
}

// The backends' names; cmd/internal/backends opens each of them.
const (
	BackendEmbedded      = "embedded"
	BackendOpenSearch    = "opensearch"
	BackendElasticsearch = "elasticsearch"
)

// Backends lists the names MEDIA_BACKEND takes.
var Backends = []string{BackendEmbedded, BackendOpenSearch, BackendElasticsearch}

// The range of MEDIA_CATALOGUE_MAX_LINE: a lower bound would refuse ordinary items, a higher one
// would let the loader holding a line and its decoded fields outgrow a load Job's memory.
const (
	minCatalogueLine = 64 << 10
	maxCatalogueLine = 16 << 20
)

// Setting describes one setting: its variable, flag, default and meaning.
type Setting struct {
	Env, Flag, Default, Usage string
	set                       func(c *Config, v string) error
}

// Settings lists every setting in the order the README documents them. Defaults are string
// literals, which the README's table and deploy's tests read from this file; where a package owns
// the value (the backend's name, elastic.DefaultAlias, search.DefaultKeep, search.DefaultTimeout,
// ratelimit.DefaultPolicy, querylog.DefaultTop and DefaultWindow, breaker.DefaultFailures and DefaultOpenFor, cache.DefaultTTL,
// admit.DefaultWait), TestDefaultsOfTheirOwners holds the literal equal to it.
var Settings = []Setting{
	{"MEDIA_ADDR", "addr", ":8080", "address the public API listens on",
		func(c *Config, v string) error { c.Addr = v; return checkAddr(v) }},
	{"MEDIA_ADMIN_ADDR", "admin-addr", "127.0.0.1:9090", "address of the admin listener (/metrics, and pprof with MEDIA_PPROF); keep it private",
		func(c *Config, v string) error { c.AdminAddr = v; return checkAddr(v) }},
	{"MEDIA_PPROF", "pprof", "off", "on serves Go's profiler (/debug/pprof/, its command line redacted) on the admin listener; off answers it 404",
		func(c *Config, v string) error { return onOff(v, &c.Pprof) }},
	{"MEDIA_MAX_CONNS", "max-conns", "4096", "open connections the public listener holds; past it an idle keep-alive connection is closed to make room, else the new one is closed at once; 0 no cap",
		func(c *Config, v string) error { return nonNegativeInt(v, &c.MaxConns) }},
	{"MEDIA_MAX_CONNS_PER_IP", "max-conns-per-ip", "128", "open connections per client address (an IPv6 /64); past it the new one is closed at once. A trusted proxy's connections count only in MEDIA_MAX_CONNS; 0 no cap",
		func(c *Config, v string) error { return nonNegativeInt(v, &c.MaxConnsPerIP) }},
	{"MEDIA_HEADER_TIMEOUT", "header-timeout", "5s", "how long a client may take to send a request line and its headers; then the connection is closed",
		func(c *Config, v string) error { return positiveDuration(v, &c.HeaderTimeout) }},
	{"MEDIA_READ_TIMEOUT", "read-timeout", "10s", "how long a client may take to send a whole request; the API refuses bodies, so this bounds what a refused body can hold a connection for",
		func(c *Config, v string) error { return positiveDuration(v, &c.ReadTimeout) }},
	{"MEDIA_MAX_HEADER_BYTES", "max-header-bytes", "32768", "bytes of request line and headers read from one request (Go reads 4,096 more); past it the answer is 431. At least 24576, for the longest query the API reads",
		func(c *Config, v string) error {
			// The longest query the API reads (params.MaxBytes) must fit, with room for headers.
			if err := positiveInt(v, &c.MaxHeaderBytes); err != nil || c.MaxHeaderBytes < 24<<10 {
				return errors.New("must be a whole number >= 24576")
			}
			return nil
		}},
	{"MEDIA_BACKEND", "backend", "embedded", "search backend: embedded (Bleve index on disk), opensearch (2.x, 3.x) or elasticsearch (8.x, 9.x)",
		func(c *Config, v string) error {
			if !slices.Contains(Backends, v) {
				return fmt.Errorf("must be %s", strings.Join(Backends, ", "))
			}
			c.Backend = v
			return nil
		}},
	{"MEDIA_INDEX_DIR", "index-dir", "var/index", "directory of the embedded index versions",
		func(c *Config, v string) error { c.IndexDir = v; return nonEmpty(v) }},
	{"MEDIA_ENGINE_URL", "engine-url", "http://127.0.0.1:9200", "base URL of the search engine, OpenSearch or Elasticsearch (comma-separated for several nodes)",
		func(c *Config, v string) error { c.EngineURL = v; return checkURLs(v) }},
	{"MEDIA_ENGINE_INDEX", "engine-index", "media", "the engine's alias the API reads; loads create <alias>-<timestamp> behind it",
		func(c *Config, v string) error { c.EngineIndex = v; return nonEmpty(v) }},
	{"MEDIA_ENGINE_MAPPING", "engine-mapping", "", "index settings and mappings file for new indices; empty uses the built-in search/elastic/mappings/items.json",
		func(c *Config, v string) error { c.EngineMapping = v; return nil }},
	{"MEDIA_ENGINE_SHARDS", "engine-shards", "0", "primary shards of each new index (number_of_shards); 0 keeps the definition's (1 built in)",
		func(c *Config, v string) error { return nonNegativeInt(v, &c.EngineShards) }},
	{"MEDIA_ENGINE_REPLICAS", "engine-replicas", "", "replicas of each shard of a new index (number_of_replicas), such as 1 on a cluster of 2 or more nodes; empty keeps the definition's (0 built in)",
		func(c *Config, v string) error {
			if v == "" {
				c.EngineReplicas = -1
				return nil
			}
			return nonNegativeInt(v, &c.EngineReplicas)
		}},
	{"MEDIA_ENGINE_DISCOVER", "engine-discover", "0", "how often to ask the engine for its nodes (sniffing: at start, then at this interval) and spread requests over them; 0 uses only the URLs given. Only where the nodes' own addresses are reachable",
		func(c *Config, v string) error { return nonNegativeDuration(v, &c.EngineDiscover) }},
	{"MEDIA_ENGINE_USERNAME", "engine-username", "", "user name for HTTP basic authentication to the engine (Elasticsearch's users, OpenSearch's security plugin's internal users)",
		func(c *Config, v string) error { c.EngineAuth.Username = v; return nil }},
	{"MEDIA_ENGINE_PASSWORD", "engine-password", "", "password of MEDIA_ENGINE_USERNAME",
		func(c *Config, v string) error { c.EngineAuth.Password = v; return nil }},
	{"MEDIA_ENGINE_API_KEY", "engine-api-key", "", "API key sent as Authorization: ApiKey (Elasticsearch's encoded form), instead of a user name and password",
		func(c *Config, v string) error { c.EngineAuth.APIKey = v; return nil }},
	{"MEDIA_ENGINE_CA_FILE", "engine-ca-file", "", "PEM file of the certificate authorities that sign the engine's HTTPS certificates (such as Elasticsearch's http_ca.crt), trusted besides the system's",
		func(c *Config, v string) error { c.EngineAuth.CAFile = v; return nil }},
	{"REDIS_URL", "redis-url", "", "Redis for the shared rate limit (redis://, rediss://, unix://, Sentinel with ?master_name=, redis+cluster://); empty keeps the limit in process",
		func(c *Config, v string) error {
			c.RedisURL = v
			if v == "" {
				return nil
			}
			return parseHidden(v, func(s string) error { _, err := redisconn.ParseURL(s); return err })
		}},
	{"MEDIA_RATE_LIMIT", "rate-limit", "120", "requests per visitor per window",
		func(c *Config, v string) error { return positiveInt(v, &c.RateLimit) }},
	{"MEDIA_RATE_WINDOW", "rate-window", "10m", "rate-limit window, at least 1s",
		func(c *Config, v string) error {
			// The policy's own bound: the headers state the window in whole seconds.
			if err := positiveDuration(v, &c.RateWindow); err != nil || c.RateWindow < ratelimit.MinWindow {
				return fmt.Errorf("must be a duration of at least %s such as 10m", ratelimit.MinWindow)
			}
			return nil
		}},
	{"MEDIA_RATE_LIMIT_POLICIES", "rate-limit-policies", "", "file of networks (CIDR ranges) with rate limits of their own, read again within seconds of a change (README: Networks with allowances of their own); empty: every visitor has MEDIA_RATE_LIMIT",
		func(c *Config, v string) error { c.RatePolicies = v; return nil }},
	{"MEDIA_QUERY_LOG_TOP", "query-log-top", "1000", "distinct queries the query log counts per 24th of its window, of all searches and of those that found nothing, shared in Redis (mediactl queries); a count is within 1/this of the window's searches. 0 keeps no query text (the counters on /metrics only), as does an empty REDIS_URL",
		func(c *Config, v string) error {
			if err := nonNegativeInt(v, &c.QueryLogTop); err != nil || c.QueryLogTop > querylog.MaxTop {
				return fmt.Errorf("must be a whole number from 0 to %d", querylog.MaxTop)
			}
			return nil
		}},
	{"MEDIA_QUERY_LOG_WINDOW", "query-log-window", "24h", "how far back the query log reaches: Redis keeps its counts that long (in 24 buckets, each gone a bucket after its window); at least 24s",
		func(c *Config, v string) error {
			if err := positiveDuration(v, &c.QueryLogWindow); err != nil || c.QueryLogWindow < querylog.MinWindow {
				return fmt.Errorf("must be a duration of at least %s such as 24h", querylog.MinWindow)
			}
			return nil
		}},
	{"MEDIA_TRUSTED_PROXIES", "trusted-proxies", "", "comma-separated IPs or CIDRs whose X-Forwarded-For is believed",
		func(c *Config, v string) error {
			p, err := ParsePrefixes(v)
			c.TrustedProxies = p
			return err
		}},
	{"MEDIA_PUBLIC_URL", "public-url", "http://127.0.0.1:8080", "public base URL used in links, permalinks and QR codes; unset, it follows MEDIA_ADDR (http://, loopback for a wildcard host)",
		func(c *Config, v string) error {
			u, err := url.Parse(v)
			// No user info either: links would hand it to every visitor (gateway.Config rejects it too).
			if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil ||
				u.RawQuery != "" || u.Fragment != "" {
				return errors.New("must be an absolute http(s) URL without user info, query or fragment")
			}
			c.PublicURL = strings.TrimRight(v, "/")
			return nil
		}},
	{"MEDIA_BASE_PATH", "base-path", "/", "path the API answers on",
		func(c *Config, v string) error {
			if !strings.HasPrefix(v, "/") || strings.ContainsAny(v, "?#") {
				return errors.New("must start with / and have no query or fragment")
			}
			if !strings.HasSuffix(v, "/") {
				v += "/"
			}
			c.BasePath = v
			return nil
		}},
	{"MEDIA_ATTRIBUTION", "attribution", "Catalogue metadata: CC0 1.0, from the collections credited in each item's source.", "attribution text in every response",
		func(c *Config, v string) error { c.Attribution = v; return nil }},
	{"MEDIA_DEMO_APIS", "demo-apis", "", "comma-separated origins (https://host[:port]) the search page at {base}demo/ may call when its URL says ?api=, besides its own; any other ?api= is refused",
		func(c *Config, v string) error {
			c.DemoAPIs = nil
			for _, part := range SplitList(v) {
				u, err := url.Parse(part)
				if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil ||
					strings.Trim(u.Path, "/") != "" || u.RawQuery != "" || u.Fragment != "" {
					return fmt.Errorf("%q is not an origin such as https://api.example.org", part)
				}
				c.DemoAPIs = append(c.DemoAPIs, u.Scheme+"://"+strings.ToLower(u.Host))
			}
			return nil
		}},
	{"MEDIA_BACKEND_TIMEOUT", "backend-timeout", "5s", "deadline of one search-engine call; past it the client gets 504",
		func(c *Config, v string) error { return positiveDuration(v, &c.BackendTimeout) }},
	{"MEDIA_CACHE", "cache", "on", "on caches answers in memory per index version (categories, authors, recent searches and items) and shares identical concurrent engine calls; off asks the engine every time",
		func(c *Config, v string) error { return onOff(v, &c.Cache) }},
	{"MEDIA_CACHE_TTL", "cache-ttl", "5m", "how long a cached search or item answer is served; a new index version drops it at once",
		func(c *Config, v string) error { return positiveDuration(v, &c.CacheTTL) }},
	{"MEDIA_STALE_MAX", "stale-max", "10m", "how long past its TTL a cached answer is still served, marked stale, when the search engine fails or times out; 0 serves none",
		func(c *Config, v string) error { return nonNegativeDuration(v, &c.StaleMax) }},
	{"MEDIA_BREAKER_FAILURES", "breaker-failures", "5", "search-engine timeouts or connection failures in a row that open the circuit breaker: then requests without a stale answer get 503 at once, and /readyz fails; 0 turns it off",
		func(c *Config, v string) error { return nonNegativeInt(v, &c.BreakerFailures) }},
	{"MEDIA_BREAKER_OPEN", "breaker-open", "5s", "how long the open circuit breaker fails requests at once before one request probes the search engine; its answer closes the breaker",
		func(c *Config, v string) error { return positiveDuration(v, &c.BreakerOpen) }},
	{"MEDIA_MAX_INFLIGHT", "max-inflight", "0", "engine calls (searches, completions, related, corrections, counts) that may run at once; past it a call waits MEDIA_ADMIT_WAIT for a slot, then the client gets 503 with Retry-After. Items, cached answers and /healthz, /readyz, /metrics are never held. 0: 2 x GOMAXPROCS on the embedded index, 8 x GOMAXPROCS on OpenSearch or Elasticsearch",
		func(c *Config, v string) error { return nonNegativeInt(v, &c.MaxInflight) }},
	{"MEDIA_ADMIT_WAIT", "admit-wait", "10ms", "how long an engine call past MEDIA_MAX_INFLIGHT waits for a slot before it is refused",
		func(c *Config, v string) error { return positiveDuration(v, &c.AdmitWait) }},
	{"MEDIA_CACHE_MAX_MB", "cache-max-mb", "0", "memory the cached search and item answers may hold, in MiB; 0: an eighth of the Go memory limit (GOMEMLIMIT, else 90% of the container's memory limit), or 64 without one",
		func(c *Config, v string) error { return nonNegativeInt(v, &c.CacheMaxMB) }},
	{"MEDIA_SHUTDOWN_GRACE", "shutdown-grace", "25s", "how long in-flight requests may finish after SIGTERM",
		func(c *Config, v string) error { return positiveDuration(v, &c.ShutdownGrace) }},
	{"MEDIA_SHUTDOWN_DELAY", "shutdown-delay", "5s", "how long /readyz fails before the listener closes on SIGTERM",
		func(c *Config, v string) error { return nonNegativeDuration(v, &c.ShutdownDelay) }},
	{"MEDIA_KEEP_INDICES", "keep-indices", "2", "replaced indices a load keeps for rollback; 0 keeps none",
		func(c *Config, v string) error { return nonNegativeInt(v, &c.KeepIndices) }},
	{"MEDIA_CATALOGUE_MAX_LINE", "catalogue-max-line", "1048576", fmt.Sprintf("longest catalogue line, in bytes without its line ending, that mediactl validate and load read; a longer one is refused with its number and skipped without being held whole. %d to %d, which keeps a load within its memory", minCatalogueLine, maxCatalogueLine),
		func(c *Config, v string) error {
			if err := positiveInt(v, &c.CatalogueMaxLine); err != nil || c.CatalogueMaxLine < minCatalogueLine || c.CatalogueMaxLine > maxCatalogueLine {
				return fmt.Errorf("must be a whole number of bytes from %d to %d", minCatalogueLine, maxCatalogueLine)
			}
			return nil
		}},
	{"MEDIA_LOG_LEVEL", "log-level", "info", "debug, info, warn or error",
		func(c *Config, v string) error {
			switch v {
			case "debug", "info", "warn", "error":
				c.LogLevel = v
				return nil
			}
			return errors.New("must be debug, info, warn or error")
		}},
}

// Alias is an older name of a setting that is still read: Env stands for Of when MEDIA_BACKEND is
// one of Backends. Where the setting's own name is given too, the two must agree.
type Alias struct {
	Env, Of  string
	Backends []string
}

// Aliases are the names the engine settings had when each engine had its own group: OPENSEARCH_*
// for OpenSearch (and the embedded backend, whose benchmark baseline is OpenSearch),
// ELASTICSEARCH_* for Elasticsearch, OPENSEARCH_MAPPING for every backend. The README lists them.
var Aliases = func() []Alias {
	openSearch := []string{BackendOpenSearch, BackendEmbedded}
	elasticsearch := []string{BackendElasticsearch}
	var out []Alias
	for _, suffix := range []string{"URL", "INDEX", "DISCOVER", "USERNAME", "PASSWORD", "CA_FILE"} {
		out = append(out, Alias{"OPENSEARCH_" + suffix, "MEDIA_ENGINE_" + suffix, openSearch})
	}
	for _, suffix := range []string{"URL", "INDEX", "USERNAME", "PASSWORD", "API_KEY", "CA_FILE"} {
		out = append(out, Alias{"ELASTICSEARCH_" + suffix, "MEDIA_ENGINE_" + suffix, elasticsearch})
	}
	return append(out, Alias{"OPENSEARCH_MAPPING", "MEDIA_ENGINE_MAPPING", Backends})
}()

// Load reads the settings from getenv, then from args (flags override variables), and validates
// them. It returns the remaining arguments. The error names the setting and what is wrong with it.
func Load(name string, args []string, getenv func(string) string, output io.Writer) (Config, []string, error) {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(output)
	build := Register(fs, getenv)
	if err := fs.Parse(args); err != nil {
		return Config{}, nil, err
	}
	c, err := build()
	return c, fs.Args(), err
}

// Register adds a flag for every setting to fs, defaulting to its variable from getenv, so that a
// command can add flags of its own. After fs.Parse, the returned function validates and builds the Config.
func Register(fs *flag.FlagSet, getenv func(string) string) func() (Config, error) {
	values := make([]string, len(Settings))
	for i, s := range Settings {
		v := getenv(s.Env)
		if v == "" {
			v = s.Default
		}
		values[i] = v
		fs.StringVar(&values[i], s.Flag, v, fmt.Sprintf("%s (env %s)", s.Usage, s.Env))
		// -h and a flag error print the defaults, which come from the environment.
		fs.Lookup(s.Flag).DefValue = RedactSetting(s.Env, v)
	}
	return func() (Config, error) {
		flagged := map[string]bool{}
		fs.Visit(func(f *flag.Flag) { flagged[f.Name] = true })
		names, err := resolveAliases(values, flagged, getenv)
		if err != nil {
			return Config{}, err
		}
		var c Config
		for i, s := range Settings {
			if err := s.set(&c, values[i]); err != nil {
				return Config{}, fmt.Errorf("invalid %s %q: %w", names[s.Env], RedactSetting(s.Env, values[i]), err)
			}
		}
		if !flagged["public-url"] && getenv("MEDIA_PUBLIC_URL") == "" {
			c.PublicURL = publicURLOf(c.Addr)
		}
		if err := c.EngineAuth.check(); err != nil {
			return Config{}, fmt.Errorf("invalid %s, %s, %s: %w", names["MEDIA_ENGINE_USERNAME"], names["MEDIA_ENGINE_PASSWORD"],
				names["MEDIA_ENGINE_API_KEY"], err)
		}
		return c, nil
	}
}

// publicURLOf is the base URL links name when MEDIA_PUBLIC_URL is not set: the listen address,
// with loopback for a wildcard host, so that links work on the machine that serves them.
func publicURLOf(addr string) string {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "http://127.0.0.1:8080"
	}
	if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
		host = "127.0.0.1"
	}
	return "http://" + net.JoinHostPort(host, port)
}

// resolveAliases puts the value of each alias that applies to the configured backend in values,
// where the setting's own variable (from getenv) and flag (in flagged) left it unset, and refuses
// an alias whose value differs from the one given. It returns each setting's name for errors: the
// variable and the flag, or the alias the value came from.
func resolveAliases(values []string, flagged map[string]bool, getenv func(string) string) (map[string]string, error) {
	index := make(map[string]int, len(Settings))
	names := make(map[string]string, len(Settings))
	given := make(map[string]bool, len(Settings))
	for i, s := range Settings {
		index[s.Env] = i
		names[s.Env] = fmt.Sprintf("%s (-%s)", s.Env, s.Flag)
		given[s.Env] = flagged[s.Flag] || getenv(s.Env) != ""
	}
	backend := values[index["MEDIA_BACKEND"]]
	for _, a := range Aliases {
		v := getenv(a.Env)
		if v == "" || !slices.Contains(a.Backends, backend) {
			continue
		}
		i := index[a.Of]
		if given[a.Of] && values[i] != v {
			return nil, fmt.Errorf("%s and its old name %s disagree (%q, %q): set %s only", names[a.Of], a.Env,
				RedactSetting(a.Of, values[i]), RedactSetting(a.Of, v), a.Of)
		}
		values[i], given[a.Of] = v, true
		names[a.Of] = fmt.Sprintf("%s (old name of %s)", a.Env, names[a.Of])
	}
	return names, nil
}

// ParsePrefixes parses a comma-separated list of IP addresses and CIDR prefixes.
func ParsePrefixes(s string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, part := range SplitList(s) {
		if strings.Contains(part, "/") {
			p, err := netip.ParsePrefix(part)
			if err != nil {
				return nil, fmt.Errorf("%q is not an IP or CIDR", part)
			}
			if p.Addr().Is4In6() {
				// Visitors' IPv4-mapped addresses are read as IPv4 (gateway/visitor.go): so is the prefix.
				if p.Bits() < 96 {
					return nil, fmt.Errorf("%q mixes IPv4-mapped and other IPv6 addresses: write its IPv4 part as an IPv4 CIDR", part)
				}
				p = netip.PrefixFrom(p.Addr().Unmap(), p.Bits()-96)
			}
			out = append(out, p.Masked())
			continue
		}
		a, err := netip.ParseAddr(part)
		if err != nil {
			return nil, fmt.Errorf("%q is not an IP or CIDR", part)
		}
		a = a.Unmap()
		out = append(out, netip.PrefixFrom(a, a.BitLen()))
	}
	return out, nil
}

// check says what is missing or too much: a user name without a password or the reverse, or both
// a user name and an API key (one of them would be ignored).
func (a EngineAuth) check() error {
	switch {
	case (a.Username == "") != (a.Password == ""):
		return errors.New("a user name and a password go together")
	case a.Username != "" && a.APIKey != "":
		return errors.New("use either a user name and password or an API key")
	}
	return nil
}

func checkAddr(v string) error {
	if _, _, err := net.SplitHostPort(v); err != nil {
		return errors.New("must be host:port or :port")
	}
	return nil
}

// checkURLs checks a comma-separated list of absolute URLs, split as its users split it (SplitList).
// An error quotes the bad part redacted: a part that does not parse may hold user info.
func checkURLs(v string) error {
	parts := SplitList(v)
	if len(parts) == 0 {
		return errors.New("must list at least one absolute URL")
	}
	for i, p := range parts {
		u, err := url.Parse(p)
		if err == nil && u.Scheme != "" && u.Host != "" {
			continue
		}
		if userinfoEnd(parts, i) > i {
			// The comma after p may be inside a password: hide all of p past its "//".
			return fmt.Errorf("%q is not an absolute URL (a comma in a user name or password must be written %%2C)", maskAfterScheme(p))
		}
		shown, _ := redactPart(p)
		return fmt.Errorf("%q is not an absolute URL", shown)
	}
	return nil
}

func nonEmpty(v string) error {
	if strings.TrimSpace(v) == "" {
		return errors.New("must not be empty")
	}
	return nil
}

func positiveInt(v string, dst *int) error {
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		return errors.New("must be a whole number >= 1")
	}
	*dst = n
	return nil
}

func nonNegativeInt(v string, dst *int) error {
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return errors.New("must be a whole number >= 0")
	}
	*dst = n
	return nil
}

func positiveDuration(v string, dst *time.Duration) error {
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		return errors.New("must be a positive duration such as 500ms, 10s or 10m")
	}
	*dst = d
	return nil
}

func nonNegativeDuration(v string, dst *time.Duration) error {
	d, err := time.ParseDuration(v)
	if err != nil || d < 0 {
		return errors.New("must be a duration such as 0s, 5s or 1m")
	}
	*dst = d
	return nil
}

// onOff reads a switch: on or off.
func onOff(v string, dst *bool) error {
	switch v {
	case "on", "off":
		*dst = v == "on"
		return nil
	}
	return errors.New("must be on or off")
}

// RedactArgs is a command line fit to show: the value of a secret setting's flag (-flag v or
// -flag=v) hidden whole, every other argument as Redact hides it (the user info of URLs).
func RedactArgs(args []string) []string {
	out := make([]string, len(args))
	hideNext := false
	for i, a := range args {
		name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		secret := strings.HasPrefix(a, "-") && slices.ContainsFunc(Settings, func(s Setting) bool {
			return s.Flag == name && slices.Contains(secretSettings, s.Env)
		})
		switch {
		case hideNext:
			out[i], hideNext = redacted, false
		case secret && hasValue:
			out[i] = a[:len(a)-len(value)] + redacted
		case secret:
			out[i], hideNext = a, true
		case strings.HasPrefix(a, "-") && hasValue:
			out[i] = a[:len(a)-len(value)] + Redact(value)
		default:
			out[i] = Redact(a)
		}
	}
	return out
}
