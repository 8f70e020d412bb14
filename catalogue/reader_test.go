package catalogue

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"mediagw/search"
	"mediagw/search/rights"
)

func TestReaderRejects(t *testing.T) {
	tests := []struct {
		name, line, key string
	}{
		{"not json", `{"id":`, ""},
		{"array", `[1,2]`, ""},
		{"two values", `{"id":"a","type":"photo","title":"t"} {}`, ""},
		{"missing id", `{"type":"photo","title":"t"}`, "id"},
		{"bad id", `{"id":"a b","type":"photo","title":"t"}`, "id"},
		{"long id", `{"id":"` + strings.Repeat("a", 513) + `","type":"photo","title":"t"}`, "id"},
		{"id with a control character", `{"id":"a\u0007b","type":"photo","title":"t"}`, "id"},
		{"id with a no-break space", `{"id":"a\u00a0b","type":"photo","title":"t"}`, "id"},
		{"id with a right-to-left override", `{"id":"a\u202eb","type":"photo","title":"t"}`, "id"},
		{"id with a zero-width space", `{"id":"a\u200bb","type":"photo","title":"t"}`, "id"},
		{"id with a zero-width joiner", "{\"id\":\"a\u200db\",\"type\":\"photo\",\"title\":\"t\"}", "id"},
		{"id of format characters only", `{"id":"` + strings.Repeat(`\u202e\u200b\u200d\ufeff`, 42) + `","type":"photo","title":"t"}`, "id"},
		{"long title", `{"id":"a","type":"photo","title":"` + strings.Repeat("é", search.MaxTitleRunes+1) + `"}`, "title"},
		{"long summary", `{"id":"a","type":"photo","title":"t","summary":"` + strings.Repeat("x", search.MaxSummaryRunes+1) + `"}`, "summary"},
		{"long description", `{"id":"a","type":"photo","title":"t","description":"` + strings.Repeat("x", search.MaxDescriptionRunes+1) + `"}`, "description"},
		{"too many tags", `{"id":"a","type":"photo","title":"t","tags":["x"` + strings.Repeat(`,"x"`, search.MaxTerms) + `]}`, "tags"},
		{"long tag", `{"id":"a","type":"photo","title":"t","tags":["` + strings.Repeat("x", search.MaxTermRunes+1) + `"]}`, "tags"},
		{"too many keywords", `{"id":"a","type":"photo","title":"t","keywords":["x"` + strings.Repeat(`,"x"`, search.MaxTerms) + `]}`, "keywords"},
		{"long keyword", `{"id":"a","type":"photo","title":"t","keywords":["` + strings.Repeat("x", search.MaxTermRunes+1) + `"]}`, "keywords"},
		{"id not a string", `{"id":5,"type":"photo","title":"t"}`, "id"},
		{"long slug", `{"id":"a","type":"photo","title":"t","category":"` + strings.Repeat("a", 101) + `"}`, "category"},
		{"missing type", `{"id":"a","title":"t"}`, "type"},
		{"bad type", `{"id":"a","type":"audio","title":"t"}`, "type"},
		{"empty title", `{"id":"a","type":"photo","title":"  "}`, "title"},
		{"title not string", `{"id":"a","type":"photo","title":5}`, "title"},
		{"bad slug", `{"id":"a","type":"photo","title":"t","category":"Nature"}`, "category"},
		{"bad language", `{"id":"a","type":"photo","title":"t","language":"english"}`, "language"},
		{"unknown language", `{"id":"a","type":"photo","title":"t","language":"qq"}`, "language"},
		{"impossible date", `{"id":"a","type":"photo","title":"t","date":"2023-02-30"}`, "date"},
		{"short date", `{"id":"a","type":"photo","title":"t","date":"2023-2-3"}`, "date"},
		{"negative downloads", `{"id":"a","type":"photo","title":"t","downloads":-1}`, "downloads"},
		{"fractional downloads", `{"id":"a","type":"photo","title":"t","downloads":1.5}`, "downloads"},
		{"downloads string", `{"id":"a","type":"photo","title":"t","downloads":"7"}`, "downloads"},
		{"tags not array", `{"id":"a","type":"photo","title":"t","tags":"x"}`, "tags"},
		{"tags null element", `{"id":"a","type":"photo","title":"t","tags":[null]}`, "tags"},
		{"relative permalink", `{"id":"a","type":"photo","title":"t","permalink":"/x"}`, "permalink"},
		{"javascript permalink", `{"id":"a","type":"photo","title":"t","permalink":"javascript://example.com/%0aalert(1)"}`, "permalink"},
		{"ftp permalink", `{"id":"a","type":"photo","title":"t","permalink":"ftp://example.com/a"}`, "permalink"},
		{"permalink without a host", `{"id":"a","type":"photo","title":"t","permalink":"https:///a"}`, "permalink"},
		{"data media_url", `{"id":"a","type":"photo","title":"t","media_url":"data:text/html,<script>alert(1)</script>"}`, "media_url"},
		{"javascript media_url", `{"id":"a","type":"photo","title":"t","media_url":"JavaScript://x.org/%0aalert(1)"}`, "media_url"},
		{"file thumbnail_url", `{"id":"a","type":"photo","title":"t","thumbnail_url":"file://host/etc/passwd"}`, "thumbnail_url"},
		{"relative thumbnail_url", `{"id":"a","type":"photo","title":"t","thumbnail_url":"thumbs/a.jpg"}`, "thumbnail_url"},
		{"media_path without a media directory", `{"id":"a","type":"photo","title":"t","media_path":"a.jpg"}`, "media_path"},
		{"bad sha", `{"id":"a","type":"photo","title":"t","sha256":"abc"}`, "sha256"},
		{"invalid utf8", "{\"id\":\"a\",\"type\":\"photo\",\"title\":\"\xff\"}", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := NewReader(strings.NewReader("\n" + tt.line + "\n"))
			_, err := r.Next()
			var lerr *LineError
			if !errors.As(err, &lerr) {
				t.Fatalf("Next() error = %v, want a *LineError", err)
			}
			if lerr.Line != 2 || lerr.Key != tt.key {
				t.Errorf("got line %d key %q, want line 2 key %q (%v)", lerr.Line, lerr.Key, tt.key, err)
			}
			if string(r.Raw()) != tt.line {
				t.Errorf("Raw() = %q, want the line unchanged", r.Raw())
			}
			if _, err := r.Next(); !errors.Is(err, io.EOF) {
				t.Errorf("after the bad line: %v, want io.EOF", err)
			}
		})
	}
}

