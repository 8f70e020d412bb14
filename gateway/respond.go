package gateway

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/labstack/echo/v5"
)

const (
	contentTypeJSON = "application/json; charset=utf-8"
	contentTypePNG  = "image/png"
)

// noStore marks a response no cache may keep: errors, 429 and health checks.
const noStore time.Duration = -1

// encodeJSON encodes v without HTML escaping, so links read "&" and not "\u0026".
func encodeJSON(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// send writes a complete response: the one place that sets Cache-Control, ETag, Vary and
// Content-Encoding, answers If-None-Match with 304, and leaves the body out for HEAD. maxAge
// noStore means not cacheable; a cacheable response also gets a weak ETag of its uncompressed bytes
// (weak, because gzip changes the bytes but not the meaning).
func (g *Gateway) send(c *echo.Context, status int, contentType string, body []byte, maxAge time.Duration, compressible bool) error {
	req, w := c.Request(), c.Response()
	h := w.Header()
	if compressible {
		h.Add(echo.HeaderVary, echo.HeaderAcceptEncoding)
	}
	if maxAge == noStore {
		h.Set(echo.HeaderCacheControl, "no-store")
	} else {
		h.Set(echo.HeaderCacheControl, "public, max-age="+strconv.FormatInt(int64(maxAge/time.Second), 10))
		etag := weakETag(body)
		h.Set("ETag", etag)
		if etagMatches(req.Header.Values("If-None-Match"), etag) {
			w.WriteHeader(http.StatusNotModified)
			return nil
		}
	}
	if compressible && len(body) >= g.cfg.GzipMinSize && acceptsGzip(req.Header.Values(echo.HeaderAcceptEncoding)) {
		zipped, err := gzipBytes(body)
		if err != nil {
			return internalError(fmt.Errorf("gzip: %w", err))
		}
		body = zipped
		h.Set(echo.HeaderContentEncoding, "gzip")
	}
	h.Set(echo.HeaderContentType, contentType)
	h.Set(echo.HeaderContentLength, strconv.Itoa(len(body)))
	w.WriteHeader(status)
	if req.Method == http.MethodHead {
		return nil
	}
	_, err := w.Write(body)
	return err
}

// gzipWriters reuses compressors: each holds about a megabyte of state.
var gzipWriters = sync.Pool{New: func() any { return gzip.NewWriter(io.Discard) }}

func gzipBytes(b []byte) ([]byte, error) {
	var buf bytes.Buffer
	zw := gzipWriters.Get().(*gzip.Writer)
	defer gzipWriters.Put(zw)
	zw.Reset(&buf)
	if _, err := zw.Write(b); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func weakETag(body []byte) string {
	sum := sha256.Sum256(body)
	return `W/"` + hex.EncodeToString(sum[:16]) + `"`
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

// acceptsGzip reads Accept-Encoding, where "gzip;q=0" is a refusal and "*" accepts gzip unless
// gzip itself is refused.
func acceptsGzip(headers []string) bool {
	gzipQ, starQ := -1.0, -1.0
	for _, h := range headers {
		for part := range strings.SplitSeq(h, ",") {
			coding, params, _ := strings.Cut(part, ";")
			q := 1.0
			for p := range strings.SplitSeq(params, ";") {
				k, v, ok := strings.Cut(strings.TrimSpace(p), "=")
				if ok && strings.EqualFold(strings.TrimSpace(k), "q") {
					if f, err := strconv.ParseFloat(strings.TrimSpace(v), 64); err == nil {
						q = f
					}
				}
			}
			switch strings.ToLower(strings.TrimSpace(coding)) {
			case "gzip", "x-gzip":
				gzipQ = q
			case "*":
				starQ = q
			}
		}
	}
	if gzipQ >= 0 {
		return gzipQ > 0
	}
	return starQ > 0
}
