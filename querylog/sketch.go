package querylog

// counts are what one text was counted in a bucket: once per visitor and window (all), those of
// them that found nothing (zero), and the visitors of each.
type counts struct {
	all, zero     int64
	allBy, zeroBy visitors
}

// tally is what a flush sends of one bucket: the searches recorded and those that found nothing,
// and each text's counts, exact for a batch, a sketch's counters for a bucket held in process.
type tally struct {
	searches, noResults int64
	texts               map[string]counts
}

func newTally(n int) tally { return tally{texts: make(map[string]counts, n)} }

// chunks cuts t into tallies of at most n texts each, the totals in the first: what one Redis call
// takes. A tally of no text but totals is one chunk.
func (t tally) chunks(n int) []tally {
	var out []tally
	cur := newTally(min(n, len(t.texts)))
	cur.searches, cur.noResults = t.searches, t.noResults
	for text, c := range t.texts {
		if len(cur.texts) == n {
			out = append(out, cur)
			cur = newTally(min(n, len(t.texts)))
		}
		cur.texts[text] = c
	}
	if len(cur.texts) > 0 || cur.searches > 0 {
		out = append(out, cur)
	}
	return out
}

// sketch is Space-Saving with k counters: a text not counted yet, when all k are taken, replaces
// the least counted one and starts from its count. So the counters always sum to the weight
// added, a counted text is over by at most the least counter, and one not counted had at most
// that much. Redis runs the same algorithm (script.go); this one holds a bucket in process while
// Redis fails. Finding the least counter scans all k: an add of a new text to a full sketch is
// O(k), paid only during an outage, in the background.
type sketch struct {
	k      int
	counts map[string]int64
	by     map[string]visitors
}

func newSketch(k int) *sketch {
	return &sketch{k: k, counts: make(map[string]int64), by: make(map[string]visitors)}
}

// add counts w more of text, searched by v; a weight of 0 is not added, so it never evicts a text.
// The visitors of a text evicted go with it: the text that takes its counter starts with its own.
func (s *sketch) add(text string, w int64, v visitors) {
	if w <= 0 {
		return
	}
	if _, ok := s.counts[text]; !ok && len(s.counts) >= s.k {
		least, min := "", int64(-1)
		for t, c := range s.counts {
			if min < 0 || c < min || (c == min && t < least) {
				least, min = t, c
			}
		}
		delete(s.counts, least)
		delete(s.by, least)
		s.counts[text] = min
	}
	s.counts[text] += w
	by := s.by[text]
	by.merge(v)
	s.by[text] = by
}

// remove forgets text: it was sent.
func (s *sketch) remove(text string) {
	delete(s.counts, text)
	delete(s.by, text)
}

// held is a bucket a replica could not send to Redis: its totals, and one sketch per kind.
type held struct {
	searches, noResults int64
	all, zero           *sketch
}

func newHeld(k int) *held { return &held{all: newSketch(k), zero: newSketch(k)} }

func (h *held) add(t tally) {
	h.searches += t.searches
	h.noResults += t.noResults
	for text, c := range t.texts {
		h.all.add(text, c.all, c.allBy)
		h.zero.add(text, c.zero, c.zeroBy)
	}
}

// sent takes out what Redis took of the bucket, a chunk of its tally.
func (h *held) sent(t tally) {
	h.searches -= t.searches
	h.noResults -= t.noResults
	for text := range t.texts {
		h.all.remove(text)
		h.zero.remove(text)
	}
}

func (h *held) empty() bool {
	return len(h.all.counts) == 0 && len(h.zero.counts) == 0 && h.searches == 0
}

// tally is what Redis is sent of the bucket: its totals and every text either sketch counts.
func (h *held) tally() tally {
	t := newTally(len(h.all.counts))
	t.searches, t.noResults = h.searches, h.noResults
	for text, n := range h.all.counts {
		t.texts[text] = counts{all: n, allBy: h.all.by[text]}
	}
	for text, n := range h.zero.counts {
		c := t.texts[text]
		c.zero, c.zeroBy = n, h.zero.by[text]
		t.texts[text] = c
	}
	return t
}