func TestReaderAccepts(t *testing.T) {
	in := `{"id":"a-1","type":"photo","title":"Élan","category":"world-history","language":"EN","date":"2020-02-29","downloads":3,"tags":[" x ",""],"size_bytes":10,"duration_seconds":1.5,"extra":true,"checksum":null,"permalink":"HTTPS://example.org/a-1","media_url":"http://cdn.example.org/a.jpg","thumbnail_url":"https://cdn.example.org/t/a.jpg"}
{"id":"a-2","type":"video","title":"t","summary":null,"author":" Jane ","category":"nature","category_name":"Wild Nature","extra":1}
`
	r := NewReader(strings.NewReader(in))
	a, err := r.Next()
	if err != nil {
		t.Fatal(err)
	}
	if a.Language != "en" || a.CategoryName != "" || a.Downloads != 3 || len(a.Tags) != 1 || a.Tags[0] != "x" ||
		*a.SizeBytes != 10 || *a.DurationSeconds != 1.5 {
		t.Errorf("first item = %+v", a)
	}
	b, err := r.Next()
	if err != nil {
		t.Fatal(err)
	}
	if b.Author != "Jane" || b.CategoryName != "Wild Nature" || b.Downloads != 0 || b.Summary != "" {
		t.Errorf("second item = %+v", b)
	}
	st := r.Stats()
	if st.Lines != 2 || st.Accepted != 2 || st.UnknownKeys["extra"] != 2 || st.UnknownKeys["checksum"] != 1 {
		t.Errorf("stats = %+v", st)
	}
}

