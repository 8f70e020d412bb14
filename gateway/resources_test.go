package gateway_test

import (
	"bytes"
	"fmt"
	"image/png"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"strings"
	"testing"

	"rsc.io/qr"

	"mediagw/search"
	"mediagw/search/rights"
	"mediagw/search/searchtest"
)

type itemBody struct {
	Data struct {
		ID          string   `json:"id"`
		Type        string   `json:"type"`
		Title       string   `json:"title"`
		Summary     *string  `json:"summary"`
		Description *string  `json:"description"`
		Tags        []string `json:"tags"`
		Keywords    []string `json:"keywords"`
		Author      *string  `json:"author"`
		Category    *string  `json:"category"`
		Language    *string  `json:"language"`
		Date        *string  `json:"date"`
		Downloads   int64    `json:"downloads"`
		Permalink   string   `json:"permalink"`
		SHA256      *string  `json:"sha256"`
		QRCodeURL   string   `json:"qr_code_url"`
		Media       struct {
			URL             *string  `json:"url"`
			MimeType        *string  `json:"mime_type"`
			Format          *string  `json:"format"`
			SizeBytes       *int64   `json:"size_bytes"`
			DurationSeconds *float64 `json:"duration_seconds"`
			Width           *int64   `json:"width"`
			Height          *int64   `json:"height"`
		} `json:"media"`
		Rights          map[string]any `json:"rights"`
		MetadataLicense *string        `json:"metadata_license"`
		Source          *string        `json:"source"`
	} `json:"data"`
	Attribution string `json:"attribution"`
}

// rightsOf is the rights object the format's rules give an item of the catalogue, as a client
// decodes it.
func rightsOf(it search.Item) map[string]any {
	l := rights.Read(it.Rights)
	opt := func(s string) any {
		if s == "" {
			return nil
		}
		return s
	}
	return map[string]any{"statement": it.Rights, "license": l.ID, "version": opt(l.Version), "jurisdiction": opt(l.Jurisdiction),
		"url": opt(l.URL), "commercial": l.Commercial, "modification": l.Modification}
}

