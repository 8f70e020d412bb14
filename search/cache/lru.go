package cache

import (
	"container/list"
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
	size += int64(len(key)) + entryOverhead
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

// entryOverhead estimates an entry's bookkeeping: two list elements, entry, map slot, boxed value.
const entryOverhead = 248

// Size estimates: the structs themselves plus the bytes they point at. They bound memory, so they
// need to be close, not exact.

func itemSize(it search.Item) int64 {
	n := int64(unsafe.Sizeof(it))
	for _, s := range [...]string{it.ID, it.Type, it.Title, it.Summary, it.Description, it.Author, it.Category,
		it.CategoryName, it.Language, it.Date, it.Permalink, it.SHA256, it.MediaURL, it.ThumbnailURL, it.MimeType,
		it.License, it.Rights, it.Source} {
		n += int64(len(s))
	}
	for _, list := range [...][]string{it.Tags, it.Keywords} {
		for _, s := range list {
			n += int64(unsafe.Sizeof(s)) + int64(len(s))
		}
	}
	for _, p := range [...]bool{it.SizeBytes != nil, it.DurationSeconds != nil, it.Width != nil, it.Height != nil} {
		if p {
			n += 8
		}
	}
	return n
}

func resultSize(r search.Result) int64 {
	n := int64(unsafe.Sizeof(r)) + itemsSize(r.Items) + int64(len(r.Next))
	for _, values := range r.Facets {
		for _, v := range values {
			n += int64(unsafe.Sizeof(v)) + int64(len(v.Value)+len(v.Name))
		}
	}
	return n
}

func itemsSize(items []search.Item) int64 {
	var n int64
	for _, it := range items {
		n += itemSize(it)
	}
	return n
}

func completionsSize(cs []search.Completion) int64 {
	n := int64(unsafe.Sizeof(cs))
	for _, c := range cs {
		n += int64(unsafe.Sizeof(c)) + int64(len(c.Text)+len(c.ID))
	}
	return n
}

func intsSize(ns []int) int64 {
	return int64(unsafe.Sizeof(ns)) + int64(len(ns))*int64(unsafe.Sizeof(0))
}

func categoriesSize(cs []search.Category) int64 {
	n := int64(unsafe.Sizeof(cs))
	for _, c := range cs {
		n += int64(unsafe.Sizeof(c)) + int64(len(c.Slug)+len(c.Name))
	}
	return n
}

func authorsSize(as []search.Author) int64 {
	n := int64(unsafe.Sizeof(as))
	for _, a := range as {
		n += int64(unsafe.Sizeof(a)) + int64(len(a.Name))
	}
	return n
}