// TestLineBound: a line over the bound is refused with its number, counted as read and rejected,
// never held (no reject written), and the next line is read; a line of the bound, with either
// line ending, is read.
func TestLineBound(t *testing.T) {
	const bound = 100
	line := func(n int) string {
		head := `{"id":"a","type":"photo","title":"`
		return head + strings.Repeat("x", n-len(head)-2) + `"}`
	}
	next := `{"id":"b","type":"photo","title":"t"}`
	for _, tt := range []struct {
		name, in string
		over     bool
	}{
		{"at the bound", line(bound) + "\n" + next + "\n", false},
		{"at the bound, CRLF", line(bound) + "\r\n" + next + "\r\n", false},
		{"at the bound, last and unended", next + "\n" + line(bound), false},
		{"one byte over", line(bound+1) + "\n" + next + "\n", true},
		{"one byte over, CRLF", line(bound+1) + "\r\n" + next + "\n", true},
		{"over the read buffer", line(3<<20) + "\n" + next + "\n", true},
		{"over, last and unended", next + "\n" + line(3<<20), true},
		{"not JSON, over", strings.Repeat("\x00", 5<<20) + "\n" + next + "\n", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := NewReader(strings.NewReader(tt.in)).WithMaxLine(bound)
			var rejects bytes.Buffer
			var got []string
			var errs []string
			for {
				it, err := r.Next()
				if errors.Is(err, io.EOF) {
					break
				}
				var lerr *LineError
				switch {
				case errors.As(err, &lerr):
					errs = append(errs, lerr.Error())
					if err := r.WriteReject(&rejects); err != nil {
						t.Fatal(err)
					}
				case err != nil:
					t.Fatal(err)
				default:
					got = append(got, it.ID)
				}
			}
			st := r.Stats()
			if !tt.over {
				if len(errs) != 0 || len(got) != 2 || st.Lines != 2 || st.Accepted != 2 {
					t.Errorf("items %q, errors %q, stats %+v; want both lines read", got, errs, st)
				}
				return
			}
			overLine := 1
			if strings.HasPrefix(tt.in, next) {
				overLine = 2
			}
			if len(errs) != 1 || !strings.HasPrefix(errs[0], fmt.Sprintf("line %d: longer than %d bytes", overLine, bound)) {
				t.Errorf("errors %q, want one naming line %d", errs, overLine)
			}
			if len(got) != 1 || got[0] != "b" || st.Lines != 2 || st.Accepted != 1 || st.Rejected != 1 ||
				st.Unheld != 1 || !slices.Equal(st.UnheldLines, []int{overLine}) {
				t.Errorf("items %q, stats %+v; want the other line read, one rejected unheld", got, st)
			}
			if rejects.Len() != 0 {
				t.Errorf("%d bytes written to the reject file, want none of a line never held", rejects.Len())
			}
		})
	}
}

// TestLineBoundMemory: a line many times the bound is read through without being held: what
// reading it allocates stays within a few bounds, not the line's size.
func TestLineBoundMemory(t *testing.T) {
	const size = 64 << 20
	in := io.MultiReader(io.LimitReader(zeros{}, size), strings.NewReader("\n"+`{"id":"b","type":"photo","title":"t"}`+"\n"))
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	r := NewReader(in)
	var lerr *LineError
	if _, err := r.Next(); !errors.As(err, &lerr) || lerr.Line != 1 {
		t.Fatalf("the long line: %v, want its line error", err)
	}
	if it, err := r.Next(); err != nil || it.ID != "b" {
		t.Fatalf("the next line: %+v, %v", it, err)
	}
	runtime.ReadMemStats(&after)
	if got := after.TotalAlloc - before.TotalAlloc; got > 8*DefaultMaxLineBytes {
		t.Errorf("reading a line of %d bytes allocated %d bytes, want at most %d", size, got, 8*DefaultMaxLineBytes)
	}
}