// orNull is s as the bodies write an optional string: null when empty.
func orNull(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// TestRightsInBodies: every item, in a list and alone, carries its rights statement with the
// licence the format's rules read it as, and its format; the item its media's format, running
// time and size.
func TestRightsInBodies(t *testing.T) {
	h := newHarness(t)
	type listed struct {
		ID              string         `json:"id"`
		Format          *string        `json:"format"`
		DurationSeconds *float64       `json:"duration_seconds"`
		Rights          map[string]any `json:"rights"`
	}
	seen := 0
	for page := 1; ; page++ {
		body := decode[struct {
			Data []listed `json:"data"`
		}](t, h.get(fmt.Sprintf("/?resource=items&sort=az&per_page=50&page=%d", page)))
		for _, d := range body.Data {
			want := h.items[d.ID]
			if !reflect.DeepEqual(d.Rights, rightsOf(want)) {
				t.Errorf("items: %s rights %v, want %v", d.ID, d.Rights, rightsOf(want))
			}
			if f := orNull(search.Format(want.MimeType)); str(d.Format) != str(f) {
				t.Errorf("items: %s format %s, want %s", d.ID, str(d.Format), str(f))
			}
			if (d.DurationSeconds == nil) != (want.DurationSeconds == nil) || d.DurationSeconds != nil && *d.DurationSeconds != *want.DurationSeconds {
				t.Errorf("items: %s duration_seconds %v, want %v", d.ID, d.DurationSeconds, want.DurationSeconds)
			}
		}
		seen += len(body.Data)
		if len(body.Data) < 50 {
			break
		}
	}
	if seen != len(h.items) {
		t.Errorf("listed %d items, want %d", seen, len(h.items))
	}
	for id, want := range h.items {
		d := decode[itemBody](t, h.get("/?resource=item&id="+url.QueryEscape(id))).Data
		if !reflect.DeepEqual(d.Rights, rightsOf(want)) {
			t.Errorf("item %s: rights %v, want %v", id, d.Rights, rightsOf(want))
		}
		if f := orNull(search.Format(want.MimeType)); str(d.Media.Format) != str(f) {
			t.Errorf("item %s: media format %s, want %s", id, str(d.Media.Format), str(f))
		}
	}
	// The body as the contract writes it: statement as given, nulls where there are none.
	rec := h.get("/?resource=item&id=lt-3")
	for _, want := range []string{
		`"rights":{"statement":"CC BY-SA 2.5 CA","license":"by-sa","version":"2.5","jurisdiction":"ca","url":"https://creativecommons.org/licenses/by-sa/2.5/ca/","commercial":true,"modification":true}`,
		`"format":"mov"`, `"duration_seconds":1201`, `"width":640`, `"height":480`,
	} {
		if !strings.Contains(rec.Body.String(), want) {
			t.Errorf("item lt-3 lacks %s: %s", want, rec.Body)
		}
	}
	rec = h.get("/?resource=item&id=do-bare")
	if want := `"rights":{"statement":"","license":"unknown","version":null,"jurisdiction":null,"url":null,"commercial":false,"modification":false}`; !strings.Contains(rec.Body.String(), want) {
		t.Errorf("item do-bare lacks %s: %s", want, rec.Body)
	}
}

func str(p *string) string {
	if p == nil {
		return "<null>"
	}
	return *p
}

func TestItem(t *testing.T) {
	h := newHarness(t)
	t.Run("full item", func(t *testing.T) {
		rec := h.get("/?resource=item&id=ph-full")
		if rec.Code != http.StatusOK {
			t.Fatalf("status %d: %s", rec.Code, rec.Body)
		}
		b := decode[itemBody](t, rec)
		want := h.items["ph-full"]
		d := b.Data
		if d.ID != want.ID || d.Type != want.Type || d.Title != want.Title || str(d.Summary) != want.Summary ||
			str(d.Description) != want.Description || str(d.Author) != want.Author || str(d.Category) != want.Category ||
			str(d.Language) != want.Language || str(d.Date) != want.Date || d.Downloads != want.Downloads ||
			d.Permalink != want.Permalink || str(d.SHA256) != want.SHA256 || str(d.MetadataLicense) != want.License ||
			str(d.Source) != want.Source ||
			strings.Join(d.Tags, ",") != strings.Join(want.Tags, ",") || strings.Join(d.Keywords, ",") != strings.Join(want.Keywords, ",") {
			t.Errorf("item %+v\nwant %+v", d, want)
		}
		if str(d.Media.URL) != want.MediaURL || str(d.Media.MimeType) != want.MimeType || d.Media.SizeBytes == nil || *d.Media.SizeBytes != *want.SizeBytes ||
			str(d.Media.Format) != "jpeg" || d.Media.DurationSeconds != nil || d.Media.Width == nil || *d.Media.Width != *want.Width ||
			d.Media.Height == nil || *d.Media.Height != *want.Height {
			t.Errorf("media %+v", d.Media)
		}
		if d.QRCodeURL != publicURL+"/qr/ph-full.png" {
			t.Errorf("qr_code_url %q", d.QRCodeURL)
		}
		if b.Attribution != h.cfg.Attribution {
			t.Errorf("attribution %q", b.Attribution)
		}
	})
	t.Run("sparse item", func(t *testing.T) {
		rec := h.get("/?resource=item&id=do-bare")
		b := decode[itemBody](t, rec)
		d := b.Data
		if d.SHA256 != nil || d.Media.URL != nil || d.Media.SizeBytes != nil || d.Media.Format != nil || d.Media.DurationSeconds != nil ||
			d.Media.Width != nil || d.MetadataLicense != nil || d.Source != nil || d.Date != nil || d.Author != nil {
			t.Errorf("absent values should be null: %s", rec.Body)
		}
		if d.Tags == nil || d.Keywords == nil || !strings.Contains(rec.Body.String(), `"tags":[]`) {
			t.Errorf("lists should be [], never null: %s", rec.Body)
		}
		if d.Permalink != publicURL+"/?resource=item&id=do-bare" {
			t.Errorf("permalink %q, want the API's item URL", d.Permalink)
		}
	})
	t.Run("unknown id", func(t *testing.T) {
		expectProblem(t, h.get("/?resource=item&id=no-such-item"), http.StatusNotFound, "not-found")
	})
	for _, q := range []string{"", "id=", "id=a+b", "id=" + strings.Repeat("a", 513), "id=%00", "id=%FF", "id=a&id=b"} {
		t.Run("bad id "+q, func(t *testing.T) {
			p := expectProblem(t, h.get("/?resource=item&"+q), http.StatusBadRequest, "invalid-parameter")
			if len(p.Errors) != 1 || p.Errors[0].Parameter != "id" {
				t.Errorf("errors %+v, want one on id", p.Errors)
			}
		})
	}
}

func TestQRCode(t *testing.T) {
	h := newHarness(t)
	for _, id := range []string{"ph-full", "do-bare"} {
		b := decode[itemBody](t, h.get("/?resource=item&id="+id))
		path := strings.TrimPrefix(b.Data.QRCodeURL, publicURL)
		rec := h.get(path)
		if rec.Code != http.StatusOK || rec.Header().Get("Content-Type") != "image/png" {
			t.Fatalf("%s: status %d, type %q", path, rec.Code, rec.Header().Get("Content-Type"))
		}
		if _, err := png.Decode(bytes.NewReader(rec.Body.Bytes())); err != nil {
			t.Errorf("%s: not a PNG: %v", path, err)
		}
		code, err := qr.Encode(b.Data.Permalink, qr.M)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(code.PNG(), rec.Body.Bytes()) {
			t.Errorf("%s: not the QR code of the permalink %s", path, b.Data.Permalink)
		}
		if cc := rec.Header().Get("Cache-Control"); cc != "private, max-age=86400" || rec.Header().Get("ETag") == "" {
			t.Errorf("%s: Cache-Control %q, ETag %q", path, cc, rec.Header().Get("ETag"))
		}
		if rec.Header().Get("Content-Encoding") != "" {
			t.Errorf("%s: a PNG is not compressed again", path)
		}
	}
	expectProblem(t, h.get("/qr/no-such-item.png"), http.StatusNotFound, "not-found")
	expectProblem(t, h.get("/qr/ph-full.gif"), http.StatusNotFound, "not-found")
	expectProblem(t, h.get("/qr/"+url.PathEscape("bad id")+".png"), http.StatusBadRequest, "invalid-parameter")
	// The id "%zz", decoded once: well-formed, and no item has it.
	expectProblem(t, h.get("/qr/%25zz.png"), http.StatusNotFound, "not-found")
}

// TestIDsAsGiven: every id a catalogue may give answers, byte for byte, and every URL written from
// it (permalink, qr_code_url) percent-encodes it and resolves back to the same item.
func TestIDsAsGiven(t *testing.T) {
	items := make([]search.Item, len(searchtest.OddIDs))
	for i, id := range searchtest.OddIDs {
		items[i] = search.Item{ID: id, Type: search.TypePhoto, Title: fmt.Sprintf("Odd %d", i)}
	}
	odd := backendOf(t, items)
	h := newHarness(t, withBackend(func(search.Backend) search.Backend { return odd }))
	etags := map[string]string{}
	for _, it := range items {
		rec := h.get("/?resource=item&id=" + url.QueryEscape(it.ID))
		if rec.Code != http.StatusOK {
			t.Errorf("item %q: status %d: %s", it.ID, rec.Code, rec.Body)
			continue
		}
		if other, dup := etags[rec.Header().Get("ETag")]; dup {
			t.Errorf("items %q and %q share an ETag", it.ID, other)
		}
		etags[rec.Header().Get("ETag")] = it.ID
		d := decode[itemBody](t, rec).Data
		if d.ID != it.ID || d.Title != it.Title {
			t.Errorf("item %q answered %q %q", it.ID, d.ID, d.Title)
		}
		if want := publicURL + "/?resource=item&id=" + url.QueryEscape(it.ID); d.Permalink != want {
			t.Errorf("item %q: permalink %q, want %q", it.ID, d.Permalink, want)
		}
		qrPath, ok := strings.CutPrefix(d.QRCodeURL, publicURL)
		if want := "/qr/" + url.PathEscape(it.ID) + ".png"; !ok || qrPath != want {
			t.Errorf("item %q: qr_code_url %q, want %s%s", it.ID, d.QRCodeURL, publicURL, want)
			continue
		}
		rec = h.get(qrPath)
		code, err := qr.Encode(d.Permalink, qr.M)
		if err != nil {
			t.Fatal(err)
		}
		if rec.Code != http.StatusOK || !bytes.Equal(rec.Body.Bytes(), code.PNG()) {
			t.Errorf("GET %s: status %d, or not the QR code of %s", qrPath, rec.Code, d.Permalink)
		}
	}
	for _, id := range []string{"../etc/passwd", "cafe", "x/y/z?w#v&u=t"} {
		expectProblem(t, h.get("/?resource=item&id="+url.QueryEscape(id)), http.StatusNotFound, "not-found")
		expectProblem(t, h.get("/qr/"+url.PathEscape(id)+".png"), http.StatusNotFound, "not-found")
	}
	for name, id := range map[string]string{
		"white space": "a b", "a tab": "a\tb", "a NUL": "a\x00b", "a no-break space": "a\u00a0b",
		"an ideographic space": "a\u3000b", "513 bytes": strings.Repeat("a", search.MaxIDBytes+1), "bad UTF-8": "a\xffb",
	} {
		for _, target := range []string{"/?resource=item&id=" + url.QueryEscape(id), "/qr/" + url.PathEscape(id) + ".png"} {
			p := expectProblem(t, h.get(target), http.StatusBadRequest, "invalid-parameter")
			if len(p.Errors) != 1 || p.Errors[0].Parameter != "id" {
				t.Errorf("%s: %s: errors %+v, want one naming id", name, target, p.Errors)
			}
		}
	}
}

// TestQRCodeEscapedPath: a percent-encoded path names the same QR code as its decoded form
// (RFC 3986), and a broken escape is a bad id.
func TestQRCodeEscapedPath(t *testing.T) {
	h := newHarness(t)
	for plain, escaped := range map[string]string{
		"/qr/ph-elan-2.png": "/qr/ph-elan-%32.png",
		"/qr/ph-full.png":   "/qr/ph%2Dfull%2Epng",
	} {
		want, got := h.get(plain), h.get(escaped)
		if got.Code != http.StatusOK || !bytes.Equal(got.Body.Bytes(), want.Body.Bytes()) {
			t.Errorf("%s: status %d, want the QR code of %s", escaped, got.Code, plain)
		}
	}
	// Decoded once: %252D is the literal %2D of an id no item has, never "-".
	for _, target := range []string{"/qr/ph%252Dfull.png", "/qr/ph%252dfull.png", "/qr/ph%252Dfull%2Epng"} {
		expectProblem(t, h.get(target), http.StatusNotFound, "not-found")
	}
	// net/http refuses such a URL itself; the gateway does not rely on it.
	req := httptest.NewRequest(http.MethodGet, "/qr/x.png", nil)
	req.URL.RawPath = "/qr/%zz.png"
	rec := httptest.NewRecorder()
	h.h.ServeHTTP(rec, req)
	p := expectProblem(t, rec, http.StatusBadRequest, "invalid-parameter")
	if len(p.Errors) != 1 || p.Errors[0].Parameter != "id" || str(p.Errors[0].Value) != "%zz" {
		t.Errorf("errors %+v, want one on id echoing %%zz", p.Errors)
	}
}

func TestCategories(t *testing.T) {
	h := newHarness(t)
	b := decode[listBody](t, h.get("/?resource=categories"))
	want := map[string]int{}
	for _, it := range h.all {
		if it.Category != "" {
			want[it.Category]++
		}
	}
	if b.Total != len(want) || len(b.Data) != len(want) || b.Attribution != h.cfg.Attribution {
		t.Fatalf("total %d, %d entries, want %d", b.Total, len(b.Data), len(want))
	}
	for i, c := range b.Data {
		if i > 0 && b.Data[i-1].Slug >= c.Slug {
			t.Errorf("%q before %q: not ordered by slug", b.Data[i-1].Slug, c.Slug)
		}
		if c.Count != want[c.Slug] || c.Name == "" {
			t.Errorf("%+v: want count %d and a name", c, want[c.Slug])
		}
		items := decode[itemsBody](t, h.get("/?resource=items&category="+c.Slug))
		if items.Pagination.Total != c.Count {
			t.Errorf("%s: count %d but items total %d", c.Slug, c.Count, items.Pagination.Total)
		}
	}
}

func TestAuthors(t *testing.T) {
	h := newHarness(t)
	b := decode[listBody](t, h.get("/?resource=authors"))
	want := map[string]int{}
	for _, it := range h.all {
		if it.Author != "" {
			want[it.Author]++
		}
	}
	if b.Total != len(want) || len(b.Data) != len(want) || b.Attribution != h.cfg.Attribution {
		t.Fatalf("total %d, %d entries, want %d", b.Total, len(b.Data), len(want))
	}
	for i, a := range b.Data {
		if i > 0 && !search.AuthorLess(b.Data[i-1].Name, a.Name) {
			t.Errorf("%q before %q: not in author order", b.Data[i-1].Name, a.Name)
		}
		if a.Count != want[a.Name] {
			t.Errorf("%+v: want count %d", a, want[a.Name])
		}
		items := decode[itemsBody](t, h.get("/?resource=items&author="+url.QueryEscape(a.Name)))
		if items.Pagination.Total != a.Count {
			t.Errorf("%q: count %d but items total %d", a.Name, a.Count, items.Pagination.Total)
		}
	}
}
