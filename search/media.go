package search

import (
	"strings"

	"mediagw/search/rights"
)

// FormatOther is the format of a media type the catalogue format does not name.
const FormatOther = "other"

// mimeFormats are the media formats of the catalogue format ("Media: format and duration"), by
// MIME type, in its order.
var mimeFormats = [][2]string{
	{"image/jpeg", "jpeg"}, {"image/png", "png"}, {"image/gif", "gif"}, {"image/tiff", "tiff"},
	{"image/webp", "webp"}, {"image/svg+xml", "svg"},
	{"video/mp4", "mp4"}, {"video/webm", "webm"}, {"video/ogg", "ogv"}, {"video/x-matroska", "mkv"},
	{"video/mpeg", "mpeg"}, {"video/quicktime", "mov"},
	{"audio/mpeg", "mp3"}, {"audio/ogg", "oga"},
	{"application/epub+zip", "epub"}, {"application/pdf", "pdf"}, {"text/html", "html"}, {"text/plain", "txt"},
}

// formats maps each MIME type of mimeFormats to its format.
var formats = func() map[string]string {
	m := make(map[string]string, len(mimeFormats))
	for _, mf := range mimeFormats {
		m[mf[0]] = mf[1]
	}
	return m
}()

// Formats lists every media format, in the catalogue format's order, FormatOther last.
var Formats = func() []string {
	out := make([]string, 0, len(mimeFormats)+1)
	for _, mf := range mimeFormats {
		out = append(out, mf[1])
	}
	return append(out, FormatOther)
}()

// Format is the media format of a MIME type, its parameters ignored: one of the catalogue
// format's, FormatOther for any other type, "" without one.
func Format(mimeType string) string {
	t, _, _ := strings.Cut(mimeType, ";")
	t = strings.ToLower(strings.TrimSpace(t))
	if t == "" {
		return ""
	}
	if f, ok := formats[t]; ok {
		return f
	}
	return FormatOther
}

// The duration buckets.
const (
	DurationShort  = "short"
	DurationMedium = "medium"
	DurationLong   = "long"
)

// Duration is the bucket of a running time in seconds: short under 4 minutes, medium from 4 to
// 20 minutes inclusive, long over 20; "" without one.
func Duration(seconds *float64) string {
	switch {
	case seconds == nil:
		return ""
	case *seconds < 240:
		return DurationShort
	case *seconds <= 1200:
		return DurationMedium
	}
	return DurationLong
}

// Derive sets what the item's catalogue values are read into: the licence of its rights
// statement, its media format and duration bucket. Every index document is built from a derived
// item, so that an index never holds them stale, whoever loads it.
func (it *Item) Derive() {
	it.MediaLicense = rights.Read(it.Rights)
	it.Format = Format(it.MimeType)
	it.Duration = Duration(it.DurationSeconds)
}
