// Package catalogue reads and validates catalogue files (NDJSON, optionally gzip-compressed) into
// search items, by the rules of the catalogue format: line-numbered errors, unknown keys counted
// and dropped, nothing lost silently.
package catalogue

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"syscall"
	"unicode/utf8"

	"github.com/klauspost/compress/gzip"

	"mediagw/search"
	"mediagw/search/rights"
)

// LineError is a line that breaks a rule of the format.
type LineError struct {
	Line   int
	Key    string
	Reason string
}

func (e *LineError) Error() string {
	if e.Key == "" {
		return fmt.Sprintf("line %d: %s", e.Line, e.Reason)
	}
	return fmt.Sprintf("line %d: %s: %s", e.Line, e.Key, e.Reason)
}

// Stats counts what a Reader has read so far.
type Stats struct {
	// Lines is the number of non-blank lines read.
	Lines    int
	Accepted int
	Rejected int
	// UnknownKeys counts, per key outside the format, the lines that carried it: the first
	// MaxUnknownKeys names met; OtherUnknownKeys counts the lines that carried any other.
	UnknownKeys      map[string]int
	OtherUnknownKeys int
	// Unheld counts the lines over the line bound, refused without being held (so in no reject
	// file); UnheldLines are the numbers of the first MaxUnheldLines of them.
	Unheld      int
	UnheldLines []int
	// Licenses counts the accepted items per licence id their rights statement reads as;
	// Unstated those without one (licence unknown).
	Licenses map[string]int
	Unstated int
	// Unread counts the accepted items per rights statement no rule reads (licence unknown),
	// for at most maxUnread distinct statements; items without one are not in it.
	Unread map[string]int
}

// maxUnread bounds the distinct unread statements a load keeps count of: a catalogue of free
// text in every line must not hold it all in memory.
const maxUnread = 10000

// Statement is a rights statement with the number of items that gave it.
type Statement struct {
	Text  string
	Items int
}

// TopUnread returns the n unread statements most items gave, the most first, then in text order.
func (s Stats) TopUnread(n int) []Statement {
	top := make([]Statement, 0, len(s.Unread))
	for text, items := range s.Unread {
		top = append(top, Statement{text, items})
	}
	slices.SortFunc(top, func(a, b Statement) int {
		if a.Items != b.Items {
			return b.Items - a.Items
		}
		return strings.Compare(a.Text, b.Text)
	})
	return top[:min(n, len(top))]
}

// count adds an accepted item to the licence counts.
func (s *Stats) count(it search.Item) {
	s.Licenses[it.MediaLicense.ID]++
	if it.Rights == "" {
		s.Unstated++
	}
	if it.MediaLicense.ID != rights.Unknown || it.Rights == "" {
		return
	}
	if _, ok := s.Unread[it.Rights]; ok || len(s.Unread) < maxUnread {
		s.Unread[it.Rights]++
	}
}

// MaxUnheldLines bounds the line numbers Stats keeps of lines over the bound.
const MaxUnheldLines = 20

// MaxUnknownKeys bounds the names of unknown keys counted apart, which a file choosing a new one
// on every line would otherwise grow without end.
const MaxUnknownKeys = 100

// DefaultMaxLineBytes is the longest line a Reader reads, without its line ending, unless told
// otherwise (WithMaxLine).
const DefaultMaxLineBytes = 1 << 20

