package gateway

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/labstack/echo/v5"

	"mediagw/search/telemetry"
)

const (
	contentTypeJSON = "application/json; charset=utf-8"
	contentTypePNG  = "image/png"
)

// noStore marks a response no cache may keep: errors, 429 and health checks.
const noStore time.Duration = -1

// staleMaxAge is the max-age of a stale answer (served because the engine failed): short, so that
// clients ask again soon and get a fresh one once the engine is back.
const staleMaxAge = 5 * time.Second

// buffers reuses the buffers responses are encoded and compressed into. A buffer grown past
// maxPooledBuffer (an uncached authors list) goes to the collector instead, so the pool never
// pins megabytes.
var buffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

const maxPooledBuffer = 256 << 10

func getBuffer() *bytes.Buffer {
	b := buffers.Get().(*bytes.Buffer)
	b.Reset()
	return b
}

func putBuffer(b *bytes.Buffer) {
	if b.Cap() <= maxPooledBuffer {
		buffers.Put(b)
	}
}

// encodeJSON appends v to buf without HTML escaping, so links read "&" and not "\u0026".
func encodeJSON(buf *bytes.Buffer, v any) error {
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// reply is a complete response for send.
type reply struct {
	status      int
	contentType string
	body        []byte
	// maxAge is how long the client may keep the response, or noStore.
	maxAge time.Duration
	// compressible bodies are compressed for clients that accept it, from GzipMinSize bytes.
	compressible bool
	// kept, when set, is body encoded for many responses: its ETag and compressed forms are reused.
	kept *encodedBody
}

// send writes a complete response: the one place that sets Cache-Control, Cache-Status, Age, ETag,
// Vary and Content-Encoding, answers If-None-Match with 304, and leaves the body out for HEAD.
// maxAge noStore means not cacheable; a cacheable response also gets a weak ETag of its
// uncompressed bytes (weak, because compression changes the bytes but not the meaning: every
// encoding has the same).
func (g *Gateway) send(c *echo.Context, r reply) error {
	req, w := c.Request(), c.Response()
	h := w.Header()
	if note := state(c).origin; note != nil {
		o, noted := note.Get()
		h.Set("Cache-Status", cacheStatus(o, noted))
		if o.Stale {
			h.Set("Age", strconv.FormatInt(int64(o.Age/time.Second), 10))
			if r.maxAge != noStore {
				r.maxAge = min(r.maxAge, staleMaxAge)
			}
		}
	}
	if r.compressible {
		h.Add(echo.HeaderVary, echo.HeaderAcceptEncoding)
	}
	h.Set(echo.HeaderCacheControl, cacheControl(r.maxAge))
	if r.maxAge != noStore {
		var etag string
		if r.kept != nil {
			etag = r.kept.etag
		} else {
			etag = weakETag(r.body)
		}
		h.Set("ETag", etag)
		if etagMatches(req.Header.Values("If-None-Match"), etag) {
			w.WriteHeader(http.StatusNotModified)
			return nil
		}
	}
	body := r.body
	enc := identity
	if r.compressible && len(body) >= g.cfg.GzipMinSize {
		enc = parseAcceptEncoding(req.Header.Values(echo.HeaderAcceptEncoding)).best()
	}
	if enc != identity {
		var err error
		if r.kept != nil {
			body, err = r.kept.compressed(enc)
		} else {
			buf := getBuffer()
			defer putBuffer(buf)
			err = compressTo(buf, enc, body)
			body = buf.Bytes()
		}
		if err != nil {
			return internalError(fmt.Errorf("%s: %w", enc, err))
		}
		h.Set(echo.HeaderContentEncoding, enc.String())
	}
	h.Set(echo.HeaderContentType, r.contentType)
	h.Set(echo.HeaderContentLength, strconv.Itoa(len(body)))
	w.WriteHeader(r.status)
	if req.Method == http.MethodHead {
		return nil
	}
	_, err := w.Write(body)
	return err
}

// cacheControl is the Cache-Control of an answer browsers may keep for maxAge. Private, as every
// answer carries its visitor's RateLimit headers and its request's X-Request-Id: a shared cache
// (a CDN, a proxy) stores a response with its headers and would replay them to other visitors,
// and Vary cannot name a visitor. noStore is "no-store".
func cacheControl(maxAge time.Duration) string {
	if maxAge == noStore {
		return "no-store"
	}
	return "private, max-age=" + strconv.FormatInt(int64(maxAge/time.Second), 10)
}

// cacheStatus is the RFC 9211 Cache-Status of an answer from origin o; noted is false when nothing
// noted one, as when the gateway runs without a cache.
func cacheStatus(o telemetry.Origin, noted bool) string {
	switch {
	case !noted:
		return "mediagw; fwd=bypass"
	case o.Stale:
		return "mediagw; hit; detail=stale"
	case o.Cached:
		return "mediagw; hit"
	case o.Collapsed:
		return "mediagw; fwd=miss; collapsed"
	}
	return "mediagw; fwd=miss"
}

// encodedBody is a body served many times (a list resource, the OpenAPI document, a page): its
// ETag is computed once, and each compressed form once, when a client first asks for it.
type encodedBody struct {
	raw  []byte
	etag string
	// compressed holds one form per encoding; identity's stays unused.
	forms [numEncodings]compressedForm
}

type compressedForm struct {
	once sync.Once
	body []byte
	err  error
}

func newEncodedBody(raw []byte) *encodedBody {
	return &encodedBody{raw: raw, etag: weakETag(raw)}
}

// encodeBody encodes v into a body of its own (exactly sized, as it is kept).
func encodeBody(v any) (*encodedBody, error) {
	buf := getBuffer()
	defer putBuffer(buf)
	if err := encodeJSON(buf, v); err != nil {
		return nil, err
	}
	return newEncodedBody(bytes.Clone(buf.Bytes())), nil
}

// compressed is the body in encoding e, compressed on first use at the fastest level like every
// response: a higher level would make it a little smaller, but the first visitor after a reindex
// would wait for it (docs/performance.md).
func (e *encodedBody) compressed(enc encoding) ([]byte, error) {
	f := &e.forms[enc]
	f.once.Do(func() {
		buf := getBuffer()
		defer putBuffer(buf)
		if f.err = compressTo(buf, enc, e.raw); f.err == nil {
			f.body = bytes.Clone(buf.Bytes())
		}
	})
	return f.body, f.err
}

// reply is the response of e: JSON, compressible, cacheable for maxAge.
func (e *encodedBody) reply(maxAge time.Duration) reply {
	return reply{status: http.StatusOK, contentType: contentTypeJSON, body: e.raw, maxAge: maxAge, compressible: true, kept: e}
}

func weakETag(body []byte) string {
	sum := sha256.Sum256(body)
	var tag [len(`W/""`) + 32]byte
	copy(tag[:], `W/"`)
	hex.Encode(tag[3:35], sum[:16])
	tag[35] = '"'
	return string(tag[:])
}

// etagMatches applies If-None-Match's weak comparison: W/"x" and "x" match each other.
func etagMatches(headers []string, etag string) bool {
	want := strings.TrimPrefix(etag, "W/")
	for _, h := range headers {
		for tag := range strings.SplitSeq(h, ",") {
			tag = strings.TrimSpace(tag)
			if tag == "*" || strings.TrimPrefix(tag, "W/") == want {
				return true
			}
		}
	}
	return false
}

// sendJSON sends v as a successful JSON body, cacheable for maxAge.
func (g *Gateway) sendJSON(c *echo.Context, v any, maxAge time.Duration) error {
	buf := getBuffer()
	defer putBuffer(buf)
	if err := encodeJSON(buf, v); err != nil {
		return internalError(fmt.Errorf("encode body: %w", err))
	}
	return g.send(c, reply{status: http.StatusOK, contentType: contentTypeJSON, body: buf.Bytes(), maxAge: maxAge, compressible: true})
}
