package gateway

import (
	"slices"
	"testing"

	"mediagw/params"
)

// TestResourcesInRouteOrder: the route table serves the codec's resources, in its order.
func TestResourcesInRouteOrder(t *testing.T) {
	var got []string
	for _, r := range apiResources {
		got = append(got, r.name)
	}
	if !slices.Equal(got, params.Resources) {
		t.Errorf("apiResources %q, params.Resources %q", got, params.Resources)
	}
}
