package gateway

import (
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

var (
	// docResources is the Paths table's list of the base path's resources.
	docResources = regexp.MustCompile("`\\?resource=([^`]+)`")
	// docProblem is a row of the Errors table: its status and slug.
	docProblem = regexp.MustCompile("^\\| ([0-9]{3}) \\| `([a-z-]+)` \\|")
)

// TestAPIDocTables: docs/api.md names what the gateway serves: its Paths table the base path's
// resources (apiResources), in their order, and no other; its Errors table every problem a client
// can receive (problemTypes, but the 499 no client reads) with its status, and no other.
func TestAPIDocTables(t *testing.T) {
	doc, err := os.ReadFile("../docs/api.md")
	if err != nil {
		t.Fatal(err)
	}
	var resources, problems []string
	for line := range strings.Lines(string(doc)) {
		if !strings.HasPrefix(line, "|") {
			continue
		}
		if m := docResources.FindStringSubmatch(line); m != nil {
			resources = append(resources, strings.Split(m[1], `\|`)...)
		}
		if m := docProblem.FindStringSubmatch(line); m != nil {
			problems = append(problems, m[1]+" "+m[2])
		}
	}
	var served, answered []string
	for _, r := range apiResources {
		served = append(served, r.name)
	}
	for _, pt := range problemTypes {
		if pt.Status != statusClientClosed {
			answered = append(answered, strconv.Itoa(pt.Status)+" "+pt.Slug)
		}
	}
	slices.Sort(answered)
	slices.Sort(problems)
	for _, c := range []struct {
		what      string
		doc, code []string
	}{
		{"resources (Paths)", resources, served},
		{"problems (Errors: status and slug)", problems, answered},
	} {
		if !slices.Equal(c.doc, c.code) {
			t.Errorf("docs/api.md's %s: %q\nthe gateway's: %q", c.what, c.doc, c.code)
		}
	}
}
