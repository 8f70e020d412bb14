package admit

import (
	"context"
	"slices"
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

func TestVisitorRanges(t *testing.T) {
	for _, tc := range []struct {
		visitor string
		want    []string
	}{
		{"2001:db8:1:2::/64", []string{"2001:db8:1::/56", "2001:db8:1::/48"}},
		{"2001:db8:1:2ff::/64", []string{"2001:db8:1:200::/56", "2001:db8:1::/48"}},
		{"203.0.113.7", nil},
		{"2001:db8::1", nil},
		{"2001:db8::/48", nil},
		{"10.0.0.0/8", nil},
		{"@", nil},
		{"", nil},
	} {
		var got []string
		for _, p := range VisitorRanges(tc.visitor) {
			got = append(got, p.String())
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("VisitorRanges(%q) = %v, want %v", tc.visitor, got, tc.want)
		}
	}
}
