package search

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"slices"
	"time"
)

// IndexVersion is the version of the index layout (fields, how they are analysed, what is stored
// beside them) this code reads; both backends build indices of it. A change that indices built
// before lack bumps it: the embedded index then refuses an older one with advice, and status
// reports older ones as outdated on both. search/elastic/mappings/items.json carries it as
// _meta.mapping_version (a test in search/elastic holds them equal).
const IndexVersion = 10

// DefaultKeep is how many replaced index versions a load keeps for rollback when the operator
// says nothing (MEDIA_KEEP_INDICES).
const DefaultKeep = 2

// IndexInfo describes one version of a backend's index: an embedded index directory, or an
// OpenSearch index behind the alias.
type IndexInfo struct {
	Name string
	Docs int64
	// Live: the version the API serves.
	Live bool
	// Unfinished: a load began the version and died before it could remove it; the next loads
	// remove it, and it is never a rollback target.
	Unfinished bool
	// Version is the IndexVersion (for OpenSearch, the _meta.mapping_version) the version was
	// built with; 0 when it has none.
	Version int
	// MappingHash is the hash of the OpenSearch index definition the version was built from
	// (mappings.Hash, kept in its _meta), which tells apart versions built from different files
	// of one Version; empty for the embedded index, whose mapping is the code's, and for indices
	// built before mediagw kept it.
	MappingHash string
	// Outdated: the version was built by an older mediagw and lacks what this one reads (Version
	// is lower than the backend's): a load or reindex builds a current one.
	Outdated bool
	// Created is when the load that built the version began; zero when its name does not say
	// (an engine index set up by hand).
	Created time.Time
	// Err says why the version could not be read or counted; Docs is 0 then.
	Err error
}

// Admin is the operators' side of a backend (mediactl): it loads new index versions, keeping
// the newest replaced ones for rollback, lists them, rolls back and makes any kept one live. Both backends implement it
// alike. Keep counts (search/bleve.NewLoader, search/elastic.Config.Keep) mean the same in
// both: how many replaced versions a load keeps besides the live one, 0 or less keeping none.
type Admin interface {
	Loader
	// LoadGuarded is Load refusing, as g says, a new version worse than the live one: the new
	// version is then removed, what was live stays live and the error wraps ErrWorse. Load is
	// LoadGuarded with Unguarded.
	LoadGuarded(ctx context.Context, items iter.Seq2[Item, error], g Guard) (LoadStats, error)
	// Status lists the index versions, oldest first.
	Status(ctx context.Context) ([]IndexInfo, error)
	// Rollback makes the newest finished version older than the live one live and returns its
	// name; the version it leaves stays. It fails when there is none.
	Rollback(ctx context.Context) (string, error)
	// Use makes the kept version name live, older or newer than the live one (a rollback is
	// undone by Use of the version it left). It fails, changing nothing, when name is not a
	// finished current version that Status lists.
	Use(ctx context.Context, name string) error
	// Reindex builds a new version from the items of the live one, as opts say, and makes it
	// live as a load does, keeping the replaced one.
	Reindex(ctx context.Context, opts ReindexOptions) (LoadStats, error)
	Close() error
}

// ReindexOptions say how Admin.Reindex builds the new version.
type ReindexOptions struct {
	// Definition is the new version's index definition; nil: the backend's own. A backend whose
	// definition is built in refuses any other with ErrDefinitionFixed.
	Definition []byte
	// Rate caps the items copied per second, to spare an engine that also serves (mediactl
	// reindex -rate); 0 or less copies as fast as the backend goes.
	Rate float64
	// Progress, when not nil, is called with the items copied (done) of the live version's
	// total, from one goroutine at a time.
	Progress func(done, total int64)
}

// StoredVersion is what Retain knows of one of a backend's index versions.
type StoredVersion struct {
	// Name sorts by age: a backend names each version by the time its load began.
	Name string
	// Unfinished: a load began the version and has not finished it (see IndexInfo.Unfinished).
	Unfinished bool
	// Abandoned: unfinished, and the load that began it is known to be dead (it began longer ago
	// than any load takes, or the backend holds the only load's lock).
	Abandoned bool
	// Empty: finished with no items (a load the operator let go live with Guard.AllowEmpty).
	Empty bool
}

