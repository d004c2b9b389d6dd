package analytics

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/folio-docs/folio/db"
)

// Service records page views and answers the exports. It is safe for
// concurrent use; one per process is enough.
type Service struct {
	db  *db.DB
	cls *Classifier
	now func() time.Time

	mu    sync.Mutex
	sites map[string]*site
	salts map[int64][]byte // UTC day → visitor-hash key
	// saltsKeptFrom is the first day whose key salts kept at the last rotation
	saltsKeptFrom int64
}

// site is one project's analytics: its integer id, the dictionary cache
// ingest uses and the index queries use.
type site struct {
	id   int64
	dict *db.AnalyticsDict
	idx  *index
}

// NewService builds the service over a migrated database.
func NewService(d *db.DB, cls *Classifier) *Service {
	return &Service{db: d, cls: cls, now: time.Now, sites: map[string]*site{}, salts: map[int64][]byte{}}
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
		if errors.Is(err, db.ErrNotFound) {
			return nil, nil
		}
	}
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if st, ok := s.sites[projectID]; ok {
		return st, nil
	}
	st = &site{id: id, dict: db.NewAnalyticsDict(), idx: newIndex(id)}
	s.sites[projectID] = st
	return st, nil
}
