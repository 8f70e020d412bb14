package search

import "testing"

// BenchmarkFold is the cost of one sort key: the authors list folds every author name, and
// every indexed item's title is folded for the az order.
func BenchmarkFold(b *testing.B) {
	names := []string{"Lukas Goethe", "Γιάννης Βλάχος", "Huang Lei", "Gaëlle Verne", "Anonymous", "Various speakers"}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		_ = Fold(names[i%len(names)])
	}
}