// zeros reads as an endless run of zero bytes.
type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

// TestUnknownKeyNames: past MaxUnknownKeys names, lines with other unknown keys are counted
// without their names.
func TestUnknownKeyNames(t *testing.T) {
	var in strings.Builder
	for i := range MaxUnknownKeys + 50 {
		fmt.Fprintf(&in, `{"id":"a%d","type":"photo","title":"t","k%d":1,"k0":2}`+"\n", i, i)
	}
	r := NewReader(strings.NewReader(in.String()))
	for _, err := range Items(r, nil) {
		if err != nil {
			t.Fatal(err)
		}
	}
	st := r.Stats()
	if len(st.UnknownKeys) != MaxUnknownKeys || st.UnknownKeys["k0"] != MaxUnknownKeys+50 || st.OtherUnknownKeys != 50 {
		t.Errorf("%d names (k0 on %d lines), %d lines with others; want %d, %d, 50",
			len(st.UnknownKeys), st.UnknownKeys["k0"], st.OtherUnknownKeys, MaxUnknownKeys, MaxUnknownKeys+50)
	}
}

func TestDuplicateID(t *testing.T) {
	in := `{"id":"a","type":"photo","title":"t"}
{"id":"a","type":"photo","title":"u"}
`
	var rejects bytes.Buffer
	r := NewReader(strings.NewReader(in))
	var got []search.Item
	for it, err := range Items(r, &rejects) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, it)
	}
	if len(got) != 1 || rejects.String() != `{"id":"a","type":"photo","title":"u"}`+"\n" {
		t.Errorf("items %v, rejects %q", got, rejects.String())
	}
	if st := r.Stats(); st.Rejected != 1 || st.Accepted != 1 {
		t.Errorf("stats = %+v", st)
	}
}

func TestItemsStrictStops(t *testing.T) {
	in := "{\"id\":\"a\",\"type\":\"photo\",\"title\":\"t\"}\n{\"id\":\"b\"}\n{\"id\":\"c\",\"type\":\"photo\",\"title\":\"t\"}\n"
	n := 0
	var last error
	for _, err := range Items(NewReader(strings.NewReader(in)), nil) {
		if err != nil {
			last = err
			break
		}
		n++
	}
	var lerr *LineError
	if n != 1 || !errors.As(last, &lerr) || lerr.Line != 2 {
		t.Errorf("got %d items then %v, want 1 then a line-2 error", n, last)
	}
}

func TestOpenGzipAndMediaDigest(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "m.bin"), []byte("hello"), 0o644); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	io.WriteString(zw, `{"id":"a","type":"photo","title":"t","media_path":"m.bin"}`+"\n")
	zw.Close()
	path := filepath.Join(dir, "c.ndjson.gz")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	rc, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	it, err := NewReader(rc).WithMedia(t.Context(), Media{Dir: dir, MaxBytes: 1 << 20}).Next()
	const want = "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824"
	if err != nil || it.SHA256 != want {
		t.Errorf("item %+v, %v; want sha256 %s", it, err, want)
	}
}

