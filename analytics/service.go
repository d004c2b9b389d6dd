package analytics

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"sync"
	"time"

	"github.com/folio-docs/folio/model"
)

// Service records page views and answers the exports. It is safe for
// concurrent use; one per process is enough.
type Service struct {
	db  Storage
	cls *Classifier

	mu    sync.Mutex
	sites map[string]*site
	// secret is the install's visitor-identity secret, read once;
	// dayKeys caches the keys derived from it (UTC day → key).
	secret  []byte
	dayKeys map[int64][]byte

	// loadChunk is how many view ids one read of an index load covers;
	// merged, when set, is called after each chunk is merged, and claimed
	// as a worker takes chunk i (tests use them to hold a load half-way).
	loadChunk int64
	merged    func(upto int64)
	claimed   func(i int)
	// holdMax, when set, makes every load hold back this many of a day's
	// bitmap additions at most, as only large loads do otherwise.
	holdMax int
	// sortAlone, when set, is how many views out of order a path has, at
	// least, for a load to sort it alone (as it does a million).
	sortAlone int
	// snapshotMin is how many views an index reads from the database
	// beyond its snapshot before it writes a new one (0: never).
	snapshotMin int64
	// maxAgents and maxReferrers, when set, are how many agents and
	// referrers an index tells apart (tests reach the SQL counts with a
	// few).
	maxAgents, maxReferrers int
}

// site is one project's analytics: its integer id and the index queries
// use (the dictionary cache ingest uses is the database's, one per site).
type site struct {
	id  int64
	idx *index
}

// NewService builds the service over a migrated database (a *db.DB).
func NewService(d Storage, cls *Classifier) *Service {
	return &Service{db: d, cls: cls, sites: map[string]*site{}, dayKeys: map[int64][]byte{}, snapshotMin: defaultSnapshotMin}
}

// Classifier is the classifier the service uses.
func (s *Service) Classifier() *Classifier { return s.cls }

// site returns the project's site; with create it is made on first use,
// otherwise a project without traffic gives nil.
func (s *Service) site(ctx context.Context, projectID string, create bool) (*site, error) {
	s.mu.Lock()
	st, ok := s.sites[projectID]
	s.mu.Unlock()
	if ok {
		return st, nil
	}
	var id int64
	var err error
	if create {
		id, err = s.db.AnalyticsSite(ctx, projectID)
	} else {
		id, err = s.db.AnalyticsSiteID(ctx, projectID)
		if errors.Is(err, model.ErrNotFound) {
			return nil, nil
		}
	}
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.addSite(projectID, id), nil
}

// addSite registers a project's site; s.mu must be held.
func (s *Service) addSite(projectID string, id int64) *site {
	if st, ok := s.sites[projectID]; ok {
		return st
	}
	idx := newIndex(id)
	if s.loadChunk > 0 {
		idx.chunk = s.loadChunk
	}
	if s.holdMax > 0 {
		idx.holdFrom, idx.holdMax = 0, s.holdMax
	}
	if s.sortAlone > 0 {
		idx.sortAlone = s.sortAlone
	}
	if s.maxAgents > 0 {
		idx.agents.max = s.maxAgents
	}
	if s.maxReferrers > 0 {
		idx.referrers.max = s.maxReferrers
	}
	idx.merged, idx.claimed = s.merged, s.claimed
	idx.snapshot, idx.snapshotMin = snapshotPath(s.db, id), s.snapshotMin
	st := &site{id: id, idx: idx}
	s.sites[projectID] = st
	return st
}

// Preload loads the index of every site with traffic, so no query after
// start-up pays for it; serve runs it in the background and serves at once.
// A query that arrives meanwhile waits for its site's load to finish (or
// for its own context), so it is never answered from part of the views.
// It reports each site's load, for serve's log.
func (s *Service) Preload(ctx context.Context) ([]IndexLoad, error) {
	ids, err := s.db.AnalyticsSiteIDs(ctx)
	if err != nil {
		return nil, err
	}
	var loads []IndexLoad
	for project, id := range ids {
		s.mu.Lock()
		st := s.addSite(project, id)
		s.mu.Unlock()
		load := IndexLoad{Project: project}
		t0 := time.Now()
		// A load that leaves the index snapshotMin views or more beyond
		// its snapshot writes it and starts again from it (rewrite).
		err := st.idx.load(ctx, s.db, loadOptions{progress: func(done, _ int64) { load.Read = done }, rewriteFrom: s.snapshotMin})
		load.Snapshot, load.Took = st.idx.snapshotUsed(), time.Since(t0)
		if err != nil {
			return loads, fmt.Errorf("analytics: unable to load the index of project %s: %w", project, err)
		}
		loads = append(loads, load)
	}
	return loads, nil
}

