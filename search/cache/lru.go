package cache

import (
	"container/list"
	"slices"
	"sync"
	"time"
	"unsafe"

	"mediagw/search"
)

// lru holds answers for ttl, evicting the least recently used beyond maxEntries or maxBytes.
// Past its ttl an answer is stale: it is kept for staleMax more, for when the engine fails
// (getStale), and is the first to go when room is needed. Entries past that are dropped when met,
// or when they reach the back.
type lru struct {
	maxEntries int
	maxBytes   int64
	ttl        time.Duration
	staleMax   time.Duration

	mu    sync.Mutex
	bytes int64
	order list.List // of *entry, most recently used first
	// byAge holds the same entries, most recently stored first: every entry has the same ttl, so
	// the back is the first to turn stale, and eviction finds a stale entry there at once.
	byAge list.List
	byKey map[string]*list.Element
}

type entry struct {
	key  string
	val  any
	size int64
	// stored is when the engine gave val; expires is stored + ttl.
	stored, expires time.Time
	// aged is the entry's element in byAge.
	aged *list.Element
}

func newLRU(maxEntries int, maxBytes int64, ttl, staleMax time.Duration) *lru {
	return &lru{maxEntries: maxEntries, maxBytes: maxBytes, ttl: ttl, staleMax: staleMax, byKey: map[string]*list.Element{}}
}

// get returns the fresh answer of key.
func (c *lru) get(key string, now time.Time) (any, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.byKey[key]
	if !ok {
		return nil, false
	}
	e := el.Value.(*entry)
	if !now.Before(e.expires) {
		if c.dead(e, now) {
			c.remove(el)
		}
		return nil, false
	}
	c.order.MoveToFront(el)
	return e.val, true
}

// getStale returns the answer of key, fresh or stale, and when it was stored.
func (c *lru) getStale(key string, now time.Time) (val any, stored time.Time, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.byKey[key]
	if !ok {
		return nil, time.Time{}, false
	}
	e := el.Value.(*entry)
	if c.dead(e, now) {
		c.remove(el)
		return nil, time.Time{}, false
	}
	return e.val, e.stored, true
}

// dead reports whether e is past serving, even stale.
func (c *lru) dead(e *entry, now time.Time) bool { return !now.Before(e.expires.Add(c.staleMax)) }

func (c *lru) put(key string, val any, size int64, now time.Time) {
	size += text(key) + entryOverhead
	if size > c.maxBytes {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.byKey[key]; ok {
		c.remove(el)
	}
	e := &entry{key: key, val: val, size: size, stored: now, expires: now.Add(c.ttl)}
	e.aged = c.byAge.PushFront(e)
	c.byKey[key] = c.order.PushFront(e)
	c.bytes += size
	for c.order.Len() > c.maxEntries || c.bytes > c.maxBytes {
		// Stale answers go first, however recently used; then the least recently used.
		if oldest := c.byAge.Back().Value.(*entry); !now.Before(oldest.expires) {
			c.remove(c.byKey[oldest.key])
			continue
		}
		c.remove(c.order.Back())
	}
}

func (c *lru) remove(el *list.Element) {
	e := c.order.Remove(el).(*entry)
	c.byAge.Remove(e.aged)
	delete(c.byKey, e.key)
	c.bytes -= e.size
}

func (c *lru) purge() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.order.Init()
	c.byAge.Init()
	clear(c.byKey)
	c.bytes = 0
}

// stats returns the number of entries and their estimated size.
func (c *lru) stats() (entries int, bytes int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.order.Len(), c.bytes
}

// entryOverhead estimates an entry's bookkeeping: the entry, its two list elements and its map
// slot (a slot of 24 bytes in a table kept at most 7/8 full, its control byte, growth).
const entryOverhead = 96 + 2*48 + 40

// Size estimates: the heap an answer takes, each allocation rounded up as Go's allocator rounds
// it (alloc). They bound memory, so they need to be close, not exact: counting the bytes alone
// ran about a quarter under the heap the answers took (TestSizeEstimateIsHonest).

