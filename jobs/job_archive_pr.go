package jobs

import (
	"context"
	"errors"
	"strings"
)

// ArchiveForPullRequest archives the job whose pull request on repository
// was merged or closed. A job of another repository is not found, so a
// delivery cannot archive a job it did not open; an archived job stays as it is.
func (s *Service) ArchiveForPullRequest(ctx context.Context, jobID, repository string) error {
	pid, err := s.db.JobProjectID(ctx, jobID)
	if err != nil {
		return err
	}
	p, err := s.db.ProjectByID(ctx, pid)
	if err != nil {
		return err
	}
	if !strings.EqualFold(strings.TrimSuffix(p.Repository, ".git"), strings.TrimSuffix(repository, ".git")) {
		return ErrNotFound
	}
	_, err = s.Archive(ctx, pid, jobID)
	if errors.Is(err, ErrArchived) {
		return nil
	}
	return err
}
