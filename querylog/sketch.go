package querylog

// counts are one text's searches, and those of them that found nothing.
type counts struct{ all, zero int64 }

// tally is what a flush sends of one bucket: exact for a batch, a sketch's counters for a bucket
// held in process.
type tally map[string]counts

// sketch is Space-Saving with k counters: a text not counted yet, when all k are taken, replaces
// the least counted one and starts from its count. So the counters always sum to the weight
// added, a counted text is over by at most the least counter, and one not counted had at most
// that much. Redis runs the same algorithm (script.go); this one holds a bucket in process while
// Redis fails. Finding the least counter scans all k: an add of a new text to a full sketch is
// O(k), paid only during an outage, in the background.
type sketch struct {
	k      int
	counts map[string]int64
}

func newSketch(k int) *sketch { return &sketch{k: k, counts: make(map[string]int64)} }

func (s *sketch) add(text string, w int64) {
	if _, ok := s.counts[text]; ok || len(s.counts) < s.k {
		s.counts[text] += w
		return
	}
	least, min := "", int64(-1)
	for t, c := range s.counts {
		if min < 0 || c < min || (c == min && t < least) {
			least, min = t, c
		}
	}
	delete(s.counts, least)
	s.counts[text] = min + w
}

// held is a bucket a replica could not send to Redis: one sketch per kind.
type held struct{ all, zero *sketch }

func newHeld(k int) *held { return &held{all: newSketch(k), zero: newSketch(k)} }

func (h *held) add(t tally) {
	for text, c := range t {
		h.all.add(text, c.all)
		if c.zero > 0 {
			h.zero.add(text, c.zero)
		}
	}
}

// tally is what Redis is sent of the bucket: every text either sketch counts.
func (h *held) tally() tally {
	t := make(tally, len(h.all.counts))
	for text, n := range h.all.counts {
		t[text] = counts{all: n}
	}
	for text, n := range h.zero.counts {
		c := t[text]
		c.zero = n
		t[text] = c
	}
	return t
}