// sizeClasses are the Go allocator's size classes up to 32 KiB (runtime/sizeclasses.go).
var sizeClasses = [...]int64{8, 16, 24, 32, 48, 64, 80, 96, 112, 128, 144, 160, 176, 192, 208, 224, 240, 256,
	288, 320, 352, 384, 416, 448, 480, 512, 576, 640, 704, 768, 896, 1024, 1152, 1280, 1408, 1536, 1792, 2048,
	2304, 2688, 3072, 3200, 3456, 4096, 4864, 5376, 6144, 6528, 6784, 6912, 8192, 9472, 9728, 10240, 10880,
	12288, 13568, 14336, 16384, 18432, 19072, 20480, 21760, 24576, 27264, 28672, 32768}

// alloc is the heap one allocation of n bytes takes: its size class, whole pages past the largest;
// under 16 bytes, its bytes, as the allocator packs such blocks of strings together.
func alloc(n int64) int64 {
	const page = 8192
	switch {
	case n < 16:
		return n
	case n > sizeClasses[len(sizeClasses)-1]:
		return (n + page - 1) / page * page
	}
	i, _ := slices.BinarySearch(sizeClasses[:], n)
	return sizeClasses[i]
}

// backing is the heap of a slice's backing array.
func backing[T any](s []T) int64 {
	var zero T
	return alloc(int64(cap(s)) * int64(unsafe.Sizeof(zero)))
}

// text is the heap of the strings ss point at, each its own allocation.
func text(ss ...string) int64 {
	var n int64
	for _, s := range ss {
		n += alloc(int64(len(s)))
	}
	return n
}

// boxed is the heap v takes stored in an interface: a copy of its own.
func boxed[T any](v T) int64 { return alloc(int64(unsafe.Sizeof(v))) }

func itemSize(it search.Item) int64 { return boxed(it) + itemHeld(it) }

// itemHeld is what an item points at: its strings, lists and numbers.
func itemHeld(it search.Item) int64 {
	n := text(it.ID, it.Type, it.Title, it.Summary, it.Description, it.Author, it.Category,
		it.CategoryName, it.Language, it.Date, it.Permalink, it.SHA256, it.MediaURL, it.ThumbnailURL, it.MimeType,
		it.License, it.Rights, it.Source, it.MediaLicense.Jurisdiction, it.MediaLicense.URL)
	for _, list := range [...][]string{it.Tags, it.Keywords} {
		n += backing(list) + text(list...)
	}
	for _, p := range [...]bool{it.SizeBytes != nil, it.DurationSeconds != nil, it.Width != nil, it.Height != nil} {
		if p {
			n += 8
		}
	}
	return n
}

func resultSize(r search.Result) int64 {
	n := boxed(r) + itemsHeld(r.Items) + text(r.Next)
	if r.Facets != nil {
		// A map of a few keys: its header and one group of eight slots.
		var slot struct {
			k search.Facet
			v []search.FacetValue
		}
		n += alloc(48) + alloc(8+8*int64(unsafe.Sizeof(slot)))
	}
	for _, values := range r.Facets {
		n += backing(values)
		for _, v := range values {
			n += text(v.Value, v.Name)
		}
	}
	return n
}

func itemsSize(items []search.Item) int64 { return boxed(items) + itemsHeld(items) }

// itemsHeld is the heap of a list of items: its backing array and what each item points at.
func itemsHeld(items []search.Item) int64 {
	n := backing(items)
	for _, it := range items {
		n += itemHeld(it)
	}
	return n
}

func completionsSize(cs []search.Completion) int64 {
	n := boxed(cs) + backing(cs)
	for _, c := range cs {
		n += text(c.Text, c.ID)
	}
	return n
}

func intsSize(ns []int) int64 { return boxed(ns) + backing(ns) }

func categoriesSize(cs []search.Category) int64 {
	n := boxed(cs) + backing(cs)
	for _, c := range cs {
		n += text(c.Slug, c.Name)
	}
	return n
}

func authorsSize(as []search.Author) int64 {
	n := boxed(as) + backing(as)
	for _, a := range as {
		n += text(a.Name)
	}
	return n
}
