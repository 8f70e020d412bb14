package cache

import (
	"container/list"
	"sync"
	"time"
	"unsafe"

	"mediagw/search"
)

// lru holds answers for ttl, evicting the least recently used beyond maxEntries or maxBytes.
// Expired entries are dropped when met, or when they reach the back.
type lru struct {
	maxEntries int
	maxBytes   int64
	ttl        time.Duration

	mu    sync.Mutex
	bytes int64
	order list.List // of *entry, most recently used first
	byKey map[string]*list.Element
}

type entry struct {
	key     string
	val     any
	size    int64
	expires time.Time
}

func newLRU(maxEntries int, maxBytes int64, ttl time.Duration) *lru {
	return &lru{maxEntries: maxEntries, maxBytes: maxBytes, ttl: ttl, byKey: map[string]*list.Element{}}
}

func (c *lru) get(key string, now time.Time) (any, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.byKey[key]
	if !ok {
		return nil, false
	}
	e := el.Value.(*entry)
	if !now.Before(e.expires) {
		c.remove(el)
		return nil, false
	}
	c.order.MoveToFront(el)
	return e.val, true
}

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
	c.byKey[key] = c.order.PushFront(&entry{key: key, val: val, size: size, expires: now.Add(c.ttl)})
	c.bytes += size
	for c.order.Len() > c.maxEntries || c.bytes > c.maxBytes {
		c.remove(c.order.Back())
	}
}

func (c *lru) remove(el *list.Element) {
	e := c.order.Remove(el).(*entry)
	delete(c.byKey, e.key)
	c.bytes -= e.size
}

func (c *lru) purge() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.order.Init()
	clear(c.byKey)
	c.bytes = 0
}

// stats returns the number of entries and their estimated size.
func (c *lru) stats() (entries int, bytes int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.order.Len(), c.bytes
}

// entryOverhead estimates an entry's bookkeeping: list element, entry, map slot, boxed value.
const entryOverhead = 200

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

func stringsSize(ss []string) int64 {
	n := int64(unsafe.Sizeof(ss))
	for _, s := range ss {
		n += int64(unsafe.Sizeof(s)) + int64(len(s))
	}
	return n
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
