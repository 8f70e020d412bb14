package search

import (
	"testing"

	"mediagw/search/rights"
)

func TestFormat(t *testing.T) {
	cases := map[string]string{
		"": "", " ": "",
		"image/jpeg": "jpeg", "image/png": "png", "image/gif": "gif", "image/tiff": "tiff",
		"image/webp": "webp", "image/svg+xml": "svg", "video/mp4": "mp4", "video/webm": "webm",
		"video/ogg": "ogv", "video/x-matroska": "mkv", "video/mpeg": "mpeg", "video/quicktime": "mov",
		"audio/mpeg": "mp3", "audio/ogg": "oga", "application/epub+zip": "epub",
		"application/pdf": "pdf", "text/html": "html", "text/plain": "txt",
		"text/html; charset=utf-8": "html", "Image/JPEG": "jpeg", " video/mp4 ;codecs=avc1": "mp4",
		"image/jpg": FormatOther, "application/octet-stream": FormatOther, "nonsense": FormatOther,
	}
	for mimeType, want := range cases {
		if got := Format(mimeType); got != want {
			t.Errorf("Format(%q) = %q, want %q", mimeType, got, want)
		}
	}
}

func TestDuration(t *testing.T) {
	secs := func(s float64) *float64 { return &s }
	cases := []struct {
		seconds *float64
		want    string
	}{
		{nil, ""},
		{secs(0), DurationShort},
		{secs(239.9), DurationShort},
		{secs(240), DurationMedium},
		{secs(1200), DurationMedium},
		{secs(1200.5), DurationLong},
		{secs(7200), DurationLong},
	}
	for _, c := range cases {
		if got := Duration(c.seconds); got != c.want {
			t.Errorf("Duration(%v) = %q, want %q", c.seconds, got, c.want)
		}
	}
}

// TestDerive: an item's licence, format and duration are read from its catalogue values.
func TestDerive(t *testing.T) {
	d := 300.0
	it := Item{Rights: "CC BY-SA 2.5 CA", MimeType: "image/png", DurationSeconds: &d}
	it.Derive()
	if it.MediaLicense != rights.Read("CC BY-SA 2.5 CA") || it.Format != "png" || it.Duration != DurationMedium {
		t.Errorf("Derive: %+v, %q, %q", it.MediaLicense, it.Format, it.Duration)
	}
	var none Item
	none.Derive()
	if none.MediaLicense.ID != rights.Unknown || none.Format != "" || none.Duration != "" {
		t.Errorf("Derive of an item without values: %+v, %q, %q", none.MediaLicense, none.Format, none.Duration)
	}
}