// TestMediaPath: media_path names a regular file under the media directory the operator named,
// within the size bound; anything else refuses the line, with its number, and counts it.
func TestMediaPath(t *testing.T) {
	dir := t.TempDir()
	outside := t.TempDir()
	const hello = "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824"
	for name, body := range map[string]string{"m.bin": "hello", "sub/n.bin": "hello", "big.bin": "hello, world"} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(outside, "secret"), []byte("hello"), 0o644); err != nil {
		t.Fatal(err)
	}
	for link, target := range map[string]string{"in.lnk": "sub/n.bin", "out.lnk": filepath.Join(outside, "secret"),
		"up.lnk": "../" + filepath.Base(outside) + "/secret", "zero.lnk": "/dev/zero"} {
		if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, path string
		want       string // the digest, or "" when the line is refused
	}{
		{"a file in the directory", "m.bin", hello},
		{"a file in a subdirectory", "sub/n.bin", hello},
		{"an absolute path under the directory", filepath.Join(dir, "m.bin"), hello},
		{"a link staying inside", "in.lnk", hello},
		{"a link leaving by an absolute target", "out.lnk", ""},
		{"a link leaving by ..", "up.lnk", ""},
		{"a link to /dev/zero", "zero.lnk", ""},
		{"a path leaving by ..", "../" + filepath.Base(outside) + "/secret", ""},
		{"an absolute path elsewhere", filepath.Join(outside, "secret"), ""},
		{"a system file", "/etc/hostname", ""},
		{"a device", "/dev/zero", ""},
		{"a FIFO", "fifo", ""},
		{"a directory", "sub", ""},
		{"a missing file", "none.bin", ""},
		{"a file over the size bound", "big.bin", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			line, _ := json.Marshal(map[string]string{"id": "a", "type": "photo", "title": "t", "media_path": tt.path})
			r := NewReader(strings.NewReader("\n"+string(line)+"\n")).WithMedia(t.Context(), Media{Dir: dir, MaxBytes: 5})
			done := make(chan struct{})
			var (
				it  search.Item
				err error
			)
			go func() { defer close(done); it, err = r.Next() }()
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				t.Fatal("Next blocked on the media file")
			}
			if tt.want != "" {
				if err != nil || it.SHA256 != tt.want {
					t.Errorf("item %+v, %v; want sha256 %s", it, err, tt.want)
				}
				return
			}
			var lerr *LineError
			if !errors.As(err, &lerr) || lerr.Line != 2 || lerr.Key != "media_path" {
				t.Fatalf("Next() = %+v, %v; want a line 2 media_path error", it, err)
			}
			if st := r.Stats(); st.Rejected != 1 || st.Accepted != 0 {
				t.Errorf("stats %+v, want the line counted as rejected", st)
			}
		})
	}
}

// TestMediaDigestCancelled: hashing a large media file stops when the context ends (SIGTERM for
// mediactl load), and the error is the context's, not a refused line.
func TestMediaDigestCancelled(t *testing.T) {
	dir := t.TempDir()
	f, err := os.Create(filepath.Join(dir, "huge.bin"))
	if err != nil {
		t.Fatal(err)
	}
	// Sparse: 16 GiB to hash, next to nothing on disk.
	if err := f.Truncate(16 << 30); err != nil {
		t.Fatal(err)
	}
	f.Close()
	ctx, cancel := context.WithCancel(t.Context())
	r := NewReader(strings.NewReader(`{"id":"a","type":"photo","title":"t","media_path":"huge.bin"}`+"\n")).
		WithMedia(ctx, Media{Dir: dir, MaxBytes: 32 << 30})
	errc := make(chan error, 1)
	go func() { _, err := r.Next(); errc <- err }()
	time.Sleep(50 * time.Millisecond)
	cancel()
	select {
	case err := <-errc:
		var lerr *LineError
		if !errors.Is(err, context.Canceled) || errors.As(err, &lerr) {
			t.Errorf("Next() = %v, want the context's cancellation", err)
		}
	case <-time.After(2 * time.Second):
		t.Fatal("hashing went on after the context was cancelled")
	}
}

