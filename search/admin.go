package search

import (
	"context"
	"slices"
)

// IndexVersion is the version of the index layout (fields, how they are analysed, what is stored
// beside them) this code reads; both backends build indices of it. A change that indices built
// before lack bumps it: the embedded index then refuses an older one with advice, and status
// reports older ones as outdated on both. search/engine/mappings/items.json carries it as
// _meta.mapping_version (a test in search/engine holds them equal).
const IndexVersion = 9

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
	// Err says why the version could not be read or counted; Docs is 0 then.
	Err error
}

// Admin is the operators' side of a backend (mediactl): it loads new index versions, keeping
// the newest replaced ones for rollback, lists them and rolls back. Both backends implement it
// alike. Keep counts (search/bleve.NewLoader, search/engine.Config.Keep) mean the same in
// both: how many replaced versions a load keeps besides the live one, 0 or less keeping none.
type Admin interface {
	Loader
	// Status lists the index versions, oldest first.
	Status(ctx context.Context) ([]IndexInfo, error)
	// Rollback makes the newest finished version older than the live one live and returns its
	// name; the version it leaves stays. It fails when there is none.
	Rollback(ctx context.Context) (string, error)
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
// load may still run. The rollback target is the newest finished version older than live.
func Retain(versions []StoredVersion, live string, keep int) Retention {
	var r Retention
	var finished []string
	for _, v := range versions {
		switch {
		case v.Name >= live:
		case !v.Unfinished:
			finished = append(finished, v.Name)
		case v.Abandoned:
			r.Remove = append(r.Remove, v.Name)
		}
	}
	if len(finished) > 0 {
		r.Rollback = finished[len(finished)-1]
	}
	if keep = max(keep, 0); len(finished) > keep {
		r.Remove = append(r.Remove, finished[:len(finished)-keep]...)
	}
	slices.Sort(r.Remove)
	return r
}
