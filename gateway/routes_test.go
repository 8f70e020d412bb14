package gateway

import (
	"slices"
	"testing"

	"mediagw/query"
)

// TestResourcesInRouteOrder: the route table serves the codec's resources, in its order.
func TestResourcesInRouteOrder(t *testing.T) {
	var got []string
	for _, r := range apiResources {
		got = append(got, r.name)
	}
	if !slices.Equal(got, query.Resources) {
		t.Errorf("apiResources %q, query.Resources %q", got, query.Resources)
	}
}
