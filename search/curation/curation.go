// Package curation reads the operators' synonyms and pinned results from their files
// (rules/synonyms.txt, rules/pins.txt): which words a query word is also searched as, and
// which items come first for a query. Both backends store the set and apply it alike
// (search.Curation); a file with a bad line is refused whole, naming every bad line.
package curation

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"slices"
	"strings"
	"unicode/utf8"

	"mediagw/search"
	"mediagw/search/text"
)

// MaxBytes bounds each file: the set travels to every replica every few seconds.
const MaxBytes = 1 << 20

// MaxAlternatives bounds the words one word is searched as: each is a clause of its query, which
// the embedded index scores within 16 (search/bleve's maxClauses).
const MaxAlternatives = 16

// MaxPinned bounds the ids of one pin: pinned items come first, so more than a page of them is
// never seen on the first page, and each is a clause of its query.
const MaxPinned = search.MaxPerPage

// Files are the two files as the operator wrote them: what is stored and shown.
type Files struct {
	Synonyms string `json:"synonyms"`
	Pins     string `json:"pins"`
}

// Rules is a checked set of synonyms and pins; it implements search.Curation. The zero value
// and nil hold none.
type Rules struct {
	files Files
	// digest names files (Digest); stored is the SHA-256 of the stored form the set was decoded
	// from or encodes to, which Decode compares before it decodes.
	digest, stored string
	// synonyms maps a word's key to the words it is searched as.
	synonyms map[string][]string
	// pins maps a query's key to the ids that come first.
	pins map[string][]string
}

var _ search.Curation = (*Rules)(nil)

// Store is where a backend keeps the set, beside its index versions, for every replica to read
// (search/live reads it beside the version): every backend has one.
type Store interface {
	// ApplyRules stores r as the set every replica serves.
	ApplyRules(ctx context.Context, r *Rules) error
	// Rules returns the stored set (an empty one when none was applied), or held itself when the
	// stored set is held's: its digest is compared before it is decoded. held may be nil.
	Rules(ctx context.Context, held *Rules) (*Rules, error)
}

// LineError is a bad line of a file.
type LineError struct {
	File string
	Line int
	Err  error
}

func (e LineError) Error() string { return fmt.Sprintf("%s line %d: %v", e.File, e.Line, e.Err) }

// Error is a refused set: every bad line of both files.
type Error struct{ Lines []LineError }

// MaxReported is how many bad lines Error's message names; it counts the rest.
const MaxReported = 20

func (e *Error) Error() string {
	n := min(len(e.Lines), MaxReported)
	msgs := make([]string, n)
	for i, l := range e.Lines[:n] {
		msgs[i] = l.Error()
	}
	msg := "refused: " + strings.Join(msgs, "; ")
	if more := len(e.Lines) - n; more > 0 {
		msg += fmt.Sprintf("; and %d more bad lines", more)
	}
	return msg
}

// Parse checks both files and returns their rules, or an *Error naming each bad line: the one
// check of a set, whether an operator's files (mediactl) or a stored set read again (Decode). It
// takes time linear in the files' size.
//
// Synonyms, in Solr's format: one rule a line; `tv, television` makes each word searched as all
// of them; `laptop => notebook` searches laptop as notebook only (`laptop => laptop, notebook`
// keeps it); rules for one word add up; `#` starts a comment line; blank lines are skipped. A
// synonym is one word: a phrase (`big apple`) is refused.
//
// Pins: one rule a line, `query => id1, id2`: a search of query by relevance (its words folded as
// the text analysis folds them: `The TV` is `the tv`) shows the items it finds among those ids
// first, in that order; `#` comments and blank lines as above.
//
// A rule whose own search would pass search.MaxClauses is refused too (overBudget).
func Parse(f Files) (*Rules, error) {
	r := &Rules{files: f, synonyms: map[string][]string{}, pins: map[string][]string{}}
	// synonymKeys are the keys of each word's alternatives, so that no alternative's is made twice.
	synonymKeys := map[string][]string{}
	var bad []LineError
	for _, file := range []struct {
		name, text string
		rule       func(string) error
	}{
		{"synonyms", f.Synonyms, func(line string) error { return r.addSynonyms(line, synonymKeys) }},
		{"pins", f.Pins, r.addPins},
	} {
		if len(file.text) > MaxBytes {
			bad = append(bad, LineError{file.name, 1, fmt.Errorf("the file is over %d bytes", MaxBytes)})
			continue
		}
		n := 0
		for line := range strings.Lines(file.text) {
			n++
			line = strings.TrimSpace(line)
			if line == "" || strings.HasPrefix(line, "#") {
				continue
			}
			err := errors.New("not UTF-8")
			if utf8.ValidString(line) {
				err = file.rule(line)
			}
			if err != nil {
				bad = append(bad, LineError{file.name, n, err})
			}
		}
	}
	if len(bad) == 0 {
		bad = r.overBudget()
	}
	if len(bad) > 0 {
		return nil, &Error{Lines: bad}
	}
	sum := sha256.Sum256([]byte(f.Synonyms + "\x00" + f.Pins))
	r.digest = hex.EncodeToString(sum[:])
	b, err := r.Encode()
	if err != nil {
		return nil, err
	}
	r.stored = storedSum(b)
	return r, nil
}

