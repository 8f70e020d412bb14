package elastic

// The engine transport: how a request reaches a node and its answer comes back. The HTTP
// transport (connections, TLS and its CA file), the two clients (writes sent once, reads sent to
// another node when one gives no answer), authentication (basic or an API key) and node
// discovery; the deadline every call gets, searches asked again when an answer lacks shards, and
// answers decoded from pooled buffers.

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"reflect"
	"strconv"
	"sync"
	"time"

	gojson "github.com/goccy/go-json"
	"github.com/opensearch-project/opensearch-go/v4"
	"github.com/opensearch-project/opensearch-go/v4/opensearchapi"
)

// newClients makes the client of writes and the client of reads of cfg, whose defaults are set,
// on its Transport or one of NewTransport.
func newClients(cfg Config) (client, reads *opensearchapi.Client, err error) {
	tr := cfg.Transport
	if tr == nil {
		t, err := NewTransport(cfg)
		if err != nil {
			return nil, nil, err
		}
		tr = t
	}
	base := opensearch.Config{Addresses: cfg.URLs, Transport: tr, DiscoverNodesInterval: max(cfg.DiscoverInterval, 0),
		Username: cfg.Username, Password: cfg.Password}
	if cfg.APIKey != "" {
		base.Header = http.Header{"Authorization": {"ApiKey " + cfg.APIKey}}
	}
	if cfg.DiscoverInterval > 0 {
		discover := true
		base.DiscoverNodesOnStart = &discover
	}
	writes := base
	writes.DisableRetry = true
	client, err = opensearchapi.NewClient(opensearchapi.Config{Client: writes})
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", cfg.Product, err)
	}
	// A read that reached no node, or a node that could not serve it, may succeed on another at
	// once; one that is merely slow would only double the load, and the deadline bounds it anyway.
	readCfg := base
	if cfg.ReadRetries < 0 {
		readCfg.DisableRetry = true
	} else {
		readCfg.MaxRetries = cfg.ReadRetries
		readCfg.RetryOnStatus = []int{http.StatusBadGateway, http.StatusServiceUnavailable}
	}
	reads, err = opensearchapi.NewClient(opensearchapi.Config{Client: readCfg})
	if err != nil {
		client.Close()
		return nil, nil, fmt.Errorf("%s: %w", cfg.Product, err)
	}
	return client, reads, nil
}

// NewTransport is the HTTP transport the backend uses when cfg brings none (Config.Transport):
// keep-alive connections sized by MaxConns, compressed answers only when asked for, and the CA
// file's authorities trusted. A proxy in front of the engine (bench.Passthrough) uses it too.
func NewTransport(cfg Config) (*http.Transport, error) {
	cfg = cfg.withDefaults()
	var tlsConfig *tls.Config
	if cfg.CAFile != "" {
		pem, err := os.ReadFile(cfg.CAFile)
		if err != nil {
			return nil, fmt.Errorf("%s: CA file: %w", cfg.Product, err)
		}
		pool, err := x509.SystemCertPool()
		if err != nil {
			pool = x509.NewCertPool()
		}
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("%s: CA file %s: no PEM certificate in it", cfg.Product, cfg.CAFile)
		}
		tlsConfig = &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	}
	return &http.Transport{
		TLSClientConfig:       tlsConfig,
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConns:          cfg.MaxConns * len(cfg.URLs),
		MaxIdleConnsPerHost:   cfg.MaxConns,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   5 * time.Second,
		ExpectContinueTimeout: time.Second,
		ForceAttemptHTTP2:     true,
		DisableCompression:    !cfg.Compression,
		// Room for a whole page of hits and a whole search body: net/http's 4 KiB made two
		// system calls of nearly every answer (the first 4 KiB, then the rest) and of the
		// bodies of searches of three words.
		ReadBufferSize:  64 << 10,
		WriteBufferSize: 16 << 10,
	}, nil
}

