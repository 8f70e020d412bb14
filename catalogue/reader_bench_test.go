package catalogue

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"mediagw/catalogue/gen"
)

func BenchmarkReader(b *testing.B) {
	var buf bytes.Buffer
	if err := gen.Generate(&buf, 20000, 1); err != nil {
		b.Fatal(err)
	}
	data := buf.Bytes()
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r := NewReader(bytes.NewReader(data))
		for {
			_, err := r.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
		}
	}
}