// Retention is what becomes of a backend's versions, given the live one.
type Retention struct {
	// Remove are the versions a load that made the live one live removes, oldest first.
	Remove []string
	// Rollback is the version Admin.Rollback makes live; empty when there is none.
	Rollback string
}

// Retain decides, for both backends, which versions stay (versions, oldest first; live, the
// one the API serves; keep, as search.Admin says): the live one and those newer (a load may be
// building them), the keep newest finished ones older than it, and the unfinished ones whose
// load may still run; and, while the live one is empty, the newest older one with items, so
// that one with items always stays to go back to. The rollback target is the newest finished
// version older than live.
func Retain(versions []StoredVersion, live string, keep int) Retention {
	var r Retention
	var finished []string
	liveEmpty := false
	withItems := ""
	for _, v := range versions {
		switch {
		case v.Name == live:
			liveEmpty = v.Empty
		case v.Name > live:
		case !v.Unfinished:
			finished = append(finished, v.Name)
			if !v.Empty {
				withItems = v.Name
			}
		case v.Abandoned:
			r.Remove = append(r.Remove, v.Name)
		}
	}
	if len(finished) > 0 {
		r.Rollback = finished[len(finished)-1]
	}
	if keep = max(keep, 0); len(finished) > keep {
		for _, n := range finished[:len(finished)-keep] {
			if !liveEmpty || n != withItems {
				r.Remove = append(r.Remove, n)
			}
		}
	}
	slices.Sort(r.Remove)
	return r
}

// ErrWorse marks a load refused because its new version is worse than the live one (Guard);
// ErrEmpty, ErrRejected and ErrShrink, which wrap it, say how.
var (
	ErrWorse    = errors.New("the new version is worse than the live one")
	ErrEmpty    = fmt.Errorf("%w: it holds no items", ErrWorse)
	ErrRejected = fmt.Errorf("%w: too many of its lines were refused", ErrWorse)
	ErrShrink   = fmt.Errorf("%w: it holds too few items", ErrWorse)
)

// Guard is what a new version must meet to go live (Admin.LoadGuarded).
type Guard struct {
	// AllowEmpty lets a version with no items go live.
	AllowEmpty bool
	// MaxRejected is the largest share (0 to 1) of the lines read that may have been refused.
	MaxRejected float64
	// MaxShrink is the largest share (0 to 1) by which the new version may hold fewer items than
	// the live one; 1 allows any.
	MaxShrink float64
	// Rejected, when not nil, says how many of the lines read were refused (rejected) and how
	// many were read (lines); it is called once every item is in.
	Rejected func() (rejected, lines int64)
}

// DefaultGuard is the guard of a load the operator says nothing about: no empty version, at
// most 1% of the lines refused, at most 10% fewer items than the live version.
var DefaultGuard = Guard{MaxRejected: 0.01, MaxShrink: 0.10}

// Unguarded lets any complete version go live (Admin.Load, Admin.Reindex).
var Unguarded = Guard{AllowEmpty: true, MaxRejected: 1, MaxShrink: 1}

// Check returns an error wrapping ErrWorse when a new version of n items, to replace a live one
// of live items (live < 0: none is live), is worse than g allows.
func (g Guard) Check(n, live int64) error {
	if g.Rejected != nil {
		if rejected, lines := g.Rejected(); rejected > 0 && float64(rejected) > g.MaxRejected*float64(lines) {
			return fmt.Errorf("%w (%d of %d lines, %s; at most %s may be)", ErrRejected, rejected, lines,
				percent(float64(rejected)/float64(lines)), percent(g.MaxRejected))
		}
	}
	if n == 0 && !g.AllowEmpty {
		return ErrEmpty
	}
	if live > 0 && n < live && float64(live-n) > g.MaxShrink*float64(live) {
		return fmt.Errorf("%w (%d, where the live version holds %d: %s fewer; at most %s fewer may go live)", ErrShrink, n, live,
			percent(float64(live-n)/float64(live)), percent(g.MaxShrink))
	}
	return nil
}

func percent(share float64) string { return fmt.Sprintf("%.4g%%", 100*share) }
