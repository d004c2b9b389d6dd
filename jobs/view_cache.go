package jobs

import (
	"context"
	"encoding/json"
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
	json    []byte // job as the API sends it: json.Marshal(job)
}

func (c *viewCache) get(k viewKey, version uint64) (keptView, bool) {
	c.mu.RLock()
	kv, ok := c.views[k]
	c.mu.RUnlock()
	return kv, ok && kv.version == version
}

func (c *viewCache) put(k viewKey, kv keptView) {
	c.mu.Lock()
	if c.views == nil || len(c.views) >= maxKeptViews {
		c.views = make(map[viewKey]keptView)
	}
	// A slower reader that began before the last write must not replace
	// the view of a newer version: versions only grow.
	if kept, ok := c.views[k]; !ok || kept.version <= kv.version {
		c.views[k] = kv
	}
	c.mu.Unlock()
}

// Show returns a job of a project as the API shows it (GET job, the polling
// endpoint): from memory while the database has not changed since it was
// last read, otherwise reading only the columns the view needs. The Job is
// shared: callers must not change it.
func (s *Service) Show(ctx context.Context, projectID, id string) (Job, error) {
	kv, err := s.show(ctx, projectID, id)
	return kv.job, err
}

// ShowJSON is Show's job as the API sends it, json.Marshal's bytes, encoded
// once for as long as the view is kept: polling a job that has not changed
// costs no encoding either. The bytes are shared: callers must not change them.
func (s *Service) ShowJSON(ctx context.Context, projectID, id string) ([]byte, error) {
	kv, err := s.show(ctx, projectID, id)
	return kv.json, err
}

func (s *Service) show(ctx context.Context, projectID, id string) (keptView, error) {
	if err := ctx.Err(); err != nil {
		return keptView{}, err
	}
	k := viewKey{projectID, id}
	version, keep := s.db.DataVersion()
	if keep {
		if kv, ok := s.views.get(k, version); ok {
			return kv, nil
		}
	}
	stored, err := s.db.JobViewByID(ctx, projectID, id)
	if err != nil {
		return keptView{}, err
	}
	kv := keptView{version: version, job: s.View(stored)}
	if kv.json, err = json.Marshal(kv.job); err != nil {
		return keptView{}, err
	}
	if keep {
		s.views.put(k, kv)
	}
	return kv, nil
}
