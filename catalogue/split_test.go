package catalogue

import (
	"bufio"
	"bytes"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"testing"
	"unicode/utf8"
)

// splitCases are lines splitObject must read as json.Unmarshal does, or leave to it.
var splitCases = []string{
	`{}`, ` { } `, `{"a":1}`, `{"a" : "x" , "b":[1,{"c":"]}"}],"d":{"e":[]}}`,
	`{"a":"q\"uo\\te","b":null,"a":true}`, `{"k\u00e9y":"v","k\"":-1.5e3}`,
	"\t{\"a\":\n[ \"x\" ,\r\"y\" ]\n}\n", `{"a":false}`, `{"a":0,"b":"}"}`,
	`[]`, `null`, `"x"`, `1`, `{"a":1`, `{"a":1}x`, `{"a":1,}`, `{"a"}`, ``, ` `,
}

func FuzzSplitObject(f *testing.F) {
	for _, c := range splitCases {
		f.Add([]byte(c))
	}
	if raw, err := os.ReadFile(filepath.Join("..", "..", "shared", "data", "catalogue.ndjson")); err == nil {
		sc := bufio.NewScanner(bytes.NewReader(raw))
		sc.Buffer(nil, 1<<24)
		for n := 0; sc.Scan() && n < 50; n++ {
			f.Add(append([]byte(nil), sc.Bytes()...))
		}
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		if !utf8.Valid(line) {
			// parse refuses the line before.
			return
		}
		got, ok := splitObject(line, map[string]json.RawMessage{"stale": nil})
		var want map[string]json.RawMessage
		err := json.Unmarshal(line, &want)
		if !ok {
			if err == nil && want != nil {
				t.Fatalf("%q: left to Unmarshal, which reads it", line)
			}
			return
		}
		if err != nil {
			t.Fatalf("%q: split, but Unmarshal says %v", line, err)
		}
		if !maps.EqualFunc(got, want, func(a, b json.RawMessage) bool { return string(a) == string(b) }) {
			t.Fatalf("%q: split into %q, Unmarshal reads %q", line, got, want)
		}
	})
}

// FuzzSplitStrings: a valid JSON value is read as json.Unmarshal reads it into a []string, or
// left to it when it is not an array of strings only.
func FuzzSplitStrings(f *testing.F) {
	for _, c := range []string{`[]`, `[ ]`, `["a"]`, ` [ "a" , "b\"c" ,"\u00e9"]`, `["a",null]`, `[1]`, `"a"`, `{}`, `[["a"]]`, `["]",","]`} {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, v []byte) {
		v = bytes.TrimSpace(v)
		if !utf8.Valid(v) || !json.Valid(v) {
			// splitObject hands over valid values only, without surrounding space.
			return
		}
		got, ok := splitStrings(v)
		var want []*string
		err := json.Unmarshal(v, &want)
		strings := err == nil && want != nil
		for _, s := range want {
			strings = strings && s != nil
		}
		if ok != strings {
			t.Fatalf("%q: split %v, Unmarshal reads it as strings %v (%v)", v, ok, strings, err)
		}
		for i := range got {
			if got[i] != *want[i] {
				t.Fatalf("%q: element %d is %q, Unmarshal reads %q", v, i, got[i], *want[i])
			}
		}
		if ok && len(got) != len(want) {
			t.Fatalf("%q: %d elements, Unmarshal reads %d", v, len(got), len(want))
		}
	})
}
