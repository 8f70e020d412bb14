package gateway

import (
	"bytes"
	"io"
	"strconv"
	"strings"
	"sync"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

// encoding is a content coding of a response body (RFC 9110, 8.4.1).
type encoding int

// The codings the gateway sends, identity first and then from the least to the most preferred:
// among codings a client accepts equally, zstd (the fastest to compress and to decode, and the
// smallest here) goes before brotli, and brotli before gzip.
const (
	identity encoding = iota
	encGzip
	encBrotli
	encZstd
	numEncodings
)

// String is the coding's name in Accept-Encoding and Content-Encoding.
func (e encoding) String() string {
	return [...]string{"identity", "gzip", "br", "zstd"}[e]
}

// acceptance is the q-value Accept-Encoding gives each coding the gateway can send; 0 is a refusal
// or no mention.
type acceptance [numEncodings]float64

// parseAcceptEncoding reads Accept-Encoding, where "gzip;q=0" is a refusal and "*" stands for
// every coding not named. Several header lines are one comma-separated list (RFC 9110, 5.3).
func parseAcceptEncoding(headers []string) acceptance {
	named := acceptance{}
	seen := [numEncodings]bool{}
	starQ := 0.0
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
			if !(q > 0) { // NaN and negatives refuse as 0 does
				q = 0
			}
			switch strings.ToLower(strings.TrimSpace(coding)) {
			case "gzip", "x-gzip":
				named[encGzip], seen[encGzip] = q, true
			case "br":
				named[encBrotli], seen[encBrotli] = q, true
			case "zstd":
				named[encZstd], seen[encZstd] = q, true
			case "*":
				starQ = q
			}
		}
	}
	for e := encGzip; e < numEncodings; e++ {
		if !seen[e] {
			named[e] = starQ
		}
	}
	return named
}

// best is the coding to send: the highest q-value, the most preferred among equals; identity
// when the client accepts none of them.
func (a acceptance) best() encoding {
	choice := identity
	for e := encGzip; e < numEncodings; e++ {
		if a[e] > 0 && a[e] >= a[choice] {
			choice = e
		}
	}
	return choice
}

// compressTo appends b, compressed with e (not identity), to buf. Every coding runs at its fastest
// level: the CPU is taken from a request's latency (or from the engine, when they share cores),
// and on a page of results gzip's fastest level costs far less than its default one for output a
// little larger (BenchmarkCompressEnvelope, docs/performance.md).
func compressTo(buf *bytes.Buffer, e encoding, b []byte) error {
	switch e {
	case encZstd:
		buf.Write(zstdEncoder().EncodeAll(b, buf.AvailableBuffer()))
		return nil
	case encBrotli:
		return streamTo(&brotliWriters, buf, b)
	default:
		return streamTo(&gzipWriters, buf, b)
	}
}

// resetWriter is a pooled compressor.
type resetWriter interface {
	io.WriteCloser
	Reset(io.Writer)
}

// gzipWriters and brotliWriters reuse compressors, whose state is far larger than most bodies.
var (
	gzipWriters = sync.Pool{New: func() any {
		zw, _ := gzip.NewWriterLevel(io.Discard, gzip.BestSpeed) // a valid level: no error
		return zw
	}}
	// Brotli's newer encoder at its fastest level: on a page of results its output is smaller than
	// the classic encoder's at level 1, about zstd's size, in no more time (BenchmarkCompressEnvelope).
	brotliWriters = sync.Pool{New: func() any { return brotli.NewWriterV2(io.Discard, 1) }}
)

func streamTo(pool *sync.Pool, buf *bytes.Buffer, b []byte) error {
	w := pool.Get().(resetWriter)
	defer pool.Put(w)
	w.Reset(buf)
	if _, err := w.Write(b); err != nil {
		return err
	}
	return w.Close()
}

// zstdEncoder is one encoder for every response: EncodeAll may be called concurrently. Its window
// is at most 8 MB, as the zstd content coding requires (RFC 9659) and browsers decode.
var zstdEncoder = sync.OnceValue(func() *zstd.Encoder {
	enc, _ := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithWindowSize(8<<20)) // valid options: no error
	return enc
})
