// Package rights reads the rights statement a catalogue gives for an item's media (a licence
// name, a URL or free text, as its source states it) into a licence id, with its version,
// jurisdiction, canonical URL and the uses it allows, by the rules of the catalogue format
// (CATALOGUE.md, "Rights: the licence id"). It never guesses: what no rule reads is Unknown.
package rights

import (
	"slices"
	"strings"
	"unicode"
)

// The licence ids.
const (
	CC0         = "cc0"
	PDM         = "pdm"
	NoCUS       = "noc-us"
	BY          = "by"
	BYSA        = "by-sa"
	BYND        = "by-nd"
	BYNC        = "by-nc"
	BYNCSA      = "by-nc-sa"
	BYNCND      = "by-nc-nd"
	InCopyright = "in-copyright"
	Unknown     = "unknown"
)

// IDs lists every licence id, in the order the contract names them.
var IDs = []string{CC0, PDM, NoCUS, BY, BYSA, BYND, BYNC, BYNCSA, BYNCND, InCopyright, Unknown}

// License is what a statement reads as. The strings are empty where there are none.
type License struct {
	ID           string `json:"id"`
	Version      string `json:"version,omitempty"`
	Jurisdiction string `json:"jurisdiction,omitempty"`
	// URL is the licence's canonical page.
	URL string `json:"url,omitempty"`
	// Commercial and Modification say whether the licence allows commercial use and changes.
	Commercial   bool `json:"commercial,omitempty"`
	Modification bool `json:"modification,omitempty"`
}

// uses is what each id allows: commercial use, modification.
var uses = map[string][2]bool{
	CC0: {true, true}, PDM: {true, true}, NoCUS: {true, true},
	BY: {true, true}, BYSA: {true, true}, BYND: {true, false},
	BYNC: {false, true}, BYNCSA: {false, true}, BYNCND: {false, false},
	InCopyright: {false, false}, Unknown: {false, false},
}

// fixedURLs are the canonical URLs of the ids that have one page whatever the statement says.
var fixedURLs = map[string]string{
	CC0:         "https://creativecommons.org/publicdomain/zero/1.0/",
	PDM:         "https://creativecommons.org/publicdomain/mark/1.0/",
	NoCUS:       "http://rightsstatements.org/vocab/NoC-US/1.0/",
	InCopyright: "http://rightsstatements.org/vocab/InC/1.0/",
}

// versions are the versions Creative Commons published: another number names no licence.
var versions = []string{"1.0", "2.0", "2.1", "2.5", "3.0", "4.0"}

// ports are the jurisdictions Creative Commons ported its licences to (versions before 4.0) under
// a two-letter code, so that a word after the version is read as one only where a licence exists.
var ports = []string{"am", "ar", "at", "au", "az", "be", "bg", "br", "ca", "ch", "cl", "cn", "co", "cr",
	"cz", "de", "dk", "ec", "ee", "eg", "es", "fi", "fr", "ge", "gr", "gt", "hk", "hr", "hu", "ie", "il",
	"in", "it", "jp", "kr", "lu", "mk", "mt", "mx", "my", "nl", "no", "nz", "pe", "ph", "pl", "pr", "pt",
	"ro", "rs", "se", "sg", "si", "sk", "th", "tw", "ua", "ug", "uk", "us", "ve", "vn", "za"}

// Read returns the licence statement reads as, by the first rule of the format that applies. Its
// strings hold no part of statement, which an index's item may keep longer than the licence.
func Read(statement string) License {
	s := strings.ToLower(statement)
	ws := words(s)
	l, ok := fromURL(s)
	if !ok {
		l, ok = fromTerms(ws)
	}
	if !ok {
		l, ok = publicDomain(ws)
	}
	if !ok {
		l, ok = inCopyright(s, ws)
	}
	if !ok {
		l = License{ID: Unknown}
	}
	return complete(l)
}

// complete adds the canonical URL and the uses to a licence's id, version and jurisdiction.
func complete(l License) License {
	u := uses[l.ID]
	l.Commercial, l.Modification = u[0], u[1]
	switch {
	case fixedURLs[l.ID] != "":
		l.URL = fixedURLs[l.ID]
	case l.ID != Unknown:
		l.URL = "https://creativecommons.org/licenses/" + l.ID + "/"
		if l.Version != "" {
			l.URL += l.Version + "/"
			if l.Jurisdiction != "" {
				l.URL += l.Jurisdiction + "/"
			}
		}
	}
	return l
}