func (r *Rules) addSynonyms(line string, keys map[string][]string) error {
	if strings.Contains(line, `\`) {
		return errors.New(`escapes (\) are not supported`)
	}
	left, right, oneWay := strings.Cut(line, "=>")
	from, err := synonymWords(left)
	if err != nil {
		return err
	}
	to := from
	if oneWay {
		if strings.Contains(right, "=>") {
			return errors.New("more than one =>")
		}
		if to, err = synonymWords(right); err != nil {
			return err
		}
	} else if len(from) < 2 {
		return errors.New("one word is no synonym: list two or more, or use =>")
	}
	// The line's words, each once, with their keys: the list every word new to the file shares.
	var alts, altKeys []string
	for _, t := range to {
		if k := key(t); !slices.Contains(altKeys, k) {
			alts, altKeys = append(alts, t), append(altKeys, k)
		}
	}
	// Clipped, so that a later line's append to a word's list copies it rather than writing
	// into the list the others share.
	alts, altKeys = slices.Clip(alts), slices.Clip(altKeys)
	for _, w := range from {
		k := key(w)
		if n := len(r.synonyms[k]) + len(to); n > MaxAlternatives {
			return fmt.Errorf("%q would be searched as %d words, past %d", w, n, MaxAlternatives)
		}
		if len(r.synonyms[k]) == 0 {
			r.synonyms[k], keys[k] = alts, altKeys
			continue
		}
		for i, t := range alts {
			if !slices.Contains(keys[k], altKeys[i]) {
				r.synonyms[k] = append(r.synonyms[k], t)
				keys[k] = append(keys[k], altKeys[i])
			}
		}
	}
	return nil
}

// synonymWords reads a comma-separated list of single words.
func synonymWords(list string) ([]string, error) {
	var out []string
	for _, w := range strings.Split(list, ",") {
		w = strings.TrimSpace(w)
		switch words := text.Words(w); {
		case w == "":
			return nil, errors.New("an empty synonym (two commas, or a comma at an end)")
		case len(words) == 0:
			return nil, fmt.Errorf("%q holds no word", w)
		case utf8.RuneCountInString(w) > search.MaxTextRunes:
			return nil, fmt.Errorf("a word is over %d characters, longer than a search may be", search.MaxTextRunes)
		case len(words) > 1 || words[0] != w:
			return nil, fmt.Errorf("%q is not one word: multi-word synonyms are not supported", w)
		}
		out = append(out, w)
	}
	return out, nil
}

func (r *Rules) addPins(line string) error {
	q, list, ok := strings.Cut(line, "=>")
	if !ok {
		return errors.New("no =>: write `query => id1, id2`")
	}
	if utf8.RuneCountInString(q) > search.MaxTextRunes {
		return fmt.Errorf("the query is over %d characters, longer than a search may be", search.MaxTextRunes)
	}
	k := Key(q)
	if k == "" {
		return fmt.Errorf("the query %q holds no word", strings.TrimSpace(q))
	}
	if _, dup := r.pins[k]; dup {
		return fmt.Errorf("the query %q is pinned on an earlier line", k)
	}
	if n := strings.Count(list, ",") + 1; n > MaxPinned {
		return fmt.Errorf("%d ids, past %d", n, MaxPinned)
	}
	var ids []string
	seen := map[string]bool{}
	for id := range strings.SplitSeq(list, ",") {
		id = strings.TrimSpace(id)
		if err := search.CheckID(id); err != nil {
			return fmt.Errorf("id %q %v (an id %s)", id, err, search.IDLimits)
		}
		if seen[id] {
			return fmt.Errorf("id %q is listed twice", id)
		}
		seen[id] = true
		ids = append(ids, id)
	}
	r.pins[k] = ids
	return nil
}

// Key is a query's text as pins compare it: its terms, folded by the text analysis, in order.
func Key(q string) string { return strings.Join(text.QueryTerms(q), " ") }

// key is a word's: its terms.
func key(w string) string { return strings.Join(text.Terms(w), " ") }

// Alternatives returns the words w is searched as; nil when it has no synonyms.
func (r *Rules) Alternatives(w string) []string {
	if r == nil || len(r.synonyms) == 0 {
		return nil
	}
	return r.synonyms[key(w)]
}

// Pinned returns the ids that come first in a search of q by relevance.
func (r *Rules) Pinned(q string) []string {
	if r == nil || len(r.pins) == 0 {
		return nil
	}
	return r.pins[Key(q)]
}

// Files returns the files the rules were read from.
func (r *Rules) Files() Files {
	if r == nil {
		return Files{}
	}
	return r.files
}

// Empty reports whether the rules hold no synonym and no pin.
func (r *Rules) Empty() bool { return r == nil || len(r.synonyms) == 0 && len(r.pins) == 0 }

// Served is r as a search carries it (search.Request.Curation): nil when r holds no rule, so that a
// backend with none applies nothing.
func (r *Rules) Served() search.Curation {
	if r.Empty() {
		return nil
	}
	return r
}

// Digest names the set, "" for an empty one: what the cache and the did-you-mean key their
// answers by beside the index version, so that a new set is served at once.
func (r *Rules) Digest() string {
	if r.Empty() {
		return ""
	}
	return r.digest[:12]
}

// Pins returns every pinned query's ids, for a check of them against the index.
func (r *Rules) Pins() iter.Seq2[string, []string] {
	return func(yield func(string, []string) bool) {
		if r == nil {
			return
		}
		for q, ids := range r.pins {
			if !yield(q, ids) {
				return
			}
		}
	}
}

// stored is the stored form of a set: its files and the digest of them, which a store may read
// alone to learn whether the set changed (Unchanged).
type stored struct {
	Files
	Digest string `json:"digest"`
}

// Encode is the stored form of the rules: their files and their digest, as JSON.
func (r *Rules) Encode() ([]byte, error) {
	s := stored{Files: r.Files()}
	if r != nil {
		s.Digest = r.digest
	}
	b, err := json.Marshal(s)
	if err != nil {
		return nil, fmt.Errorf("encode rules: %w", err)
	}
	return b, nil
}

// Unchanged reports whether digest, read from a stored set, is held's: the set need not be read
// again. A stored form without one (written before sets carried it) is never unchanged.
func Unchanged(digest string, held *Rules) bool {
	return held != nil && digest != "" && digest == held.digest
}

// StoredDigest is the field of the stored form that holds its digest, for a store that reads it
// alone (Unchanged).
const StoredDigest = "digest"

// Decode reads rules stored by Encode, checking them again, unless they are held's stored form:
// then it returns held, without decoding the stored set again.
func Decode(b []byte, held *Rules) (*Rules, error) {
	sum := storedSum(b)
	if held != nil && held.stored == sum {
		return held, nil
	}
	var s stored
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("stored rules: %w", err)
	}
	r, err := Parse(s.Files)
	if err != nil {
		return nil, fmt.Errorf("stored rules: %w", err)
	}
	r.stored = sum
	return r, nil
}

func storedSum(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}
