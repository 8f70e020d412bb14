// Package docs holds the project's documents; its test keeps docs/architecture.md true to the
// tree: every path its tables name exists, every Go package is in its package table, the layers
// are named in the order chain.New builds them, and the hooked layers forward nothing by hand.
package docs

import (
	"bufio"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"mediagw/search"
	"mediagw/search/breaker"
	"mediagw/search/cache"
	"mediagw/search/chain"
)

// tableCell is a backquoted name in a table row of architecture.md.
var tableCell = regexp.MustCompile("`([^`]+)`")

// architectureTables reads architecture.md's table rows: the first cell and the last.
func architectureTables(t *testing.T) (rows [][2]string) {
	t.Helper()
	f, err := os.Open("architecture.md")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, "|") || strings.HasPrefix(line, "|---") {
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		rows = append(rows, [2]string{strings.TrimSpace(cells[0]), strings.TrimSpace(cells[len(cells)-1])})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return rows
}

// TestArchitectureNamesExist: each package of the package table and each file of the rule table
// is in the tree, so that the map leads somewhere.
func TestArchitectureNamesExist(t *testing.T) {
	n := 0
	for _, row := range architectureTables(t) {
		for _, cell := range row {
			for _, m := range tableCell.FindAllStringSubmatch(cell, -1) {
				name := m[1]
				// Only paths: a cell also names settings, identifiers, URLs and commands in backquotes.
				if !strings.Contains(name, "/") && !strings.HasSuffix(name, ".go") && !strings.HasSuffix(name, ".md") {
					continue
				}
				if strings.ContainsAny(name, " =({") {
					continue
				}
				n++
				if _, err := os.Stat(filepath.Join("..", name)); err != nil {
					t.Errorf("architecture.md names %s, which is not in the tree", name)
				}
			}
		}
	}
	if n < 40 {
		t.Errorf("only %d paths found in architecture.md's tables", n)
	}
}

// TestArchitectureListsEveryPackage: a package added to the module is added to the map.
func TestArchitectureListsEveryPackage(t *testing.T) {
	listed := map[string]bool{}
	for _, row := range architectureTables(t) {
		for _, m := range tableCell.FindAllStringSubmatch(row[0], -1) {
			listed[m[1]] = true
		}
	}
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}}", "mediagw/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, pkg := range strings.Fields(string(out)) {
		dir := strings.TrimPrefix(strings.TrimPrefix(pkg, "mediagw"), "/")
		if dir == "" || dir == "docs" {
			continue
		}
		if !listed[dir] {
			t.Errorf("package %s is not in architecture.md's package table", dir)
		}
	}
}

// requestStep is a step of architecture.md's request path that a package of search/ heads.
var requestStep = regexp.MustCompile("^[0-9]+\\. \\*\\*`(search/[a-z]+)`\\*\\*")

// TestArchitectureLayerOrder: the package table's search/chain row and the request path's steps
// name the layers in the order chain.New builds them, the outermost first.
func TestArchitectureLayerOrder(t *testing.T) {
	c, err := chain.New(idle{}, chain.Options{Cache: &cache.Options{}, Breaker: &breaker.Options{}})
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, l := range c.Layers {
		want = append(want, "search/"+l)
	}
	var row []string
	for _, r := range architectureTables(t) {
		if r[0] != "`search/chain`" {
			continue
		}
		built, _, ok := strings.Cut(r[1], "then the backend")
		if !ok {
			t.Fatalf("the search/chain row does not end its layers with %q: %s", "then the backend", r[1])
		}
		for _, m := range tableCell.FindAllStringSubmatch(built, -1) {
			row = append(row, m[1])
		}
	}
	if !slices.Equal(row, want) {
		t.Errorf("the search/chain row names the layers %v, chain.New builds %v", row, want)
	}
	doc, err := os.ReadFile("architecture.md")
	if err != nil {
		t.Fatal(err)
	}
	var steps []string
	for line := range strings.Lines(string(doc)) {
		if m := requestStep.FindStringSubmatch(line); m != nil && slices.Contains(want, m[1]) {
			steps = append(steps, m[1])
		}
	}
	if !slices.Equal(steps, want) {
		t.Errorf("the request path's steps name the layers %v, chain.New builds %v", steps, want)
	}
}

// idle is a backend the test never asks: chain.New only wraps it.
type idle struct{ search.Backend }

// TestHookedLayersForwardNothingByHand: the layers the search/layer row names as wrapped (the
// meter, admission, the breaker) call layer.Wrap and declare no method of search.Backend.
func TestHookedLayersForwardNothingByHand(t *testing.T) {
	backend := reflect.TypeFor[search.Backend]()
	for _, dir := range []string{"search/meter", "search/admit", "search/breaker"} {
		files, err := filepath.Glob(filepath.Join("..", dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		wraps := false
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			file, err := parser.ParseFile(token.NewFileSet(), f, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			ast.Inspect(file, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.SelectorExpr:
					if x, ok := n.X.(*ast.Ident); ok && x.Name == "layer" && n.Sel.Name == "Wrap" {
						wraps = true
					}
				case *ast.FuncDecl:
					if _, ok := backend.MethodByName(n.Name.Name); ok && n.Recv != nil {
						t.Errorf("%s declares %s: a hooked layer forwards search.Backend through layer.Wrap", f, n.Name.Name)
					}
				}
				return true
			})
		}
		if !wraps {
			t.Errorf("%s never calls layer.Wrap", dir)
		}
	}
}