// bound gives ctx the default deadline when it has none, so no call can hang.
func (b *Backend) bound(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	if _, ok := ctx.Deadline(); ok {
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(ctx, d)
}

// statusOf is the HTTP status of a response, 0 when there was none.
func statusOf(r *opensearch.Response) int {
	if r == nil {
		return 0
	}
	return r.StatusCode
}

// answerStatus is the HTTP status of a typed answer of the client, 0 when there was none.
func answerStatus[R interface{ Inspect() opensearchapi.Inspect }](resp *R) int {
	if resp == nil {
		return 0
	}
	return statusOf((*resp).Inspect().Response)
}

// failed classifies the error of a client call (see classify) by the status of its answer.
func failed[R interface{ Inspect() opensearchapi.Inspect }](ctx context.Context, engine Product, op string, resp *R, err error) error {
	return classify(ctx, engine, op, answerStatus(resp), err)
}

func jsonBody(v any) *bytes.Reader {
	b, err := json.Marshal(v)
	if err != nil {
		// Bodies are built from maps of strings and numbers; they always encode.
		panic(fmt.Sprintf("engine: encode request: %v", err))
	}
	return bytes.NewReader(b)
}

// doSearch sends one request body (built by requests.go, as the load harness's direct baseline
// is) to the alias's _search, and decodes the answer into out, a pointer to a struct. An answer
// that lacks shards (a node holding a copy went away during the search) is asked for again, up to
// ReadRetries times: by then the engine reads the shard's other copy.
func (b *Backend) doSearch(ctx context.Context, op string, body []byte, err error, out interface{ failure(Product, string) error }) error {
	if err != nil {
		return fmt.Errorf("%s %s: encode request: %w", b.name(), op, err)
	}
	return b.doSearchIn(ctx, b.cfg.Alias, op, body, out)
}

// doSearchIn is doSearch of an encoded body, sent to index (an index or the alias).
func (b *Backend) doSearchIn(ctx context.Context, index, op string, body []byte, out interface{ failure(Product, string) error }) error {
	ctx, cancel := b.bound(ctx, b.cfg.Timeout)
	defer cancel()
	for attempt := 0; ; attempt++ {
		err := b.searchOnce(ctx, index, op, body, out)
		if !b.askAgain(ctx, attempt, err) {
			return err
		}
		reflect.ValueOf(out).Elem().SetZero()
	}
}

// askAgain reports whether a search whose attempt (from 0) failed with err is sent again: its
// answer lacked shards, and ReadRetries allows another attempt in time.
func (b *Backend) askAgain(ctx context.Context, attempt int, err error) bool {
	var ee *EngineError
	return errors.As(err, &ee) && ee.shardFailure && attempt < b.cfg.ReadRetries && ctx.Err() == nil
}

func (b *Backend) searchOnce(ctx context.Context, index, op string, body []byte, out interface{ failure(Product, string) error }) error {
	req := &opensearchapi.SearchReq{Indices: []string{index}, Body: bytes.NewReader(body)}
	if err := b.read(ctx, op, req, out); err != nil {
		return err
	}
	return out.failure(b.name(), op)
}

// read sends req, a read, and decodes its answer into out; an error answer is classified (classify).
func (b *Backend) read(ctx context.Context, op string, req opensearch.Request, out any) error {
	resp, err := b.stream(ctx, req)
	if err == nil && resp.IsError() {
		err = opensearch.ParseError(resp)
	}
	if err != nil {
		return classify(ctx, b.name(), op, statusOf(resp), err)
	}
	if err := decodeBody(resp, out); err != nil {
		return fmt.Errorf("%s %s: decode answer: %w", b.name(), op, err)
	}
	return nil
}

// stream sends req, a read, and returns the answer with its body unread. The client's Do would
// read every answer into a new buffer of its size (authors lists are a megabyte), which
// decodeBody then copies into a pooled one.
func (b *Backend) stream(ctx context.Context, req opensearch.Request) (*opensearch.Response, error) {
	hreq, err := req.GetRequest(http.MethodPost)
	if err != nil {
		return nil, err
	}
	res, err := b.reads.Client.Stream(hreq.WithContext(ctx))
	if res == nil {
		return nil, err
	}
	resp := &opensearch.Response{StatusCode: res.StatusCode, Header: res.Header, Body: res.Body}
	if err != nil {
		res.Body.Close()
	}
	return resp, err
}

// ndjson is the content type of an _msearch body.
var ndjson = http.Header{"Content-Type": {"application/x-ndjson"}}

// multiAnswer is the answer to an _msearch of searches: each one's answer, or its error.
type multiAnswer struct {
	Responses []struct {
		pageAnswer
		// Status and Error are those of a search that failed.
		Status int             `json:"status"`
		Error  *opensearch.Err `json:"error"`
	} `json:"responses"`
}

// doMultiSearch sends an _msearch body of n searches of the alias and returns their answers in
// order, sending it again as doSearch does when an answer lacks shards. A search's error is the
// whole call's, classified as doSearch's would be.
func (b *Backend) doMultiSearch(ctx context.Context, op string, body []byte, err error, n int) ([]pageAnswer, error) {
	if err != nil {
		return nil, fmt.Errorf("%s %s: encode request: %w", b.name(), op, err)
	}
	ctx, cancel := b.bound(ctx, b.cfg.Timeout)
	defer cancel()
	for attempt := 0; ; attempt++ {
		answers, err := b.multiSearchOnce(ctx, op, body, n)
		if !b.askAgain(ctx, attempt, err) {
			return answers, err
		}
	}
}

func (b *Backend) multiSearchOnce(ctx context.Context, op string, body []byte, n int) ([]pageAnswer, error) {
	req := &opensearchapi.MSearchReq{Indices: []string{b.cfg.Alias}, Body: bytes.NewReader(body), Header: ndjson}
	var a multiAnswer
	if err := b.read(ctx, op, req, &a); err != nil {
		return nil, err
	}
	if len(a.Responses) != n {
		return nil, fmt.Errorf("%s %s: %d answers to %d searches", b.name(), op, len(a.Responses), n)
	}
	out := make([]pageAnswer, n)
	for i, r := range a.Responses {
		if r.Error != nil {
			return nil, classify(ctx, b.name(), op, r.Status, &opensearch.StructError{Err: *r.Error, Status: r.Status})
		}
		if err := r.failure(b.name(), op); err != nil {
			return nil, err
		}
		out[i] = r.pageAnswer
	}
	return out, nil
}

// answerBufs hold answers while they are decoded; decoding copies what it keeps.
var answerBufs = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// maxPooledAnswer bounds the buffers kept for reuse: a page of 10,000 authors is about 600 KB.
const maxPooledAnswer = 2 << 20

// decodeBody decodes the JSON body of an answer into v and closes it. It decodes with go-json,
// faster than encoding/json, since decoding the engine's answers is a large part of the gateway's
// CPU per uncached search.
func decodeBody(resp *opensearch.Response, v any) error {
	defer resp.Body.Close()
	buf := answerBufs.Get().(*bytes.Buffer)
	defer func() {
		if buf.Cap() <= maxPooledAnswer {
			buf.Reset()
			answerBufs.Put(buf)
		}
	}()
	// An answer of known length is read into room for all of it: an authors list's partitions
	// are megabytes, which growing the buffer by doubling copies and clears again (OpenSearch
	// says the length; Elasticsearch sends its answers in chunks).
	if n, err := strconv.Atoi(resp.Header.Get("Content-Length")); err == nil && n > 0 && n <= maxAnswerRoom {
		buf.Grow(n + bytes.MinRead)
	}
	if _, err := buf.ReadFrom(resp.Body); err != nil {
		return err
	}
	return gojson.Unmarshal(buf.Bytes(), v)
}

// maxAnswerRoom bounds the room made for an answer of the length it announces.
const maxAnswerRoom = 64 << 20