// words splits a lower-cased statement into its words: runs of letters and digits, a point
// between two digits kept inside one ("4.0").
func words(s string) []string {
	var ws []string
	start := -1
	prev := rune(0)
	for i, r := range s {
		inWord := unicode.IsLetter(r) || unicode.IsDigit(r)
		if r == '.' && start >= 0 && unicode.IsDigit(prev) && i+1 < len(s) && s[i+1] >= '0' && s[i+1] <= '9' {
			inWord = true
		}
		switch {
		case inWord && start < 0:
			start = i
		case !inWord && start >= 0:
			ws = append(ws, s[start:i])
			start = -1
		}
		prev = r
	}
	if start >= 0 {
		ws = append(ws, s[start:])
	}
	return ws
}

// seq reports whether ws holds want, word after word, at i.
func seq(ws []string, i int, want ...string) bool {
	return i >= 0 && i+len(want) <= len(ws) && slices.Equal(ws[i:i+len(want)], want)
}

// contains reports whether ws holds want, word after word, anywhere.
func contains(ws []string, want ...string) bool {
	for i := range ws {
		if seq(ws, i, want...) {
			return true
		}
	}
	return false
}

// fromURL reads rule 1: a creativecommons.org or rightsstatements.org URL, the first that names
// a licence.
func fromURL(s string) (License, bool) {
	for _, host := range []string{"creativecommons.org", "rightsstatements.org"} {
		for rest := s; ; {
			i := strings.Index(rest, host)
			if i < 0 {
				break
			}
			// The host's own name, not the end of a longer one.
			whole := i == 0 || !isNameByte(rest[i-1])
			rest = rest[i+len(host):]
			if !whole {
				continue
			}
			if l, ok := fromPath(host, urlPath(rest)); ok {
				return l, true
			}
		}
	}
	return License{}, false
}

func isNameByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_'
}

// urlPath returns the segments of the path that follows a host in rest, after its port if any.
func urlPath(rest string) []string {
	if strings.HasPrefix(rest, ":") {
		rest = strings.TrimLeft(rest[1:], "0123456789")
	}
	if !strings.HasPrefix(rest, "/") {
		return nil
	}
	end := strings.IndexFunc(rest, func(r rune) bool {
		return unicode.IsSpace(r) || strings.ContainsRune(`"'<>()[]{},;?#`, r)
	})
	if end >= 0 {
		rest = rest[:end]
	}
	return strings.FieldsFunc(rest, func(r rune) bool { return r == '/' })
}

// codes are the Creative Commons licence codes.
var codes = []string{BY, BYSA, BYND, BYNC, BYNCSA, BYNCND}

func fromPath(host string, segs []string) (License, bool) {
	at := func(i int) string {
		if i < len(segs) {
			return segs[i]
		}
		return ""
	}
	if host == "rightsstatements.org" {
		switch v := at(1); {
		case at(0) != "vocab":
		case v == "noc-us":
			return License{ID: NoCUS}, true
		case v == "inc" || strings.HasPrefix(v, "inc-"):
			return License{ID: InCopyright}, true
		}
		return License{}, false
	}
	var l License
	switch {
	case at(0) == "publicdomain" && at(1) == "zero":
		l.ID = CC0
	case at(0) == "publicdomain" && at(1) == "mark":
		l.ID = PDM
	case at(0) == "licenses" && slices.Contains(codes, at(1)):
		l.ID = codes[slices.Index(codes, at(1))]
		if port := at(3); len(port) == 2 && isLetters(port) {
			l.Jurisdiction = strings.Clone(port)
		}
	default:
		return License{}, false
	}
	switch v := at(2); {
	case l.ID == CC0 || l.ID == PDM:
		// Each was published once, as 1.0.
		if v == "1.0" {
			l.Version = "1.0"
		}
	case slices.Contains(versions, v):
		l.Version = versions[slices.Index(versions, v)]
	default:
		l.Jurisdiction = ""
	}
	return l, true
}

func isLetters(s string) bool {
	for _, c := range []byte(s) {
		if c < 'a' || c > 'z' {
			return false
		}
	}
	return true
}

