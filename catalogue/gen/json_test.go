package gen

import (
	"encoding/json"
	"testing"
	"unicode/utf8"
)

func TestAppendJSONString(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", `""`},
		{"plain", `"plain"`},
		{`say "hi"`, `"say \"hi\""`},
		{`C:\dir`, `"C:\\dir"`},
		{"two\nlines", `"two\nlines"`},
		{"a\tb\rc", `"a\tb\rc"`},
		{"bell\x07", `"bell\u0007"`},
		{"\x1f\x00", `"\u001f\u0000"`},
		{"Élan 東京 🐍", `"Élan 東京 🐍"`},
		{"<&>", `"<&>"`},
	} {
		t.Run(tc.want, func(t *testing.T) {
			if got := string(appendJSONString(nil, tc.in)); got != tc.want {
				t.Errorf("string: %s, want %s", got, tc.want)
			}
			if got := string(appendJSONString([]byte("x"), []byte(tc.in))); got != "x"+tc.want {
				t.Errorf("bytes after a prefix: %s, want x%s", got, tc.want)
			}
		})
	}
}

// FuzzAppendJSONString: any valid UTF-8 text comes back from a JSON decoder as it went in.
func FuzzAppendJSONString(f *testing.F) {
	for _, s := range []string{"", "a\"b\\c", "\n\t\r\x00\x1f", "Ελληνικά", "\u2028"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8.ValidString(s) {
			t.Skip("the generator's text is valid UTF-8")
		}
		var back string
		if err := json.Unmarshal(appendJSONString(nil, s), &back); err != nil || back != s {
			t.Fatalf("%q encoded as %s, decoded as %q (%v)", s, appendJSONString(nil, s), back, err)
		}
	})
}

func TestIndexByte(t *testing.T) {
	for _, tc := range []struct {
		b    string
		c    byte
		want int
	}{
		{"", '"', -1},
		{"abc", 'x', -1},
		{`gen-photo-1"`, '"', 11},
		{`""`, '"', 0},
	} {
		if got := indexByte([]byte(tc.b), tc.c); got != tc.want {
			t.Errorf("indexByte(%q, %q) = %d, want %d", tc.b, tc.c, got, tc.want)
		}
	}
}
