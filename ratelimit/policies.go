package ratelimit

// The operator's policies file (MEDIA_RATE_LIMIT_POLICIES) gives networks allowances of their own:
// a school, a library or a newsroom behind one address. One policy a line, "#" starting a comment,
// blank lines ignored:
//
//	# policy   quota  window  count-by  ranges
//	schools    1200   10m     address   198.51.100.0/24, 2001:db8:100::/48
//	newsroom   3000   10m     range     203.0.113.0/28
//
// quota requests per window (a Go duration); count-by address makes each address (an IPv6 /64)
// in the ranges its own visitor under the quota, count-by range makes each range one visitor;
// ranges are CIDR blocks separated by commas. Where ranges nest the most specific wins; an address
// in none has the default policy. A file with a bad line is refused whole, naming every bad line.

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// ErrInvalidPolicies is wrapped by every error of ParsePolicies.
var ErrInvalidPolicies = errors.New("ratelimit: invalid policies file")

const (
	// MaxPoliciesBytes bounds the file: every replica reads it again whenever it changes.
	MaxPoliciesBytes = 1 << 20
	// maxNameLen bounds a policy's name, which is a metric label and part of every header.
	maxNameLen = 32
	// DefaultPolicyName is the name of the policy of an address in no range.
	DefaultPolicyName = "default"
)

// CountBy says who is one visitor under a network's policy.
type CountBy int

const (
	// CountAddress makes each address (an IPv6 /64) in the ranges its own visitor.
	CountAddress CountBy = iota
	// CountRange makes each range one visitor, shared by every address in it.
	CountRange
)

// Network is one policy of the file: its name, its limit, who is one visitor under it, and the
// ranges it applies to.
type Network struct {
	Name    string
	Policy  Policy
	CountBy CountBy
	Ranges  []netip.Prefix
	// Line is the file's line that states it.
	Line int
}

// Policies is a checked policies file: its networks and the table that finds an address's most
// specific range. It never changes once made; nil and the zero value hold none.
type Policies struct {
	networks []Network
	// v4 and v6 hold every range by its bits: a lookup walks at most the address's bits, whatever
	// the file holds.
	v4, v6 trie
}

// Networks are the file's policies, in the file's order.
func (ps *Policies) Networks() []Network {
	if ps == nil {
		return nil
	}
	return ps.networks
}

// Current is ps itself: a fixed set serves wherever a file that reloads does.
func (ps *Policies) Current() *Policies { return ps }

// Lookup finds the policy of address a: the index in Networks of the network whose range holding
// a is the most specific, and that range; ok is false for an address in no range.
func (ps *Policies) Lookup(a netip.Addr) (network int, r netip.Prefix, ok bool) {
	if ps == nil || len(ps.networks) == 0 {
		return 0, netip.Prefix{}, false
	}
	var i, bits int
	if a.Is4() {
		b := a.As4()
		i, bits, ok = ps.v4.lookup(b[:])
	} else {
		b := a.As16()
		i, bits, ok = ps.v6.lookup(b[:])
	}
	if !ok {
		return 0, netip.Prefix{}, false
	}
	r, _ = a.Prefix(bits)
	return i, r, true
}

// trie is a binary trie of ranges, one level per bit; nodes[0] is the root.
type trie struct{ nodes []trieNode }

type trieNode struct {
	// child are the nodes one bit further, by that bit: an index in nodes, 0 for none (the root is
	// nobody's child).
	child [2]int32
	// network is the index in networks, plus one, of the range ending here; 0 for none.
	network int32
}

func bitAt(b []byte, i int) int { return int(b[i/8]>>(7-i%8)) & 1 }

// insert adds the range of the first bits of addr, for network i.
func (t *trie) insert(addr []byte, bits, i int) {
	if t.nodes == nil {
		t.nodes = make([]trieNode, 1)
	}
	n := 0
	for d := range bits {
		c := bitAt(addr, d)
		if t.nodes[n].child[c] == 0 {
			t.nodes = append(t.nodes, trieNode{})
			t.nodes[n].child[c] = int32(len(t.nodes) - 1)
		}
		n = int(t.nodes[n].child[c])
	}
	t.nodes[n].network = int32(i + 1)
}

// lookup finds the longest range holding addr: its network and its bits.
func (t *trie) lookup(addr []byte) (network, bits int, ok bool) {
	if t.nodes == nil {
		return 0, 0, false
	}
	n := 0
	for d := 0; ; d++ {
		if nw := t.nodes[n].network; nw != 0 {
			network, bits, ok = int(nw-1), d, true
		}
		if d == len(addr)*8 {
			return network, bits, ok
		}
		next := t.nodes[n].child[bitAt(addr, d)]
		if next == 0 {
			return network, bits, ok
		}
		n = int(next)
	}
}

// LineError is a bad line of the policies file.
type LineError struct {
	Line int
	Err  error
}

func (e LineError) Error() string { return fmt.Sprintf("line %d: %v", e.Line, e.Err) }

// PoliciesError is a refused file: every bad line of it.
type PoliciesError struct{ Lines []LineError }

func (e *PoliciesError) Error() string {
	msgs := make([]string, len(e.Lines))
	for i, l := range e.Lines {
		msgs[i] = l.Error()
	}
	return fmt.Sprintf("%v: %s", ErrInvalidPolicies, strings.Join(msgs, "; "))
}

func (e *PoliciesError) Unwrap() error { return ErrInvalidPolicies }

