package elastic

import (
	"bytes"
	"errors"
	"io"
	"syscall"
	"testing"
	"time"

	"mediagw/catalogue"
	"mediagw/catalogue/gen"
	"mediagw/search"
)

// benchCatalogue is a generated catalogue of n items, as a file holds it, and its items read.
func benchCatalogue(b *testing.B, n int) ([]byte, []search.Item) {
	b.Helper()
	var buf bytes.Buffer
	if err := gen.Generate(&buf, n, 1); err != nil {
		b.Fatal(err)
	}
	var items []search.Item
	r := catalogue.NewReader(bytes.NewReader(buf.Bytes()))
	for {
		it, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			b.Fatal(err)
		}
		items = append(items, it)
	}
	return buf.Bytes(), items
}

// BenchmarkLoadCPU is a load's own work an item, without the engine: reading the catalogue,
// analysing each item into its document and encoding the bulk lines.
func BenchmarkLoadCPU(b *testing.B) {
	data, items := benchCatalogue(b, benchItems(b, 5000))
	b.Run("decode", func(b *testing.B) {
		b.ReportAllocs()
		cpu := cpuTime()
		for b.Loop() {
			r := catalogue.NewReader(bytes.NewReader(data))
			for {
				if _, err := r.Next(); errors.Is(err, io.EOF) {
					break
				} else if err != nil {
					b.Fatal(err)
				}
			}
		}
		perItem(b, cpu, len(items))
	})
	b.Run("document", func(b *testing.B) {
		b.ReportAllocs()
		cpu := cpuTime()
		for b.Loop() {
			for _, it := range items {
				NewDocument(it)
			}
		}
		perItem(b, cpu, len(items))
	})
	b.Run("encode", func(b *testing.B) {
		b.ReportAllocs()
		cpu := cpuTime()
		var enc bulkEncoder
		for b.Loop() {
			enc.reset()
			for _, it := range items {
				if err := enc.add(it); err != nil {
					b.Fatal(err)
				}
				if len(enc.buf) >= maxBatchBytes {
					enc.reset()
				}
			}
		}
		perItem(b, cpu, len(items))
	})
}

// perItem reports the process' CPU time since start an item, GC included: on a shared machine
// the wall time an item says more of the neighbours than of the code.
func perItem(b *testing.B, start time.Duration, items int) {
	b.ReportMetric(float64((cpuTime()-start).Microseconds())/float64(b.N*items), "cpu-us/item")
}

// cpuTime is the CPU time the process has used, user and system.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