func TestRealCatalogue(t *testing.T) {
	path := filepath.Join("..", "..", "shared", "data", "catalogue.ndjson")
	if _, err := os.Stat(path); err != nil {
		t.Skipf("real catalogue not found at %s", path)
	}
	// Every line loads, ids kept byte for byte: 32 of them carry , + ' ( ) ! or pass 128 bytes.
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for line := range bytes.Lines(raw) {
		var rec struct{ ID string }
		if err := json.Unmarshal(line, &rec); err != nil {
			t.Fatal(err)
		}
		want = append(want, rec.ID)
	}
	rc, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	r := NewReader(rc)
	var rejects bytes.Buffer
	var got []string
	for it, err := range Items(r, &rejects) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, it.ID)
	}
	if st := r.Stats(); st.Lines != 8222 || st.Accepted != 8222 || st.Rejected != 0 || rejects.Len() != 0 {
		t.Errorf("stats %+v, rejects %q; want all 8222 lines accepted", st, rejects.String())
	}
	if !slices.Equal(got, want) {
		t.Errorf("ids differ from the file's")
	}
	// What the issue counted of the statements, read by the format's rules.
	st := r.Stats()
	wantLicenses := map[string]int{rights.NoCUS: 3417, rights.BY: 392, rights.BYSA: 18, rights.BYNCSA: 56,
		rights.BYNCND: 5, rights.InCopyright: 1380, rights.Unknown: 2954}
	if !maps.Equal(st.Licenses, wantLicenses) || st.Unstated != 2906 {
		t.Errorf("licences %v, %d without a statement; want %v, 2906", st.Licenses, st.Unstated, wantLicenses)
	}
	if top := st.TopUnread(10); !slices.Equal(top, []Statement{{"creativeCommon", 31}, {"CC", 17}}) {
		t.Errorf("TopUnread = %v", top)
	}
	odd := 0
	for _, id := range got {
		if len(id) > 128 || strings.ContainsAny(id, ",+'()!") {
			odd++
		}
	}
	if odd != 32 {
		t.Errorf("%d ids with , + ' ( ) ! or over 128 bytes, want 32", odd)
	}
}

// TestLicenseStats: each accepted item is read into its licence and counted; the statements no
// rule reads are counted, the most given first, up to a bound of distinct statements.
func TestLicenseStats(t *testing.T) {
	var lines strings.Builder
	add := func(id int, rights string) {
		fmt.Fprintf(&lines, `{"id":"i%d","type":"video","title":"T","rights":%s,"mime_type":"video/mp4","duration_seconds":300}`+"\n", id, rights)
	}
	add(0, `"CC BY-SA 2.5 CA"`)
	add(1, `null`)
	add(2, `"b"`)
	add(3, `"a"`)
	add(4, `"b"`)
	for i := range maxUnread {
		add(5+i, fmt.Sprintf(`"s%d"`, i))
	}
	r := NewReader(strings.NewReader(lines.String()))
	first, err := r.Next()
	if err != nil {
		t.Fatal(err)
	}
	want := rights.License{ID: rights.BYSA, Version: "2.5", Jurisdiction: "ca", URL: "https://creativecommons.org/licenses/by-sa/2.5/ca/", Commercial: true, Modification: true}
	if first.MediaLicense != want || first.Format != "mp4" || first.Duration != search.DurationMedium {
		t.Errorf("item read as %+v, %q, %q; want %+v, mp4, medium", first.MediaLicense, first.Format, first.Duration, want)
	}
	for _, err := range Items(r, nil) {
		if err != nil {
			t.Fatal(err)
		}
	}
	st := r.Stats()
	if st.Licenses[rights.BYSA] != 1 || st.Licenses[rights.Unknown] != 4+maxUnread || st.Unstated != 1 {
		t.Errorf("licences %v, %d without a statement", st.Licenses, st.Unstated)
	}
	if len(st.Unread) != maxUnread {
		t.Errorf("%d distinct unread statements kept, want the bound %d", len(st.Unread), maxUnread)
	}
	if top := st.TopUnread(3); !slices.Equal(top, []Statement{{"b", 2}, {"a", 1}, {"s0", 1}}) {
		t.Errorf("TopUnread(3) = %v", top)
	}
}

// fuzzLineBound is the line bound of FuzzReader: small, for lines over it to be found.
const fuzzLineBound = 256

