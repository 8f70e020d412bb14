package gen

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

func TestAppendVideoKey(t *testing.T) {
	for _, tc := range []struct {
		u    uint64
		want string
	}{
		{0, "AAAAAAAAAAA"},
		{63, "_AAAAAAAAAA"},
		{64, "ABAAAAAAAAA"},
		{1<<64 - 1, "__________P"}, // 64 bits fill ten characters and four bits of the last
	} {
		if got := string(appendVideoKey(nil, tc.u)); got != tc.want {
			t.Errorf("appendVideoKey(%d) = %q, want %q", tc.u, got, tc.want)
		}
	}
}

// TestMediaConsistent: in the sample, every item's links, mime type, size and dimensions agree with
// each other and with its type and id, as a loader may check.
func TestMediaConsistent(t *testing.T) {
	exts := map[string]string{}
	for _, specs := range mediaSpecs {
		for _, m := range specs {
			exts[m.ext] = m.mime
		}
	}
	counts := map[string]int{}
	for i, line := range sampleLines(t) {
		var it struct {
			ID, Type        string
			MediaURL        string `json:"media_url"`
			ThumbnailURL    string `json:"thumbnail_url"`
			MimeType        string `json:"mime_type"`
			SizeBytes       *int64 `json:"size_bytes"`
			Width, Height   *int64
			DurationSeconds *float64 `json:"duration_seconds"`
		}
		if err := json.Unmarshal(line, &it); err != nil {
			t.Fatal(err)
		}
		fail := func(format string, args ...any) {
			t.Helper()
			t.Fatalf("line %d: %s\n%s", i+1, fmt.Sprintf(format, args...), line)
		}
		file := strings.HasPrefix(it.MediaURL, mediaBase)
		switch {
		case file:
			counts["file"]++
			name := strings.TrimPrefix(it.MediaURL, mediaBase+it.Type+"/"+it.ID+".")
			if name == it.MediaURL || exts[name] == "" {
				fail("media_url %q is not %s<type>/<id>.<known extension>", it.MediaURL, mediaBase)
			}
			if it.MimeType != "" && it.MimeType != exts[name] {
				fail("mime_type %q for a .%s file", it.MimeType, name)
			}
		case it.MediaURL != "":
			counts["player"]++
			key, ok := strings.CutPrefix(it.MediaURL, "https://video.example.org/watch?v=")
			if !ok || it.Type != "video" || len(key) != 11 {
				fail("media_url %q: a link that is not a file is a video's player page", it.MediaURL)
			}
		}
		if !file && (it.MimeType != "" || it.SizeBytes != nil) {
			fail("mime_type or size_bytes without a media file")
		}
		if it.SizeBytes != nil && *it.SizeBytes < 1 {
			fail("size_bytes %d", *it.SizeBytes)
		}
		if it.ThumbnailURL != "" && it.ThumbnailURL != mediaBase+"thumbs/"+it.ID+".jpg" {
			fail("thumbnail_url %q", it.ThumbnailURL)
		}
		if (it.Width == nil) != (it.Height == nil) || (it.Width != nil && (*it.Width < 1 || *it.Height < 1)) {
			fail("width and height come together and are positive")
		}
		if d := it.DurationSeconds; d != nil && (*d < 10 || *d > 4*3600) {
			fail("duration_seconds %v outside 10 s to 4 h", *d)
		}
	}
	if counts["file"] < sampleN/2 || counts["player"] == 0 {
		t.Errorf("media links %v: want mostly files, some player pages", counts)
	}
}
