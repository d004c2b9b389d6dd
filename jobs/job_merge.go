package jobs

import (
	"context"
	"errors"
	"fmt"

	"github.com/folio-docs/folio/codehost"
	"github.com/folio-docs/folio/model"
)

// Changes is what the job's branch brings to its ref, from the job's code
// host; for a merged job (by Folio or on GitHub), what the merge brought.
// The job is returned too, for the review page.
func (s *Service) Changes(ctx context.Context, projectID, id string) (codehost.Changes, model.Job, error) {
	j, err := s.db.JobByID(ctx, projectID, id)
	if err != nil {
		return codehost.Changes{}, model.Job{}, err
	}
	if j.MergedAt != nil {
		diff, err := s.db.MergedDiff(ctx, j.ID)
		if err != nil {
			return codehost.Changes{}, j, err
		}
		return codehost.Changes{Base: j.Ref, Branch: j.Branch, Diff: diff, Files: codehost.ParseDiff(diff)}, j, nil
	}
	host, err := s.cfg.Hosts.Open(j.Repository)
	if err != nil {
		return codehost.Changes{}, j, fmt.Errorf("jobs: unable to reach the code host of job %s: %w", j.ID, err)
	}
	c, err := host.Changes(ctx, j.Ref, j.Branch)
	if err != nil {
		return c, j, fmt.Errorf("jobs: unable to read the changes of job %s: %w", j.ID, err)
	}
	return c, j, nil
}

// Merge lands a completed or failed job's branch in its ref — in the local
// repository, or by merging its pull request on GitHub — keeps the diff it
// merged, and archives the job. An active job is model.ErrJobBusy, an archived one
// model.ErrJobArchived; a branch with nothing to bring is model.ErrNothingToMerge, one
// that does not merge cleanly model.ErrMergeConflict. A follow-up that arrives
// while the branch is being merged is dropped with the archive: the merge
// has landed.
func (s *Service) Merge(ctx context.Context, projectID, id string) (model.Job, error) {
	j, err := s.db.JobByID(ctx, projectID, id)
	if err != nil {
		return model.Job{}, err
	}
	if _, err := j.Status.Merge(); err != nil {
		return j, err // model.ErrJobArchived, or model.ErrJobBusy while its turn is under way
	}
	host, err := s.cfg.Hosts.Open(j.Repository)
	if err != nil {
		return j, fmt.Errorf("jobs: unable to reach the code host of job %s: %w", j.ID, err)
	}
	c, err := host.Changes(ctx, j.Ref, j.Branch)
	if err != nil {
		return j, fmt.Errorf("jobs: unable to read the changes of job %s: %w", j.ID, err)
	}
	if len(c.Files) == 0 {
		return j, model.ErrNothingToMerge
	}
	commit, err := host.Merge(ctx, j.Ref, j.Branch)
	if err != nil {
		return j, err
	}
	merged, err := s.recordMerge(ctx, projectID, id, commit, c.Diff)
	if errors.Is(err, model.ErrJobArchived) {
		// GitHub's webhook of this very merge was recorded first.
		return s.db.JobByID(context.WithoutCancel(ctx), projectID, id)
	}
	return merged, err
}

// recordMerge is the one record of a merge, Folio's or GitHub's: the merge
// commit and the diff merged, and the job archived as Archive does (a run
// under way is stopped, queued follow-ups dropped). A merge already
// recorded is model.ErrJobArchived. It survives the caller's cancellation: the
// merge has happened.
func (s *Service) recordMerge(ctx context.Context, projectID, id, commit, diff string) (model.Job, error) {
	ctx = context.WithoutCancel(ctx)
	j, archived, err := s.db.MergeJob(ctx, projectID, id, commit, diff)
	if err != nil {
		return j, err
	}
	s.log.Info("job merged", "job_id", j.ID, "ref", j.Ref, "commit", commit)
	s.changed(ctx, j.ID) // the merge recorded, and the job archived if it was not
	if archived {
		s.stopRun(j)
		s.notify(ctx, j)
	}
	return j, nil
}

// ChangesLink is the review page of a job's branch in the dashboard, a
// local job's prLink (CONTRACT §7).
func ChangesLink(baseURL, projectID, jobID string) string {
	return codehost.ChangesLink(baseURL, projectID, jobID)
}
