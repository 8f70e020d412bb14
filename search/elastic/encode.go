package elastic

import (
	"fmt"
	"math"
	"strconv"
	"unicode/utf8"

	"mediagw/search"
)

// appendDocument appends d as json.Marshal writes it (TestBulkLines): the fields in the struct's
// order, the same omitempty rules, HTML-safe string escapes. Written by hand because the
// encoding was the largest part of a load's own CPU after the analysis.
func appendDocument(b []byte, d *Document) ([]byte, error) {
	it := &d.Item
	b = append(b, `{"id":`...)
	b = appendString(b, it.ID)
	b = append(b, `,"type":`...)
	b = appendString(b, it.Type)
	b = append(b, `,"title":`...)
	b = appendString(b, it.Title)
	b = appendOptString(b, `,"summary":`, it.Summary)
	b = appendOptString(b, `,"description":`, it.Description)
	b = appendOptStrings(b, `,"tags":`, it.Tags)
	b = appendOptStrings(b, `,"keywords":`, it.Keywords)
	b = appendOptString(b, `,"author":`, it.Author)
	b = appendOptString(b, `,"category":`, it.Category)
	b = appendOptString(b, `,"category_name":`, it.CategoryName)
	b = appendOptString(b, `,"language":`, it.Language)
	b = appendOptString(b, `,"date":`, it.Date)
	b = append(b, `,"downloads":`...)
	b = strconv.AppendInt(b, it.Downloads, 10)
	b = appendOptString(b, `,"permalink":`, it.Permalink)
	b = appendOptString(b, `,"sha256":`, it.SHA256)
	b = appendOptString(b, `,"media_url":`, it.MediaURL)
	b = appendOptString(b, `,"thumbnail_url":`, it.ThumbnailURL)
	b = appendOptString(b, `,"mime_type":`, it.MimeType)
	b = appendOptInt(b, `,"size_bytes":`, it.SizeBytes)
	if it.DurationSeconds != nil {
		var err error
		if b, err = appendFloat(append(b, `,"duration_seconds":`...), *it.DurationSeconds); err != nil {
			return b, fmt.Errorf("duration_seconds: %w", err)
		}
	}
	b = appendOptInt(b, `,"width":`, it.Width)
	b = appendOptInt(b, `,"height":`, it.Height)
	b = appendOptString(b, `,"license":`, it.License)
	b = appendOptString(b, `,"rights":`, it.Rights)
	b = appendOptString(b, `,"source":`, it.Source)
	l := &it.MediaLicense
	b = append(b, `,"media_license":{"id":`...)
	b = appendString(b, l.ID)
	b = appendOptString(b, `,"version":`, l.Version)
	b = appendOptString(b, `,"jurisdiction":`, l.Jurisdiction)
	b = appendOptString(b, `,"url":`, l.URL)
	if l.Commercial {
		b = append(b, `,"commercial":true`...)
	}
	if l.Modification {
		b = append(b, `,"modification":true`...)
	}
	b = append(b, '}')
	b = appendOptString(b, `,"format":`, it.Format)
	b = appendOptString(b, `,"duration":`, it.Duration)
	b = append(b, `,"title_sort":`...)
	b = appendString(b, d.TitleSort)
	var err error
	if b, err = appendFloat(append(b, `,"bonus":`...), d.Bonus); err != nil {
		return b, fmt.Errorf("bonus: %w", err)
	}
	b = appendOptString(b, `,"year":`, d.Year)
	b = appendOptStrings(b, `,"has":`, d.Has)
	b = appendOptString(b, `,"author_key":`, d.AuthorKey)
	b = appendOptString(b, `,"w_title":`, d.TitleTerms)
	b = appendOptString(b, `,"w_summary":`, d.SummaryTerms)
	b = appendOptString(b, `,"w_description":`, d.DescriptionTerms)
	b = appendOptStrings(b, `,"w_tags":`, d.TagsTerms)
	b = appendOptStrings(b, `,"w_keywords":`, d.KeywordsTerms)
	b = appendOptString(b, `,"w_author":`, d.AuthorTerms)
	b = appendOptString(b, `,"s_title":`, d.TitleStems)
	b = appendOptString(b, `,"s_text":`, d.TextStems)
	b = appendOptString(b, `,"title_prefixes":`, d.TitlePrefixes)
	b = appendOptStrings(b, `,"vocabulary":`, d.Vocabulary)
	return append(b, '}'), nil
}

// appendAction appends the action line's object of an item, what json.Marshal makes of
// {"index": {"_id": id}}.
func appendAction(b []byte, it *search.Item) []byte {
	b = append(b, `{"index":{"_id":`...)
	return append(appendString(b, it.ID), "}}"...)
}

// appendOptString appends key and s unless s is empty (omitempty).
func appendOptString(b []byte, key, s string) []byte {
	if s == "" {
		return b
	}
	return appendString(append(b, key...), s)
}

// appendOptStrings appends key and ss as an array unless ss is empty (omitempty).
func appendOptStrings(b []byte, key string, ss []string) []byte {
	if len(ss) == 0 {
		return b
	}
	b = append(append(b, key...), '[')
	for i, s := range ss {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, s)
	}
	return append(b, ']')
}

// appendOptInt appends key and *n unless n is nil (omitempty).
func appendOptInt(b []byte, key string, n *int64) []byte {
	if n == nil {
		return b
	}
	return strconv.AppendInt(append(b, key...), *n, 10)
}

// appendFloat appends f as encoding/json writes a float64: the shortest form, with an exponent
// only below 1e-6 or from 1e21 on, its exponent without a leading zero.
func appendFloat(b []byte, f float64) ([]byte, error) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return b, fmt.Errorf("unsupported value %v", f)
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b, nil
}

// plain marks the ASCII bytes a JSON string holds as they are with json.Marshal's HTML-safe
// escaping: every printable one but the quote, the backslash, <, > and &.
var plain = func() (t [utf8.RuneSelf]bool) {
	for c := ' '; c < utf8.RuneSelf; c++ {
		t[c] = true
	}
	for _, c := range `"\<>&` {
		t[c] = false
	}
	return t
}()

// appendString appends s quoted and escaped as json.Marshal escapes it: invalid UTF-8 as
// U+FFFD, U+2028 and U+2029 escaped for JavaScript.
func appendString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if plain[c] {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '\\', '"':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