// UnknownKeyNames returns the unknown keys in name order.
func (s Stats) UnknownKeyNames() []string {
	names := make([]string, 0, len(s.UnknownKeys))
	for k := range s.UnknownKeys {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}

// hexDigest: 64 hexadecimal digits, a SHA-256 written out.
func hexDigest(s string) bool {
	if len(s) != 64 {
		return false
	}
	for i := range len(s) {
		if c := s[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

// Open opens a catalogue file, decompressing it when it is gzip.
func Open(path string) (io.ReadCloser, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open catalogue: %w", err)
	}
	rc, err := Decompress(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("open catalogue %s: %w", path, err)
	}
	return &file{ReadCloser: rc, f: f}, nil
}

type file struct {
	io.ReadCloser
	f *os.File
}

func (f *file) Close() error { return errors.Join(f.ReadCloser.Close(), f.f.Close()) }

// Decompress returns r's content, gunzipped when it starts like gzip (by its first bytes, not a
// file name). Closing the result does not close r.
func Decompress(r io.Reader) (io.ReadCloser, error) {
	br := bufio.NewReaderSize(r, 1<<20)
	magic, _ := br.Peek(2)
	if len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		// klauspost's gzip, which reads the same streams faster than the standard library's:
		// decompressing is part of a load's own work.
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("gzip: %w", err)
		}
		return zr, nil
	}
	return io.NopCloser(br), nil
}

// Reader reads items one line at a time, holding at most one line of its bound at once. It is
// not safe for concurrent use.
type Reader struct {
	r *bufio.Reader
	// maxLine bounds a line; buf holds the line being read, reused from line to line.
	maxLine int
	buf     []byte
	// media is where media_path values may point; ctx stops hashing them (Next has no context
	// of its own, and a media file may be large).
	media Media
	ctx   context.Context
	line  int
	raw   []byte
	// seen maps a digest of each id accepted to its line: an id may be 512 bytes long, and a
	// file may hold millions.
	seen  map[idKey]int
	stats Stats
	// obj holds the keys of the line being read (splitObject).
	obj map[string]json.RawMessage
}

// idKey is the first half of an id's SHA-256: two ids of a catalogue of 2^32 lines share one by
// chance less than once in 2^64 catalogues.
type idKey [16]byte

func keyOf(id string) idKey {
	sum := sha256.Sum256([]byte(id))
	return idKey(sum[:16])
}

// names maps each key of the format to itself.
var names = func() map[string]string {
	m := make(map[string]string, len(known))
	for k := range known {
		m[k] = k
	}
	return m
}()

// Media is what a line's media_path may name: a regular file under Dir (a link may not leave
// it) of at most MaxBytes, hashed for the item's sha256. With Dir empty every media_path is
// refused: the catalogue must not choose which of the loader's files it publishes a digest of.
type Media struct {
	Dir      string
	MaxBytes int64
}

// utf8BOM is the byte order mark some editors write at the start of a UTF-8 file.
var utf8BOM = []byte("\ufeff")

// NewReader reads catalogue lines from r.
func NewReader(r io.Reader) *Reader {
	return &Reader{
		r:       bufio.NewReaderSize(r, 1<<20),
		maxLine: DefaultMaxLineBytes,
		ctx:     context.Background(),
		seen:    make(map[idKey]int),
		obj:     make(map[string]json.RawMessage, len(known)),
		stats:   Stats{UnknownKeys: make(map[string]int), Licenses: make(map[string]int), Unread: make(map[string]int)},
	}
}

// WithMaxLine sets the longest line read, in bytes without the line ending: a longer one is
// refused with its number and skipped to the next line without being held.
func (r *Reader) WithMaxLine(n int) *Reader {
	r.maxLine = n
	return r
}

// WithMedia lets media_path values name files of m; hashing one stops when ctx is done, and Next
// then returns ctx's error.
func (r *Reader) WithMedia(ctx context.Context, m Media) *Reader {
	r.ctx, r.media = ctx, m
	return r
}

// Raw returns the bytes of the line last returned by Next, without its line ending; nil for a
// line over the bound, which was never held. It is valid until the next call of Next.
func (r *Reader) Raw() []byte { return r.raw }

// WriteReject writes the line last refused by Next to w, unchanged and with a newline. A line over
// the bound was never held and is not written: its *LineError names it.
func (r *Reader) WriteReject(w io.Writer) error {
	if r.raw == nil {
		return nil
	}
	if _, err := fmt.Fprintf(w, "%s\n", r.raw); err != nil {
		return fmt.Errorf("write reject file: %w", err)
	}
	return nil
}

// Stats returns the counts so far.
func (r *Reader) Stats() Stats { return r.stats }

// Next returns the next item. At the end it returns io.EOF; for a line that breaks a rule it
// returns a *LineError, and the next call goes on with the following line.
func (r *Reader) Next() (search.Item, error) {
	for {
		line, over, err := r.readLine()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return search.Item{}, io.EOF
			}
			return search.Item{}, fmt.Errorf("read catalogue after line %d: %w", r.line, err)
		}
		r.line++
		if over {
			r.raw = nil
			r.stats.Lines++
			r.stats.Rejected++
			r.stats.Unheld++
			if len(r.stats.UnheldLines) < MaxUnheldLines {
				r.stats.UnheldLines = append(r.stats.UnheldLines, r.line)
			}
			return search.Item{}, &LineError{Line: r.line, Reason: fmt.Sprintf(
				"longer than %d bytes, the longest line read: skipped to the next line unread, so not in a reject file", r.maxLine)}
		}
		if r.line == 1 {
			// CATALOGUE.md: a byte order mark at the start of the file is ignored.
			line = bytes.TrimPrefix(line, utf8BOM)
		}
		r.raw = line
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		r.stats.Lines++
		item, err := r.parse(line)
		var lerr *LineError
		if errors.As(err, &lerr) {
			r.stats.Rejected++
			return search.Item{}, lerr
		}
		if err != nil {
			return search.Item{}, fmt.Errorf("line %d: %w", r.line, err)
		}
		r.stats.Accepted++
		r.stats.count(item)
		return item, nil
	}
}