// ParsePolicies checks a policies file and returns its policies, or a *PoliciesError naming each
// bad line.
func ParsePolicies(data []byte) (*Policies, error) {
	if len(data) > MaxPoliciesBytes {
		return nil, &PoliciesError{Lines: []LineError{{1, fmt.Errorf("the file is over %d bytes", MaxPoliciesBytes)}}}
	}
	ps := &Policies{}
	names := make(map[string]int)
	rangeLines := make(map[netip.Prefix]int)
	var bad []LineError
	for i, line := range strings.Split(string(data), "\n") {
		n := i + 1
		if !utf8.ValidString(line) {
			bad = append(bad, LineError{n, errors.New("not UTF-8")})
			continue
		}
		if cut := strings.IndexByte(line, '#'); cut >= 0 {
			line = line[:cut]
		}
		if strings.TrimSpace(line) == "" {
			continue
		}
		nw, err := parseNetwork(line)
		if err == nil {
			if first, dup := names[nw.Name]; dup {
				err = fmt.Errorf("policy %q is named on line %d already", nw.Name, first)
			}
		}
		if err == nil {
			for _, r := range nw.Ranges {
				if first, dup := rangeLines[r]; dup {
					err = fmt.Errorf("range %s is listed on line %d already", r, first)
					break
				}
				rangeLines[r] = n
			}
		}
		if err != nil {
			bad = append(bad, LineError{n, err})
			continue
		}
		nw.Line = n
		names[nw.Name] = n
		for _, r := range nw.Ranges {
			if a := r.Addr(); a.Is4() {
				b := a.As4()
				ps.v4.insert(b[:], r.Bits(), len(ps.networks))
			} else {
				b := a.As16()
				ps.v6.insert(b[:], r.Bits(), len(ps.networks))
			}
		}
		ps.networks = append(ps.networks, nw)
	}
	if bad != nil {
		return nil, &PoliciesError{Lines: bad}
	}
	return ps, nil
}

// parseNetwork reads one line that is not blank: "name quota window count-by range, range...".
func parseNetwork(line string) (Network, error) {
	var fields [4]string
	rest := line
	for i := range fields {
		rest = strings.TrimLeft(rest, " \t\r")
		end := strings.IndexAny(rest, " \t\r")
		if end < 0 {
			end = len(rest)
		}
		fields[i], rest = rest[:end], rest[end:]
		if fields[i] == "" {
			return Network{}, errors.New(`want "policy quota window count-by ranges"`)
		}
	}
	var nw Network
	name := fields[0]
	switch {
	case len(name) > maxNameLen:
		return Network{}, fmt.Errorf("policy name %.32q... is longer than %d characters", name, maxNameLen)
	case strings.Trim(name, "abcdefghijklmnopqrstuvwxyz0123456789-") != "":
		return Network{}, fmt.Errorf("policy name %q: want lower-case letters, digits and -", name)
	case name == DefaultPolicyName:
		return Network{}, fmt.Errorf("policy name %q is the name of the policy outside every range", name)
	}
	nw.Name = name
	limit, err := strconv.Atoi(fields[1])
	if err != nil || limit < 1 {
		return Network{}, fmt.Errorf("quota %q: want a whole number of requests, at least 1", fields[1])
	}
	window, err := time.ParseDuration(fields[2])
	if err != nil || window < MinWindow {
		return Network{}, fmt.Errorf("window %q: want a duration of at least %s such as 10m", fields[2], MinWindow)
	}
	nw.Policy = Policy{Limit: limit, Window: window}
	switch fields[3] {
	case "address":
		nw.CountBy = CountAddress
	case "range":
		nw.CountBy = CountRange
	default:
		return Network{}, fmt.Errorf("count-by %q: want address or range", fields[3])
	}
	if strings.TrimSpace(rest) == "" {
		return Network{}, errors.New("no ranges: want CIDR blocks separated by commas")
	}
	for _, s := range strings.Split(rest, ",") {
		r, err := parseRange(strings.Trim(s, " \t\r"))
		if err != nil {
			return Network{}, err
		}
		nw.Ranges = append(nw.Ranges, r)
	}
	return nw, nil
}

// parseRange reads one CIDR block, which must name its network (no host bits set): a range written
// with an address inside it is more likely a mistake than a shorthand.
func parseRange(s string) (netip.Prefix, error) {
	if s == "" {
		return netip.Prefix{}, errors.New("an empty range: want CIDR blocks separated by commas")
	}
	r, err := netip.ParsePrefix(s)
	if err != nil {
		return netip.Prefix{}, fmt.Errorf("range %q: want a CIDR block such as 198.51.100.0/24", s)
	}
	if r.Addr().Is4In6() {
		return netip.Prefix{}, fmt.Errorf("range %s: write an IPv4 range as IPv4", s)
	}
	if m := r.Masked(); m != r {
		return netip.Prefix{}, fmt.Errorf("range %s has host bits set: did you mean %s?", s, m)
	}
	return r, nil
}

type policyKey struct{}

// WithPolicy returns a context whose rate-limit calls are decided under p instead of the
// limiter's own policy: the policy of the network the visitor is in. p must be valid.
func WithPolicy(ctx context.Context, p *Policy) context.Context {
	return context.WithValue(ctx, policyKey{}, p)
}

// policyOf is the policy ctx's calls are decided under, or def when it names none.
func policyOf(ctx context.Context, def Policy) Policy {
	if p, ok := ctx.Value(policyKey{}).(*Policy); ok && p != nil {
		return *p
	}
	return def
}
