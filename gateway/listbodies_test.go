package gateway

import (
	"slices"
	"sync"
	"sync/atomic"
	"testing"

	"mediagw/search"
)

// TestListBodies: a list is encoded once per distinct answer, whether the backend returns the
// same slice (search/cache) or an equal new one (no cache), and again as soon as it differs.
func TestListBodies(t *testing.T) {
	var l listBodies[search.Author]
	var encoded atomic.Int32
	body := func(answer []search.Author) *encodedBody {
		t.Helper()
		b, err := l.body(answer, func() any {
			encoded.Add(1)
			return listBody[author]{Data: []author{}, Total: len(answer)}
		})
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	first := []search.Author{{Name: "Ada", Count: 2}, {Name: "Zoë", Count: 1}}
	steps := []struct {
		name      string
		answer    []search.Author
		reused    bool
		encodings int32
	}{
		{"first answer", first, false, 1},
		{"the same slice", first, true, 1},
		{"an equal copy", slices.Clone(first), true, 1},
		{"a count changed", []search.Author{{Name: "Ada", Count: 3}, {Name: "Zoë", Count: 1}}, false, 2},
		{"a shorter prefix of the same array", first[:1], false, 3},
		{"empty", nil, false, 4},
		{"empty again", []search.Author{}, true, 4},
	}
	var prev *encodedBody
	for _, s := range steps {
		b := body(s.answer)
		if (b == prev) != s.reused || encoded.Load() != s.encodings {
			t.Errorf("%s: reused %v after %d encodings, want %v after %d", s.name, b == prev, encoded.Load(), s.reused, s.encodings)
		}
		prev = b
	}

	// Requests arriving together with one new answer share one encoding.
	next := []search.Author{{Name: "Grace", Count: 5}}
	var wg sync.WaitGroup
	bodies := make([]*encodedBody, 8)
	for i := range bodies {
		wg.Go(func() { bodies[i] = body(next) })
	}
	wg.Wait()
	for _, b := range bodies[1:] {
		if b != bodies[0] {
			t.Fatal("concurrent requests with the same answer got different bodies")
		}
	}
	if encoded.Load() != 5 {
		t.Errorf("%d encodings after the concurrent requests, want 5", encoded.Load())
	}
}