// readLine returns the next line without its line ending, or over for a line past r.maxLine,
// which it reads through to its end without keeping: memory stays within the bound whatever the
// file holds. At the end of the input it returns io.EOF.
func (r *Reader) readLine() (line []byte, over bool, err error) {
	r.buf = r.buf[:0]
	read := 0
	for {
		chunk, err := r.r.ReadSlice('\n')
		read += len(chunk)
		// Room for a CRLF ending beside a line of the bound.
		if !over && len(r.buf)+len(chunk) > r.maxLine+len("\r\n") {
			over, r.buf = true, r.buf[:0]
		}
		if !over {
			r.buf = append(r.buf, chunk...)
		}
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF) && read == 0:
			return nil, false, io.EOF
		case err != nil && !errors.Is(err, io.EOF):
			return nil, false, err
		}
		line = bytes.TrimRight(r.buf, "\r\n")
		return line, over || len(line) > r.maxLine, nil
	}
}

// fields of the format; anything else is an unknown key.
var known = map[string]bool{
	"id": true, "type": true, "title": true, "summary": true, "description": true, "tags": true,
	"keywords": true, "author": true, "category": true, "category_name": true, "language": true,
	"date": true, "downloads": true, "permalink": true, "sha256": true, "media_path": true,
	"media_url": true, "thumbnail_url": true, "mime_type": true, "size_bytes": true,
	"duration_seconds": true, "width": true, "height": true, "license": true, "rights": true, "source": true,
}