// CatchUp reads the views stored since the last refresh into every index
// the service holds, and writes each snapshot that is due (saveDue), so a
// server that stores views nobody queries still restarts from a recent
// snapshot, and a query finds little to read. Serve calls it every minute.
func (s *Service) CatchUp(ctx context.Context) error {
	var errs []error
	for project, st := range s.sitesNow() {
		if err := st.idx.refresh(ctx, s.db); err != nil {
			errs = append(errs, fmt.Errorf("analytics: unable to update the index of project %s: %w", project, err))
			continue
		}
		if err := st.idx.saveIfDue(ctx, s.db); err != nil {
			errs = append(errs, fmt.Errorf("analytics: unable to save the index of project %s: %w", project, err))
		}
	}
	return errors.Join(errs...)
}

// sitesNow is a copy of the sites the service holds, by project.
func (s *Service) sitesNow() map[string]*site {
	s.mu.Lock()
	defer s.mu.Unlock()
	return maps.Clone(s.sites)
}

// IndexLoad is how one site's index was loaded at start-up.
type IndexLoad struct {
	Project string
	// Snapshot is nil when the load began from the site's snapshot, and
	// otherwise why not: none on disk (fs.ErrNotExist), or refused.
	Snapshot error
	Read     int64 // view ids read from the database, after the snapshot's
	Took     time.Duration
}

// SavedIndex is what SaveIndex did: the snapshot file, and how many view
// ids the load read from the database (the rest came from the snapshot).
type SavedIndex struct {
	Path string
	Read int64
}

// SaveIndex brings a project's index up to date and writes its snapshot
// when the one on disk lacks any of its views, so the next start-up reads
// the snapshot in seconds instead of every view (about a minute at 100M):
// the CLI's bulk writers, analytics generate and import, end with it.
// progress, when set, is told how many of the view ids read from the
// database are merged so far, of how many. A project without traffic, or
// a database in memory, writes nothing (Path "").
func (s *Service) SaveIndex(ctx context.Context, projectID string, progress func(done, total int64)) (SavedIndex, error) {
	st, err := s.site(ctx, projectID, false)
	if err != nil || st == nil || st.idx.snapshot == "" {
		return SavedIndex{}, err
	}
	var saved SavedIndex
	err = st.idx.load(ctx, s.db, loadOptions{rewriteFrom: 1, progress: func(done, total int64) {
		saved.Read = done
		if progress != nil {
			progress(done, total)
		}
	}})
	if err != nil {
		return SavedIndex{}, fmt.Errorf("analytics: unable to load the index of project %s: %w", projectID, err)
	}
	if st.idx.current.Load() == 0 {
		return SavedIndex{}, nil // no views
	}
	if err := st.idx.save(ctx, s.db); err != nil {
		return SavedIndex{}, fmt.Errorf("analytics: unable to save the index of project %s: %w", projectID, err)
	}
	saved.Path = st.idx.snapshot
	return saved, nil
}

// defaultSnapshotMin: below a million views, reading them from the
// database takes about as long as reading a snapshot.
const defaultSnapshotMin = 1 << 20

// SaveSnapshots writes the snapshot of every loaded index that has views
// its snapshot on disk lacks, so the next start-up reads few views from
// the database; serve calls it as it stops.
func (s *Service) SaveSnapshots(ctx context.Context) error {
	var errs []error
	for _, st := range s.sitesNow() {
		if st.idx.current.Load() > 0 {
			errs = append(errs, st.idx.save(ctx, s.db))
		}
	}
	return errors.Join(errs...)
}
