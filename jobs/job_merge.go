package jobs

import (
	"context"
	"errors"

	"github.com/folio-docs/folio/codehost"
	"github.com/folio-docs/folio/codehost/local"
	"github.com/folio-docs/folio/db"
)

// Why MergeLocal refused.
var (
	ErrNotLocal      = errors.New("the job's repository is not a local one: merge its pull request on the code host")
	ErrBusy          = errors.New("the agent is still working on the job's branch")
	ErrNothingPushed = errors.New("the agent has not pushed a branch: there is nothing to merge")
	ErrMergeConflict = local.ErrMergeConflict
)

// MergeLocal merges a completed or failed job's branch into its ref in the
// project's local repository, then archives the job, as merging a pull
// request on GitHub does, recording what was merged (db.Job.MergedAt,
// MergeBase, MergeHead).
func (s *Service) MergeLocal(ctx context.Context, projectID, id string) (db.Job, local.MergeResult, error) {
	j, err := s.db.JobByID(ctx, projectID, id)
	if err != nil {
		return db.Job{}, local.MergeResult{}, err
	}
	kind, path, err := codehost.ParseRepository(j.Repository)
	switch {
	case err != nil || kind != codehost.KindLocal:
		return j, local.MergeResult{}, ErrNotLocal
	case j.Status == db.JobArchived:
		return j, local.MergeResult{}, ErrArchived
	case j.Status == db.JobActive:
		return j, local.MergeResult{}, ErrBusy
	case j.PRLink == "":
		return j, local.MergeResult{}, ErrNothingPushed
	}
	res, err := local.Merge(ctx, path, j.Ref, j.Branch)
	if err != nil {
		return j, res, err
	}
	// The merge is recorded with the archive, so the job page can say
	// "Merged" and show the merged diff once the branch is in the ref.
	merged, err := s.db.ArchiveMergedJob(ctx, projectID, id, db.JobMerge{Base: res.Base, Head: res.Head})
	if errors.Is(err, ErrArchived) {
		return j, res, nil // archived meanwhile: the branch is merged all the same
	}
	if err != nil {
		return j, res, err
	}
	s.stopRun(merged)
	s.notify(ctx, merged)
	return merged, res, nil
}
