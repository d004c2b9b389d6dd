package jobs

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/folio-docs/folio/codehost"
	"github.com/folio-docs/folio/model"
)

// pullRequestDiffTimeout bounds asking GitHub for a merged pull request's
// diff while its webhook delivery waits (GitHub gives a delivery 10 s).
const pullRequestDiffTimeout = 5 * time.Second

// pullRequestDiffer is a code host that shows a pull request's diff (GitHub).
type pullRequestDiffer interface {
	PullRequestDiff(ctx context.Context, number int) (string, error)
}

// ArchiveForPullRequest archives the job whose pull request was closed on
// GitHub. A merged pull request is recorded as Folio's own merge is: its
// merge commit and the diff GitHub merged; when GitHub cannot give the
// diff, the merge is recorded without it (and a warning logged), never
// dropped. A job of another repository is not found, so a delivery cannot
// archive a job it did not open; an archived job stays as it is, but for a
// merge not yet recorded.
func (s *Service) ArchiveForPullRequest(ctx context.Context, pr codehost.ClosedPullRequest) error {
	pid, err := s.db.JobProjectID(ctx, pr.JobID)
	if err != nil {
		return err
	}
	p, err := s.db.ProjectByID(ctx, pid)
	if err != nil {
		return err
	}
	if !strings.EqualFold(strings.TrimSuffix(p.Repository, ".git"), strings.TrimSuffix(pr.Repository, ".git")) {
		return model.ErrJobNotFound
	}
	if pr.Merged {
		_, err = s.recordMerge(ctx, pid, pr.JobID, pr.MergeCommit, s.mergedDiff(ctx, p.Repository, pr))
	} else {
		_, err = s.Archive(ctx, pid, pr.JobID)
	}
	if errors.Is(err, model.ErrJobArchived) {
		return nil
	}
	return err
}

// mergedDiff asks GitHub what pull request pr's merge brought; "" when
// GitHub cannot say.
func (s *Service) mergedDiff(ctx context.Context, repository string, pr codehost.ClosedPullRequest) string {
	host, err := s.cfg.Hosts.Open(repository)
	differ, ok := host.(pullRequestDiffer)
	switch {
	case err != nil:
	case !ok:
		err = fmt.Errorf("the code host of %s shows no pull request diffs", repository)
	default:
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), pullRequestDiffTimeout)
		defer cancel()
		var diff string
		if diff, err = differ.PullRequestDiff(ctx, pr.Number); err == nil {
			return diff
		}
	}
	s.log.Warn("merged pull request recorded without its diff", "job_id", pr.JobID, "pull_request", pr.Number, "err", err)
	return ""
}
