package jobs

import (
	"context"
	"sync"
)

// maxKeptViews bounds the views Show keeps; past it the cache starts over.
const maxKeptViews = 10_000

// viewCache keeps the jobs GET job has shown, each with the database's
// DataVersion read before the job was, so a view is served again only while
// nothing at all has been written since, by this process or any other.
// Polling a job that has not changed then costs no database read.
type viewCache struct {
	mu    sync.RWMutex
	views map[viewKey]keptView
}

type viewKey struct{ project, id string }

type keptView struct {
	version uint64
	job     Job
}

func (c *viewCache) get(k viewKey, version uint64) (Job, bool) {
	c.mu.RLock()
	kv, ok := c.views[k]
	c.mu.RUnlock()
	return kv.job, ok && kv.version == version
}

func (c *viewCache) put(k viewKey, version uint64, j Job) {
	c.mu.Lock()
	if c.views == nil || len(c.views) >= maxKeptViews {
		c.views = make(map[viewKey]keptView)
	}
	// A slower reader that began before the last write must not replace
	// the view of a newer version: versions only grow.
	if kept, ok := c.views[k]; !ok || kept.version <= version {
		c.views[k] = keptView{version, j}
	}
	c.mu.Unlock()
}

// Show returns a job of a project as the API shows it (GET job, the polling
// endpoint): from memory while the database has not changed since it was
// last read, otherwise reading only the columns the view needs. The Job is
// shared: callers must not change it.
func (s *Service) Show(ctx context.Context, projectID, id string) (Job, error) {
	if err := ctx.Err(); err != nil {
		return Job{}, err
	}
	k := viewKey{projectID, id}
	version, keep := s.db.DataVersion()
	if keep {
		if j, ok := s.views.get(k, version); ok {
			return j, nil
		}
	}
	stored, err := s.db.JobViewByID(ctx, projectID, id)
	if err != nil {
		return Job{}, err
	}
	j := View(stored)
	if keep {
		s.views.put(k, version, j)
	}
	return j, nil
}
