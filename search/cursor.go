package search

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Cursor paging: a walk through every match of a query, past the MaxDepth window of numbered
// pages. A cursor names where the walk stopped by the sort values of the last item given, so the
// engine starts after it (search_after) instead of counting from the first match; as every order
// ends with the id, no two items share a position and a walk on one index version sees each item
// exactly once.

// StartCursor is the cursor of a walk's first page.
const StartCursor = "*"

// MaxCursorBytes bounds an encoded cursor as the gateway reads one: room for a 512-byte id and a
// title of some 2,000 bytes (the az order's sort value), base64-encoded. The real catalogue's
// longest title has 428 bytes.
const MaxCursorBytes = 4096

// Cursor is a decoded position of a walk.
type Cursor struct {
	// Version is the index version the walk reads (Versioned); another version cannot continue it.
	Version string
	// Seen is the number of items the walk gave before this page.
	Seen int
	// After holds the sort values of the last item given, as the backend that made the cursor
	// reads them (strings, or json.Number for numbers), the id last. Backends check their shape
	// (CheckAfter) before an engine sees them.
	After []any
}

// Errors of a cursor a caller branches on.
var (
	// ErrCursorInvalid means a cursor is malformed, was changed, or was made for another query
	// (other text, filters, sort or per_page).
	ErrCursorInvalid error = &Error{Kind: KindCursorInvalid, Err: errors.New("cursor is malformed, changed, or made for another query")}
	// ErrCursorExpired means a cursor was made on an index version no longer served: the walk
	// must start again.
	ErrCursorExpired error = &Error{Kind: KindCursorExpired, Err: errors.New("cursor is from an index version no longer served")}
)

// cursorFormat is the first byte of an encoded cursor; a change of layout bumps it.
const cursorFormat = 1

// sumLen is the length of the checksum an encoded cursor carries.
const sumLen = 8

// walkKey is what binds a cursor to its query: everything that decides which items a walk gives
// and in which order. Facets and highlighting do not, so a walk may change them.
func walkKey(q *Query) []byte {
	return []byte(strings.Join(append(append(q.textParts(), string(q.Sort), strconv.Itoa(q.PerPage)), q.Filters()...), "\x00"))
}

// cursorSum is the checksum of a cursor's payload for the query q: an integrity check (a
// tampered or truncated cursor fails it) that also binds the cursor to q. It is no secret: the
// API is public and read-only, and a forged position can only skip to another place of the
// same walk, which backends check for shape.
func cursorSum(q *Query, payload []byte) []byte {
	h := sha256.New()
	key := walkKey(q)
	_ = binary.Write(h, binary.BigEndian, uint32(len(key)))
	h.Write(key)
	h.Write(payload)
	return h.Sum(nil)[:sumLen]
}

// EncodeCursor is the opaque form of c for q: base64url of the format byte, the checksum and the
// JSON array [version, seen, after].
func EncodeCursor(q *Query, c Cursor) string {
	payload, err := json.Marshal([]any{c.Version, c.Seen, c.After})
	if err != nil {
		// After holds strings and numbers from the engine's own answer; they always encode.
		panic(fmt.Sprintf("search: encode cursor: %v", err))
	}
	raw := make([]byte, 0, 1+sumLen+len(payload))
	raw = append(raw, cursorFormat)
	raw = append(raw, cursorSum(q, payload)...)
	raw = append(raw, payload...)
	return base64.RawURLEncoding.EncodeToString(raw)
}

// ParseCursor reads a cursor made by EncodeCursor for q. Anything else, StartCursor included, is
// an error wrapping ErrCursorInvalid. It does not know which version is served: the backend
// checks that (ErrCursorExpired).
func ParseCursor(s string, q *Query) (Cursor, error) {
	invalid := func(why string) (Cursor, error) { return Cursor{}, fmt.Errorf("%w: %s", ErrCursorInvalid, why) }
	if len(s) > MaxCursorBytes {
		return invalid("too long")
	}
	raw, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return invalid("not base64url")
	}
	if len(raw) < 1+sumLen || raw[0] != cursorFormat {
		return invalid("unknown format")
	}
	sum, payload := raw[1:1+sumLen], raw[1+sumLen:]
	if !bytes.Equal(sum, cursorSum(q, payload)) {
		return invalid("checksum does not match this query")
	}
	dec := json.NewDecoder(bytes.NewReader(payload))
	dec.UseNumber()
	var parts []json.RawMessage
	if err := dec.Decode(&parts); err != nil || len(parts) != 3 {
		return invalid("bad payload")
	}
	var c Cursor
	if err := json.Unmarshal(parts[0], &c.Version); err != nil || c.Version == "" {
		return invalid("bad version")
	}
	if err := json.Unmarshal(parts[1], &c.Seen); err != nil || c.Seen < 1 {
		return invalid("bad count")
	}
	dec = json.NewDecoder(bytes.NewReader(parts[2]))
	dec.UseNumber()
	if err := dec.Decode(&c.After); err != nil || len(c.After) == 0 {
		return invalid("bad position")
	}
	return c, nil
}

// SortValue is the kind of one value of a cursor's position.
type SortValue int

// The kinds of sort values.
const (
	// SortString is a string (a keyword, a title key, an id).
	SortString SortValue = iota
	// SortInteger is a whole number (a date or a count, as the engine sorts them).
	SortInteger
	// SortFloat is a number (a score).
	SortFloat
)

// CheckAfter reports whether after has the shape kinds says, so that a forged cursor cannot make
// the engine fail: an error wrapping ErrCursorInvalid otherwise.
func CheckAfter(after []any, kinds []SortValue) error {
	if len(after) != len(kinds) {
		return fmt.Errorf("%w: %d sort values for an order of %d", ErrCursorInvalid, len(after), len(kinds))
	}
	for i, k := range kinds {
		ok := false
		switch v := after[i].(type) {
		case string:
			ok = k == SortString
		case json.Number:
			switch k {
			case SortInteger:
				_, err := strconv.ParseInt(string(v), 10, 64)
				ok = err == nil
			case SortFloat:
				_, err := strconv.ParseFloat(string(v), 64)
				ok = err == nil
			}
		}
		if !ok {
			return fmt.Errorf("%w: sort value %d is not of its kind", ErrCursorInvalid, i)
		}
	}
	return nil
}

// Walk reports whether r pages by cursor, and from where: the zero Cursor at the walk's start.
func (r *Request) Walk() (Cursor, bool, error) {
	switch r.Query.Cursor {
	case "":
		return Cursor{}, false, nil
	case StartCursor:
		return Cursor{}, true, nil
	}
	if r.Position != nil {
		return *r.Position, true, nil
	}
	c, err := ParseCursor(r.Query.Cursor, &r.Query)
	return c, true, err
}

// Next is the cursor of the page after this one of a walk of q on version, where the page gave n
// items, the last at after, of total: "" when the walk has given every item.
func (c Cursor) Next(q *Query, version string, n, total int, after []any) string {
	seen := c.Seen + n
	if n == 0 || seen >= total {
		return ""
	}
	return EncodeCursor(q, Cursor{Version: version, Seen: seen, After: after})
}