// parse returns the line's item, a *LineError for a line that breaks a rule, or another error
// when the line could not be judged (hashing its media file was cancelled).
func (r *Reader) parse(line []byte) (search.Item, error) {
	bad := func(key, format string, args ...any) *LineError {
		return &LineError{Line: r.line, Key: key, Reason: fmt.Sprintf(format, args...)}
	}
	if !utf8.Valid(line) {
		return search.Item{}, bad("", "not valid UTF-8")
	}
	obj, ok := splitObject(line, r.obj)
	if !ok {
		obj = nil
		// Unmarshal, unlike a Decoder, scans the line once and refuses anything after the value.
		if err := json.Unmarshal(line, &obj); err != nil {
			return search.Item{}, bad("", "not one JSON object: %v", err)
		}
	}
	if obj == nil {
		return search.Item{}, bad("", "not a JSON object")
	}
	other := false
	for k := range obj {
		switch _, counted := r.stats.UnknownKeys[k]; {
		case known[k]:
		case counted || len(r.stats.UnknownKeys) < MaxUnknownKeys:
			r.stats.UnknownKeys[k]++
		default:
			other = true
		}
	}
	if other {
		r.stats.OtherUnknownKeys++
	}
	f := fields{obj: obj}
	var it search.Item
	it.ID = f.str("id")
	it.Type = f.str("type")
	it.Title = f.str("title")
	it.Summary = f.str("summary")
	it.Description = f.str("description")
	it.Tags = f.strs("tags")
	it.Keywords = f.strs("keywords")
	it.Author = strings.TrimSpace(f.str("author"))
	it.Category = f.str("category")
	it.CategoryName = f.str("category_name")
	it.Language = f.str("language")
	it.Date = f.str("date")
	it.Downloads = f.intOr("downloads", 0)
	it.Permalink = f.str("permalink")
	it.SHA256 = strings.ToLower(f.str("sha256"))
	mediaPath := f.str("media_path")
	it.MediaURL = f.str("media_url")
	it.ThumbnailURL = f.str("thumbnail_url")
	it.MimeType = f.str("mime_type")
	it.SizeBytes = f.intPtr("size_bytes")
	it.DurationSeconds = f.floatPtr("duration_seconds")
	it.Width = f.intPtr("width")
	it.Height = f.intPtr("height")
	it.License = f.str("license")
	it.Rights = f.str("rights")
	it.Source = f.str("source")
	if f.err != nil {
		return search.Item{}, bad(f.err.key, "%s", f.err.reason)
	}

	if it.ID == "" {
		return search.Item{}, bad("id", "required")
	}
	if err := search.CheckID(it.ID); err != nil {
		return search.Item{}, bad("id", "%s; this one %v", search.IDLimits, err)
	}
	id := keyOf(it.ID)
	if prev, dup := r.seen[id]; dup {
		return search.Item{}, bad("id", "%q already used on line %d", it.ID, prev)
	}
	switch {
	case it.Type == "":
		return search.Item{}, bad("type", "required")
	case !slices.Contains(search.Types, it.Type):
		return search.Item{}, bad("type", "%q is not one of %s", it.Type, strings.Join(search.Types, ", "))
	}
	if strings.TrimSpace(it.Title) == "" {
		return search.Item{}, bad("title", "required and non-empty")
	}
	if key, err := search.CheckText(it); err != nil {
		return search.Item{}, bad(key, "%v", err)
	}
	if it.Category != "" && !search.ValidSlug(it.Category) {
		return search.Item{}, bad("category", "%q %s", it.Category, search.SlugLimits)
	}
	if it.Category == "" && it.CategoryName != "" {
		return search.Item{}, bad("category_name", "given without category")
	}
	if it.Language != "" {
		code, ok := search.LanguageCode(it.Language)
		if !ok {
			return search.Item{}, bad("language", "%q is not an ISO 639-1 code", it.Language)
		}
		it.Language = code
	}
	if it.Date != "" {
		if _, ok := search.ParseDate(it.Date); !ok {
			return search.Item{}, bad("date", "%q is not a real date YYYY-MM-DD", it.Date)
		}
	}
	if it.Downloads < 0 {
		return search.Item{}, bad("downloads", "must be >= 0")
	}
	// Served as links and encoded in QR codes: a javascript: or data: URL would run in a visitor's page.
	for key, v := range map[string]string{"permalink": it.Permalink, "media_url": it.MediaURL, "thumbnail_url": it.ThumbnailURL} {
		if v != "" && !webURL(v) {
			return search.Item{}, bad(key, "%q is not an http or https URL with a host", v)
		}
	}
	if it.SHA256 != "" && !hexDigest(it.SHA256) {
		return search.Item{}, bad("sha256", "must be 64 hexadecimal digits")
	}
	if it.SHA256 == "" && mediaPath != "" {
		sum, reason, err := r.digest(mediaPath)
		if err != nil {
			return search.Item{}, err
		}
		if reason != "" {
			return search.Item{}, bad("media_path", "%q %s", mediaPath, reason)
		}
		it.SHA256 = sum
	}
	r.seen[id] = r.line
	it.Derive()
	return it, nil
}

// webURL: an absolute http or https URL with a host.
func webURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}

// digest hashes the media file at path, relative to the media directory or absolute under it.
// It returns the reason the line is refused when the file breaks a rule of Media, and an error
// only when the context ended the hashing.
func (r *Reader) digest(path string) (sum, reason string, err error) {
	if r.media.Dir == "" {
		return "", "is given, but no media directory was named for this load", nil
	}
	rel := path
	if filepath.IsAbs(path) {
		dir, err := filepath.Abs(r.media.Dir)
		if err != nil {
			return "", "", fmt.Errorf("media directory: %w", err)
		}
		if rel, err = filepath.Rel(dir, path); err != nil {
			return "", "is not under the media directory", nil
		}
	}
	// os.Root refuses names and links that leave the directory.
	root, err := os.OpenRoot(r.media.Dir)
	if err != nil {
		return "", "", fmt.Errorf("media directory: %w", err)
	}
	defer root.Close()
	st, err := root.Stat(rel)
	if err != nil {
		return "", fmt.Sprintf("cannot be read under the media directory: %v", unwrapPath(err)), nil
	}
	if !st.Mode().IsRegular() {
		return "", "is not a regular file", nil
	}
	// O_NONBLOCK: a FIFO put in the file's place since the Stat would otherwise block the open.
	f, err := root.OpenFile(rel, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return "", fmt.Sprintf("cannot be read under the media directory: %v", unwrapPath(err)), nil
	}
	defer f.Close()
	if fst, err := f.Stat(); err != nil || !os.SameFile(st, fst) {
		return "", "changed while it was opened", nil
	}
	if st.Size() > r.media.MaxBytes {
		return "", fmt.Sprintf("is %d bytes, over the limit of %d", st.Size(), r.media.MaxBytes), nil
	}
	h := sha256.New()
	// The size seen at open bounds the read even if the file grows meanwhile.
	if _, err := io.Copy(h, io.LimitReader(ctxReader{r.ctx, f}, st.Size())); err != nil {
		if cerr := r.ctx.Err(); cerr != nil {
			return "", "", fmt.Errorf("hash media_path %q: %w", path, cerr)
		}
		return "", fmt.Sprintf("cannot be read: %v", unwrapPath(err)), nil
	}
	return hex.EncodeToString(h.Sum(nil)), "", nil
}

