package config

import (
	"errors"
	"net/url"
	"regexp"
	"slices"
	"sort"
	"strings"
)

// SplitList splits a comma-separated setting into its parts, each trimmed of spaces, dropping empty
// ones: "a, b," is [a b]. Validation and the code that uses a list setting both split with it, so
// that they agree on what the parts are.
func SplitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// redacted stands for a hidden secret, as in url.URL.Redacted.
const redacted = "xxxxx"

// secretSettings are the settings whose whole value is a secret.
var secretSettings = []string{"MEDIA_ENGINE_PASSWORD", "MEDIA_ENGINE_API_KEY"}

// RedactSetting is the value of the setting env fit for an error message, a log line or -h: a
// secret setting's value hidden whole (empty stays empty), any other's as Redact hides it.
func RedactSetting(env, v string) string {
	if slices.Contains(secretSettings, env) {
		if v == "" {
			return ""
		}
		return redacted
	}
	return Redact(v)
}

// Redact returns a setting's value fit for an error message, a log line or -h: the user info of
// every URL in it (one URL, or a comma-separated list) hidden. A URL that parses keeps its scheme,
// host and user name (user:xxxxx@host; a user name without a password, which may be a token, is
// hidden too); a part that does not parse, or parses with an "@" outside its user info, loses
// everything between "//" (or its start) and its last "@". Query parameters named like a secret
// (password=, sentinel_password=, token=, ...) keep their name only.
// A password holding "," followed by a scheme and "//" cannot be told from a second URL: its
// first piece shows; write such a comma as %2C.
func Redact(v string) string {
	r, _ := redact(v)
	return r
}

// redact is Redact; guessed says whether it had to guess where some user info ends, that is
// whether the value has an "@" that a URL parser would not read as the end of the user info its
// author meant. An error of a parser about such a value may quote any piece of it.
func redact(v string) (out string, guessed bool) {
	parts := strings.Split(v, ",")
	shown := make([]string, 0, len(parts))
	for i := 0; i < len(parts); i++ {
		if k := userinfoEnd(parts, i); k > i {
			// A comma inside user info: the parts up to k are one URL.
			shown = append(shown, maskQuery(maskUserinfo(strings.Join(parts[i:k+1], ","))))
			guessed = true
			i = k
			continue
		}
		p, g := redactPart(parts[i])
		shown = append(shown, p)
		guessed = guessed || g
	}
	return strings.Join(shown, ","), guessed
}

// redactPart redacts one URL; guessed as in redact.
func redactPart(p string) (string, bool) {
	t := strings.TrimSpace(p)
	lead := p[:strings.Index(p, t)]
	trail := p[len(lead)+len(t):]
	u, clean := parseClean(t)
	switch {
	case clean && u.User != nil:
		ru := *u
		if _, has := u.User.Password(); has {
			ru.User = url.UserPassword(u.User.Username(), redacted)
		} else {
			ru.User = url.User(redacted)
		}
		t = ru.String()
	case !clean && strings.Contains(t, "@"):
		return lead + maskQuery(maskUserinfo(t)) + trail, true
	}
	return lead + maskQuery(t) + trail, false
}

// parseClean parses s as a URL, and says whether it is sure where any user info of it is: s parses,
// has an authority (not an opaque form like "admin:pw@host", which parses as scheme "admin"), and
// its only "@" is the one ending the user info.
func parseClean(s string) (*url.URL, bool) {
	u, err := url.Parse(s)
	if err != nil || u.Opaque != "" {
		return nil, false
	}
	n := 0
	if u.User != nil {
		n = 1
	}
	return u, strings.Count(s, "@") == n
}

// userinfoEnd says whether the comma after parts[i] may be inside user info, as in
// "https://admin:pa,ss@host": it returns the index of the part that holds the "@" ending it, or i.
// A part that parses with its user info cannot start one; a part that begins with a scheme and
// "//" starts a new URL and ends the search.
func userinfoEnd(parts []string, i int) int {
	if _, clean := parseClean(strings.TrimSpace(parts[i])); clean && strings.Contains(parts[i], "@") {
		return i
	}
	for k := i + 1; k < len(parts); k++ {
		switch {
		case urlStart.MatchString(strings.TrimSpace(parts[k])):
			return i
		case strings.Contains(parts[k], "@"):
			return k
		}
	}
	return i
}

