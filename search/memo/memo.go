// Package memo remembers results that cost a search time to find, boundedly: a map emptied when
// it reaches its size, which bounds it without an LRU's bookkeeping. A search box repeats the same
// words with every keystroke, so a result found is soon asked for again.
package memo

import "sync"

// Map is a memo of up to a fixed number of keys. It is safe for concurrent use; a nil Map
// remembers nothing.
type Map[K comparable, V any] struct {
	mu   sync.Mutex
	size int
	m    map[K]V
}

// New returns an empty Map of up to size keys.
func New[K comparable, V any](size int) *Map[K, V] {
	return &Map[K, V]{size: size, m: map[K]V{}}
}

// Get returns the value remembered for k, if any.
func (m *Map[K, V]) Get(k K) (V, bool) {
	if m == nil {
		var zero V
		return zero, false
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	v, ok := m.m[k]
	return v, ok
}

// Put remembers v for k, forgetting every other key first when the Map is full.
func (m *Map[K, V]) Put(k K, v V) {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.m[k]; !ok && len(m.m) >= m.size {
		clear(m.m)
	}
	m.m[k] = v
}