// unwrapPath drops the *PathError's operation and path, which the line error already names.
func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// ctxReader stops reading once ctx is done: hashing a large file ends promptly on SIGTERM.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

// fields decodes typed values from one line's object, remembering the first type error.
type fields struct {
	obj map[string]json.RawMessage
	err *fieldErr
}

type fieldErr struct{ key, reason string }

func (f *fields) fail(key, reason string) {
	if f.err == nil {
		f.err = &fieldErr{key, reason}
	}
}

func (f *fields) raw(key string) (json.RawMessage, bool) {
	v, ok := f.obj[key]
	if !ok || string(v) == "null" {
		return nil, false
	}
	return v, true
}

func (f *fields) str(key string) string {
	v, ok := f.raw(key)
	if !ok {
		return ""
	}
	// Most values have no escapes: the line's JSON is already checked, so their text is the bytes
	// between the quotes, and decoding them a second time is the loader's largest cost.
	if len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"' && bytes.IndexByte(v, '\\') < 0 {
		return string(v[1 : len(v)-1])
	}
	var s string
	if err := json.Unmarshal(v, &s); err != nil {
		f.fail(key, "must be a string")
		return ""
	}
	return s
}

func (f *fields) strs(key string) []string {
	v, ok := f.raw(key)
	if !ok {
		return nil
	}
	ss, ok := splitStrings(v)
	if !ok {
		var ptrs []*string
		if err := json.Unmarshal(v, &ptrs); err != nil {
			f.fail(key, "must be an array of strings")
			return nil
		}
		// splitStrings reads every array of strings: this one holds a null.
		f.fail(key, "must be an array of strings (null element)")
		return nil
	}
	out := ss[:0]
	for _, s := range ss {
		if t := strings.TrimSpace(s); t != "" {
			out = append(out, t)
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

func (f *fields) number(key string) (json.Number, bool) {
	v, ok := f.raw(key)
	if !ok {
		return "", false
	}
	// The line's JSON is already checked, so a value starting like a number is one (a quoted
	// number is a string, which the format does not take).
	if c := v[0]; c != '-' && (c < '0' || c > '9') {
		f.fail(key, "must be a number")
		return "", false
	}
	return json.Number(v), true
}

func (f *fields) intPtr(key string) *int64 {
	n, ok := f.number(key)
	if !ok {
		return nil
	}
	i, err := n.Int64()
	if err != nil {
		f.fail(key, "must be an integer")
		return nil
	}
	return &i
}

func (f *fields) intOr(key string, def int64) int64 {
	if p := f.intPtr(key); p != nil {
		return *p
	}
	return def
}

func (f *fields) floatPtr(key string) *float64 {
	n, ok := f.number(key)
	if !ok {
		return nil
	}
	x, err := n.Float64()
	if err != nil {
		f.fail(key, "must be a number")
		return nil
	}
	return &x
}

// Items yields the reader's items. With reject nil, the first bad line ends the sequence with its
// error; otherwise bad lines are written unchanged to reject and skipped. A read error always ends it.
func Items(r *Reader, reject io.Writer) iter.Seq2[search.Item, error] {
	return func(yield func(search.Item, error) bool) {
		for {
			it, err := r.Next()
			if errors.Is(err, io.EOF) {
				return
			}
			var lerr *LineError
			if errors.As(err, &lerr) && reject != nil {
				if werr := r.WriteReject(reject); werr != nil {
					yield(search.Item{}, werr)
					return
				}
				continue
			}
			if err != nil {
				yield(search.Item{}, err)
				return
			}
			if !yield(it, nil) {
				return
			}
		}
	}
}

// ReadFile reads a whole catalogue file strictly: the first bad line is an error.
func ReadFile(path string) ([]search.Item, error) {
	items, _, err := ReadAll(path, nil)
	return items, err
}

// ReadAll reads a whole catalogue file. With reject nil the first bad line is an error; otherwise
// bad lines go to reject unchanged and Stats counts them. The real catalogue in shared/data has 32
// ids that break the id rule, so reading it needs a reject writer.
func ReadAll(path string, reject io.Writer) ([]search.Item, Stats, error) {
	rc, err := Open(path)
	if err != nil {
		return nil, Stats{}, err
	}
	defer rc.Close()
	r := NewReader(rc)
	var items []search.Item
	for it, err := range Items(r, reject) {
		if err != nil {
			return nil, r.Stats(), fmt.Errorf("%s: %w", path, err)
		}
		items = append(items, it)
	}
	return items, r.Stats(), nil
}

// splitObject is what json.Unmarshal makes of line, a JSON object, into a map of its keys' raw
// values (the last of a repeated key), without its reflection: reading the object is most of
// reading a line. It fills obj, emptied first, which the reader reuses from line to line. line is
// valid UTF-8 (parse checks it first); the values share its bytes. ok is false for any other line
// (not JSON, not an object), which Unmarshal then reads and explains.
func splitObject(line []byte, obj map[string]json.RawMessage) (_ map[string]json.RawMessage, ok bool) {
	if !json.Valid(line) {
		return nil, false
	}
	// Valid JSON from here: every scan below ends within the line.
	i := skipSpace(line, 0)
	if line[i] != '{' {
		return nil, false
	}
	clear(obj)
	if i = skipSpace(line, i+1); line[i] == '}' {
		return obj, true
	}
	for {
		end := endOfString(line, i)
		key, err := unquote(line[i:end])
		if err != nil {
			return nil, false
		}
		i = skipSpace(line, skipSpace(line, end)+1)
		end = endOfValue(line, i)
		obj[key] = line[i:end:end]
		if i = skipSpace(line, end); line[i] == '}' {
			return obj, true
		}
		i = skipSpace(line, i+1)
	}
}

// splitStrings is what json.Unmarshal makes of v, a valid JSON value, into a []string, without
// its reflection; ok is false when v is not an array of strings only.
func splitStrings(v []byte) (ss []string, ok bool) {
	if v[0] != '[' {
		return nil, false
	}
	i := skipSpace(v, 1)
	if v[i] == ']' {
		return []string{}, true
	}
	for {
		if v[i] != '"' {
			return nil, false
		}
		end := endOfString(v, i)
		s, err := unquote(v[i:end])
		if err != nil {
			return nil, false
		}
		ss = append(ss, s)
		if i = skipSpace(v, end); v[i] == ']' {
			return ss, true
		}
		i = skipSpace(v, i+1)
	}
}

// unquote is the text of a JSON string, q with its quotes; a key of the format is the one string
// known holds, not a copy made for every line.
func unquote(q []byte) (string, error) {
	if bytes.IndexByte(q, '\\') < 0 {
		if k, ok := names[string(q[1:len(q)-1])]; ok {
			return k, nil
		}
		return string(q[1 : len(q)-1]), nil
	}
	var s string
	err := json.Unmarshal(q, &s)
	return s, err
}

// skipSpace returns the first byte of b from i on that is not JSON's white space.
func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// endOfString returns where the JSON string starting at b[i] ends, past its closing quote.
func endOfString(b []byte, i int) int {
	for i++; ; i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
}

// endOfValue returns where the JSON value starting at b[i] ends.
func endOfValue(b []byte, i int) int {
	switch b[i] {
	case '"':
		return endOfString(b, i)
	case '{', '[':
		depth := 0
		for {
			switch b[i] {
			case '"':
				i = endOfString(b, i)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
			i++
		}
	}
	// A number, true, false or null: up to the next delimiter or white space.
	for ; i < len(b); i++ {
		switch b[i] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			return i
		}
	}
	return i
}