func FuzzReader(f *testing.F) {
	f.Add([]byte(`{"id":"a","type":"photo","title":"t","date":"2020-01-01","downloads":1}`))
	f.Add([]byte(`{"id":"a","tags":[1]}`))
	f.Add([]byte(`{"id":"a","type":"photo","title":"t","permalink":"javascript://example.com/%0aalert(1)","media_path":"/dev/zero"}`))
	f.Add([]byte(`{"id":"a","type":"photo","title":"t","media_url":"https://example.org/a","thumbnail_url":"data:,x"}`))
	f.Add([]byte(`{"id":"a","type":"photo","title":"` + strings.Repeat("x", fuzzLineBound) + `"}` + "\r\n" + `{"id":"b","type":"photo","title":"t"}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		r := NewReader(bytes.NewReader(line)).WithMaxLine(fuzzLineBound)
		for {
			it, err := r.Next()
			if errors.Is(err, io.EOF) {
				return
			}
			var lerr *LineError
			if err != nil && !errors.As(err, &lerr) {
				t.Fatalf("unexpected error type %T: %v", err, err)
			}
			if err == nil && (it.ID == "" || it.Title == "") {
				t.Fatalf("accepted an item without id or title: %+v", it)
			}
			if len(r.Raw()) > fuzzLineBound {
				t.Fatalf("held a line of %d bytes, over the bound of %d", len(r.Raw()), fuzzLineBound)
			}
			for _, u := range []string{it.Permalink, it.MediaURL, it.ThumbnailURL} {
				if l := strings.ToLower(u); err == nil && u != "" && !strings.HasPrefix(l, "http://") && !strings.HasPrefix(l, "https://") {
					t.Fatalf("accepted a link that is not http(s): %q", u)
				}
			}
		}
	})
}

func TestStringValues(t *testing.T) {
	tests := []struct{ raw, want string }{
		{`"plain"`, "plain"},
		{`"Jöns \"J\" Berzelius"`, `Jöns "J" Berzelius`},
		{`"tab\tand \u00e9"`, "tab\tand é"},
		{`"羅生門"`, "羅生門"},
		{`""`, ""},
	}
	for _, tt := range tests {
		r := NewReader(strings.NewReader(`{"id":"a","type":"photo","title":` + tt.raw + `}` + "\n"))
		it, err := r.Next()
		if tt.want == "" {
			var lerr *LineError
			if !errors.As(err, &lerr) || lerr.Key != "title" {
				t.Errorf("title %s: error %v, want a title error", tt.raw, err)
			}
			continue
		}
		if err != nil || it.Title != tt.want {
			t.Errorf("title %s = %q, %v; want %q", tt.raw, it.Title, err, tt.want)
		}
	}
}

// A withdrawn code is stored as its successor, so that the API's language filter (which maps
// language=iw to he) finds the item.
func TestWithdrawnLanguageCode(t *testing.T) {
	it, err := NewReader(strings.NewReader(`{"id":"a","type":"photo","title":"t","language":"iw"}` + "\n")).Next()
	if err != nil || it.Language != "he" {
		t.Errorf("language iw read as %q, %v; want he", it.Language, err)
	}
}

// TestByteOrderMark: a byte order mark at the start of a file, plain or gzipped, is not part of its
// first line (CATALOGUE.md); one further on is still an error of its line.
func TestByteOrderMark(t *testing.T) {
	const line = `{"id":"a","type":"photo","title":"t"}` + "\n"
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	io.WriteString(zw, "\ufeff"+line)
	zw.Close()
	for _, tc := range []struct {
		name string
		file []byte
	}{
		{"plain", []byte("\ufeff" + line)},
		{"gzip", gz.Bytes()},
		{"plain, CRLF", []byte("\ufeff" + strings.TrimSuffix(line, "\n") + "\r\n")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rc, err := Decompress(bytes.NewReader(tc.file))
			if err != nil {
				t.Fatal(err)
			}
			defer rc.Close()
			it, err := NewReader(rc).Next()
			if err != nil || it.ID != "a" {
				t.Errorf("first line: %+v, %v; want item a", it, err)
			}
		})
	}
	r := NewReader(strings.NewReader(line + "\ufeff" + line))
	if _, err := r.Next(); err != nil {
		t.Fatalf("line 1: %v", err)
	}
	var le *LineError
	if _, err := r.Next(); !errors.As(err, &le) || le.Line != 2 {
		t.Errorf("line 2 starting with a byte order mark: %v; want a LineError of line 2", err)
	}
}