// urlStart matches a part that begins a URL of its own: a scheme, then "//".
var urlStart = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*://`)

// maskUserinfo replaces what lies between the first "//" (or the start) and the last "@" of s;
// without an "@", everything after the "//" (or all of s).
func maskUserinfo(s string) string {
	at := strings.LastIndex(s, "@")
	if at < 0 {
		at = len(s)
	}
	start := 0
	if i := strings.Index(s, "//"); i >= 0 && i+2 <= at {
		start = i + 2
	}
	return s[:start] + redacted + s[at:]
}

// maskAfterScheme replaces everything after the first "//" of s (all of s without one).
func maskAfterScheme(s string) string {
	if i := strings.Index(s, "//"); i >= 0 {
		return s[:i+2] + redacted
	}
	return redacted
}

// secretParam matches a query parameter named like a secret, with its value in group 2.
var secretParam = regexp.MustCompile(`(?i)([?&;][^=&;#?]*(?:pass|pwd|secret|token|key|auth|credential)[^=&;#?]*=)([^&;#]*)`)

func maskQuery(s string) string { return secretParam.ReplaceAllString(s, "${1}"+redacted) }

// parseHidden runs parse, a parser of URL settings whose errors may quote the value, on v, and
// returns its error with no credential of v in the text.
//
// When redact had to guess where the user info of v ends, the parser may have split v elsewhere
// and may quote any piece of it: the error is then the parser's on the redacted value, which holds
// no secret, or, when that parses, one that says the hidden user info is what does not parse.
// Otherwise the known credentials of v are cut out of the text; errors.Is still sees the original
// error, errors.Unwrap does not, so that its text stays hidden.
func parseHidden(v string, parse func(string) error) error {
	err := parse(v)
	if err == nil {
		return nil
	}
	if r, guessed := redact(v); guessed {
		if rerr := parse(r); rerr != nil {
			return rerr
		}
		return &hiddenError{"its user info (hidden) does not parse: characters such as / ? # @ , in a user name or password must be percent-encoded", err}
	}
	msg := err.Error()
	hidden := msg
	for _, s := range secrets(v) {
		hidden = strings.ReplaceAll(hidden, s, redacted)
	}
	if hidden == msg {
		return err
	}
	return &hiddenError{hidden, err}
}

// hiddenError is an error whose text hides secrets of the error it stands for.
type hiddenError struct {
	msg string
	err error
}

func (e *hiddenError) Error() string { return e.msg }

func (e *hiddenError) Is(target error) bool { return errors.Is(e.err, target) }

// secrets lists the credentials in v, whose every URL parsed cleanly (see parseHidden): passwords (or
// user names given alone), as written and decoded, and the values of secret query parameters;
// longest first, so that no shorter one leaves part of a longer one behind.
func secrets(v string) []string {
	var out []string
	add := func(s string) {
		if s != "" {
			out = append(out, s)
			if d, err := url.QueryUnescape(s); err == nil && d != s {
				out = append(out, d)
			}
		}
	}
	for _, p := range strings.Split(v, ",") {
		t := strings.TrimSpace(p)
		if at := strings.LastIndex(t, "@"); at >= 0 {
			info := t[:at]
			if i := strings.Index(info, "//"); i >= 0 {
				info = info[i+2:]
			}
			if _, pw, ok := strings.Cut(info, ":"); ok {
				add(pw)
			} else {
				add(info)
			}
		}
		if u, clean := parseClean(t); clean && u.User != nil {
			if pw, ok := u.User.Password(); ok {
				add(pw)
			} else {
				add(u.User.Username())
			}
		}
		for _, m := range secretParam.FindAllStringSubmatch(t, -1) {
			add(m[2])
		}
	}
	sort.Slice(out, func(i, j int) bool { return len(out[i]) > len(out[j]) })
	return out
}
