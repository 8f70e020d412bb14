package layer_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"mediagw/search"
	"mediagw/search/layer"
)

var errBelow = errors.New("below")

// below is the backend under the layer: every call names itself in asked and fails with errBelow.
type below struct{ asked *[]string }

func (b below) call(op string) error { *b.asked = append(*b.asked, op); return errBelow }

func (b below) Search(context.Context, *search.Request) (search.Result, error) {
	return search.Result{}, b.call("search")
}
func (b below) Item(context.Context, string) (search.Item, error) {
	return search.Item{}, b.call("item")
}
func (b below) Categories(context.Context, search.Query) ([]search.Category, error) {
	return nil, b.call("categories")
}
func (b below) Authors(context.Context, search.Query) ([]search.Author, error) {
	return nil, b.call("authors")
}
func (b below) Ping(context.Context) error { return b.call("ping") }
func (b below) Complete(context.Context, string, int) ([]search.Completion, error) {
	return nil, b.call("complete")
}
func (b below) Related(context.Context, string, int) ([]search.Item, error) {
	return nil, b.call("related")
}
func (b below) Totals(context.Context, *search.Request, []search.Alternative, search.Matches) ([]int, error) {
	return nil, b.call("totals")
}
func (b below) Words(context.Context) ([]search.Word, error) { return nil, b.call("words") }
func (b below) Version(context.Context) (string, error)      { return "", b.call("version") }

// hook notes each Begin and End in seen, handing its op's name from one to the other, and
// refuses every call when refuse is set.
type hook struct {
	seen   *[]string
	refuse error
}

func (h hook) Begin(_ context.Context, op layer.Op) (string, error) {
	*h.seen = append(*h.seen, "begin "+op.String())
	return op.String(), h.refuse
}

func (h hook) End(_ context.Context, op layer.Op, t string, err error) {
	end := "end " + op.String()
	if t != op.String() || !errors.Is(err, errBelow) {
		end += " with " + t + ", " + err.Error()
	}
	*h.seen = append(*h.seen, end)
}

// calls makes each call of search.Backend, by its op.
var calls = []struct {
	op   layer.Op
	call func(ctx context.Context, b search.Backend) error
}{
	{layer.Search, func(ctx context.Context, b search.Backend) error {
		_, err := b.Search(ctx, search.NewRequest(search.Query{}))
		return err
	}},
	{layer.Item, func(ctx context.Context, b search.Backend) error { _, err := b.Item(ctx, "a"); return err }},
	{layer.Categories, func(ctx context.Context, b search.Backend) error {
		_, err := b.Categories(ctx, search.Query{})
		return err
	}},
	{layer.Authors, func(ctx context.Context, b search.Backend) error {
		_, err := b.Authors(ctx, search.Query{})
		return err
	}},
	{layer.Ping, func(ctx context.Context, b search.Backend) error { return b.Ping(ctx) }},
	{layer.Complete, func(ctx context.Context, b search.Backend) error { _, err := b.Complete(ctx, "a", 1); return err }},
	{layer.Related, func(ctx context.Context, b search.Backend) error { _, err := b.Related(ctx, "a", 1); return err }},
	{layer.Totals, func(ctx context.Context, b search.Backend) error {
		_, err := b.Totals(ctx, search.NewRequest(search.Query{}), nil, nil)
		return err
	}},
	{layer.Words, func(ctx context.Context, b search.Backend) error { _, err := b.Words(ctx); return err }},
	{layer.Version, func(ctx context.Context, b search.Backend) error { _, err := b.Version(ctx); return err }},
}

// TestWrap: every method of search.Backend goes to the backend below between the hook's Begin
// and End, which see its op, the Begin's value and the call's error, and the caller gets the
// backend's error; a Begin that refuses is the caller's error, and neither the backend nor End
// is asked.
func TestWrap(t *testing.T) {
	if len(calls) != int(layer.Version)+1 {
		t.Fatalf("the test makes %d calls, search.Backend has %d", len(calls), layer.Version+1)
	}
	refused := errors.New("refused")
	for _, tt := range calls {
		t.Run(tt.op.String(), func(t *testing.T) {
			var seen, asked []string
			b := layer.Wrap(below{&asked}, layer.Hook[string](hook{seen: &seen}))
			if err := tt.call(t.Context(), b); !errors.Is(err, errBelow) {
				t.Errorf("error %v, want the backend's", err)
			}
			want := []string{"begin " + tt.op.String(), "end " + tt.op.String()}
			if !slices.Equal(seen, want) || !slices.Equal(asked, []string{tt.op.String()}) {
				t.Errorf("hook saw %q and the backend was asked %q; want %q and [%s]", seen, asked, want, tt.op)
			}

			seen, asked = nil, nil
			b = layer.Wrap(below{&asked}, layer.Hook[string](hook{seen: &seen, refuse: refused}))
			if err := tt.call(t.Context(), b); !errors.Is(err, refused) {
				t.Errorf("refused call: error %v, want the hook's", err)
			}
			if !slices.Equal(seen, want[:1]) || len(asked) != 0 {
				t.Errorf("refused call: hook saw %q and the backend was asked %q; want the Begin alone", seen, asked)
			}
		})
	}
}
