// Package docs holds the project's documents; its test keeps docs/architecture.md true to the
// tree: every path its tables name exists, and every Go package is in its package table.
package docs

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
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
