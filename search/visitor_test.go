package search

import (
	"context"
	"testing"
)

func TestVisitorOf(t *testing.T) {
	for _, tc := range []struct {
		ctx  context.Context
		want string
	}{
		{context.Background(), ""},
		{WithVisitor(context.Background(), "203.0.113.7"), "203.0.113.7"},
		{WithVisitor(WithVisitor(context.Background(), "a"), "b"), "b"},
	} {
		if got := VisitorOf(tc.ctx); got != tc.want {
			t.Errorf("VisitorOf = %q, want %q", got, tc.want)
		}
	}
}