// fromTerms reads rule 2: CC0, or Creative Commons terms after cc or Creative Commons, or a
// statement that is a bare code.
func fromTerms(ws []string) (License, bool) {
	if code, end := terms(ws, 0); code != "" && bare(ws[end:]) {
		return versioned(License{ID: code}, ws[end:]), true
	}
	for i, w := range ws {
		switch {
		case w == "cc0":
			return versioned(License{ID: CC0}, ws[i+1:]), true
		case w == "cc":
			if code, end := terms(ws, i+1); code != "" {
				return versioned(License{ID: code}, ws[end:]), true
			}
		case seq(ws, i, "creative", "commons"):
			if code, end := terms(ws, i+2); code != "" {
				return versioned(License{ID: code}, ws[end:]), true
			}
		}
	}
	return License{}, false
}

// bare reports whether what follows a code that starts a statement leaves it a bare code: at
// most a version and a port.
func bare(rest []string) bool {
	switch len(rest) {
	case 0:
		return true
	case 1:
		return slices.Contains(versions, rest[0])
	case 2:
		return slices.Contains(versions, rest[0]) && slices.Contains(ports, rest[1])
	}
	return false
}

// The spellings of each term of a code, as words.
var (
	termBY = [][]string{{"by"}, {"attribution"}}
	termNC = [][]string{{"nc"}, {"noncommercial"}, {"non", "commercial"}}
	termND = [][]string{{"nd"}, {"noderivatives"}, {"noderivs"}, {"no", "derivatives"}, {"no", "derivs"}}
	termSA = [][]string{{"sa"}, {"sharealike"}, {"share", "alike"}}
)

// term returns the index after the spelling of t at i, or -1.
func term(ws []string, i int, t [][]string) int {
	for _, spelling := range t {
		if seq(ws, i, spelling...) {
			return i + len(spelling)
		}
	}
	return -1
}

// terms reads the code the terms at ws[i:] make (BY, then NC, then ND or SA), and returns it
// with the index after them; "" when they do not start with BY.
func terms(ws []string, i int) (string, int) {
	if i = term(ws, i, termBY); i < 0 {
		return "", 0
	}
	code := BY
	if j := term(ws, i, termNC); j >= 0 {
		code, i = code+"-nc", j
	}
	if j := term(ws, i, termND); j >= 0 {
		code, i = code+"-nd", j
	} else if j := term(ws, i, termSA); j >= 0 {
		code, i = code+"-sa", j
	}
	return codes[slices.Index(codes, code)], i
}

// versioned adds to l the first version among the words after its terms, and the port right
// after that version (only licences before 4.0 were ported).
func versioned(l License, after []string) License {
	for i, w := range after {
		if !isVersion(w) {
			continue
		}
		v := slices.Index(versions, w)
		if v < 0 || l.ID == CC0 && w != "1.0" {
			return l
		}
		l.Version = versions[v]
		if i+1 < len(after) && w != "4.0" && l.ID != CC0 {
			if p := slices.Index(ports, after[i+1]); p >= 0 {
				l.Jurisdiction = ports[p]
			}
		}
		return l
	}
	return l
}

// isVersion reports whether w is a number N.N.
func isVersion(w string) bool {
	dot := strings.IndexByte(w, '.')
	if dot <= 0 || dot == len(w)-1 {
		return false
	}
	for i, c := range []byte(w) {
		if i != dot && (c < '0' || c > '9') {
			return false
		}
	}
	return true
}

// publicDomain reads rule 3.
func publicDomain(ws []string) (License, bool) {
	switch {
	case contains(ws, "public", "domain", "in", "the", "usa"), contains(ws, "public", "domain", "in", "the", "united", "states"):
		return License{ID: NoCUS}, true
	case contains(ws, "public", "domain", "mark"), slices.Equal(ws, []string{"public", "domain"}):
		return License{ID: PDM}, true
	}
	return License{}, false
}

// inCopyright reads rule 4.
func inCopyright(s string, ws []string) (License, bool) {
	switch {
	case strings.Contains(s, "©"), strings.Contains(s, "(c)"),
		slices.Contains(ws, "copyright"), slices.Contains(ws, "copyrighted"),
		contains(ws, "all", "rights", "reserved"),
		contains(ws, "standard", "youtube", "license"), contains(ws, "standard", "youtube", "licence"),
		slices.Equal(ws, []string{"youtube"}), strings.Contains(s, "youtube.com/t/terms"):
		return License{ID: InCopyright}, true
	}
	return License{}, false
}
