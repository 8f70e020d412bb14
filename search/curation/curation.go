// Package curation reads the operators' synonyms and pinned results from their files
// (mappings/synonyms.txt, mappings/pins.txt): which words a query word is also searched as, and
// which items come first for a query. Both backends store the set and apply it alike
// (search.Curation); a file with a bad line is refused whole, naming every bad line.
package curation

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
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

// Files are the two files as the operator wrote them: what is stored and shown.
type Files struct {
	Synonyms string `json:"synonyms"`
	Pins     string `json:"pins"`
}

// Rules is a checked set of synonyms and pins; it implements search.Curation. The zero value
// and nil hold none.
type Rules struct {
	files Files
	// synonyms maps a word's key to the words it is searched as.
	synonyms map[string][]string
	// pins maps a query's key to the ids that come first.
	pins map[string][]string
}

var _ search.Curation = (*Rules)(nil)

// LineError is a bad line of a file.
type LineError struct {
	File string
	Line int
	Err  error
}

func (e LineError) Error() string { return fmt.Sprintf("%s line %d: %v", e.File, e.Line, e.Err) }

// Error is a refused set: every bad line of both files.
type Error struct{ Lines []LineError }

func (e *Error) Error() string {
	msgs := make([]string, len(e.Lines))
	for i, l := range e.Lines {
		msgs[i] = l.Error()
	}
	return "refused: " + strings.Join(msgs, "; ")
}

// Parse checks both files and returns their rules, or an *Error naming each bad line.
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
	var bad []LineError
	for _, file := range []struct {
		name, text string
		rule       func(string) error
	}{
		{"synonyms", f.Synonyms, r.addSynonyms},
		{"pins", f.Pins, r.addPins},
	} {
		if len(file.text) > MaxBytes {
			bad = append(bad, LineError{file.name, 1, fmt.Errorf("the file is over %d bytes", MaxBytes)})
			continue
		}
		for i, line := range strings.Split(file.text, "\n") {
			line = strings.TrimSpace(line)
			if line == "" || strings.HasPrefix(line, "#") {
				continue
			}
			err := errors.New("not UTF-8")
			if utf8.ValidString(line) {
				err = file.rule(line)
			}
			if err != nil {
				bad = append(bad, LineError{file.name, i + 1, err})
			}
		}
	}
	if len(bad) == 0 {
		bad = r.overBudget()
	}
	if len(bad) > 0 {
		return nil, &Error{Lines: bad}
	}
	return r, nil
}

func (r *Rules) addSynonyms(line string) error {
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
	for _, w := range from {
		k := key(w)
		if n := len(r.synonyms[k]) + len(to); n > MaxAlternatives {
			return fmt.Errorf("%q would be searched as %d words, past %d", w, n, MaxAlternatives)
		}
		for _, t := range to {
			if !slices.ContainsFunc(r.synonyms[k], func(x string) bool { return key(x) == key(t) }) {
				r.synonyms[k] = append(r.synonyms[k], t)
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
	k := Key(q)
	if k == "" {
		return fmt.Errorf("the query %q holds no word", strings.TrimSpace(q))
	}
	if _, dup := r.pins[k]; dup {
		return fmt.Errorf("the query %q is pinned on an earlier line", k)
	}
	var ids []string
	for _, id := range strings.Split(list, ",") {
		id = strings.TrimSpace(id)
		if err := search.CheckID(id); err != nil {
			return fmt.Errorf("id %q %v (an id %s)", id, err, search.IDRule)
		}
		if slices.Contains(ids, id) {
			return fmt.Errorf("id %q is listed twice", id)
		}
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

// Served is r as a query carries it (search.Query.Curation): nil when r holds no rule, so that a
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
	h := sha256.Sum256([]byte(r.files.Synonyms + "\x00" + r.files.Pins))
	return hex.EncodeToString(h[:6])
}

// Encode is the stored form of the rules: their files, as JSON.
func (r *Rules) Encode() ([]byte, error) {
	b, err := json.Marshal(r.Files())
	if err != nil {
		return nil, fmt.Errorf("encode rules: %w", err)
	}
	return b, nil
}

// Decode reads rules stored by Encode, checking them again.
func Decode(b []byte) (*Rules, error) {
	var f Files
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("stored rules: %w", err)
	}
	r, err := Parse(f)
	if err != nil {
		return nil, fmt.Errorf("stored rules: %w", err)
	}
	return r, nil
}
