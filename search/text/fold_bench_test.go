package text

import "testing"

// foldBenchNames are typical sort keys: the authors list folds every author name, and every
// indexed item's title is folded for the az order. Most are plain ASCII.
var foldBenchNames = []string{"Lukas Goethe", "Γιάννης Βλάχος", "Huang Lei", "Gaëlle Verne", "Anonymous", "Various speakers"}

// BenchmarkFold is the cost of one sort key; BenchmarkFoldReference is the same with the original
// Fold (a new transform chain per call), for the ratio.
func BenchmarkFold(b *testing.B) { benchFold(b, Fold) }

func BenchmarkFoldReference(b *testing.B) { benchFold(b, referenceFold) }

func benchFold(b *testing.B, fold func(string) string) {
	for _, set := range []struct {
		name  string
		names []string
	}{
		{"mix", foldBenchNames},
		{"ascii", []string{"Lukas Goethe", "Huang Lei", "Anonymous"}},
		{"accented", []string{"Γιάννης Βλάχος", "Gaëlle Verne", "Jöns Jakob"}},
	} {
		b.Run(set.name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				_ = fold(set.names[i%len(set.names)])
			}
		})
	}
}
