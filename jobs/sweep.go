package jobs

import (
	"context"
	"fmt"
	"time"

	"github.com/folio-docs/folio/tasks"
)

// Sweep reconciles the jobs active in SQLite with what Asynq holds, so no
// job stays active forever: a run whose worker went silent past its lease
// (killed, cut off), or a job whose task Asynq lost or gave up on, is
// enqueued again as a new recovery of its turn, or failed once it has been
// attempted MaxAttempts times. Several sweepers at once are safe.
func (s *Service) Sweep(ctx context.Context) error {
	active, err := s.db.ActiveJobs(ctx)
	if err != nil {
		return err
	}
	now := time.Now()
	for _, j := range active {
		run := runOf(j)
		if j.LeaseOwner != "" && j.LeaseUntil != nil {
			if now.Before(*j.LeaseUntil) {
				continue // running, and heard from
			}
		} else {
			if now.Sub(j.UpdatedAt) < s.cfg.RecoveryGrace {
				continue // just enqueued
			}
			state, err := s.queue.AgentRunState(run)
			if err != nil {
				return err
			}
			if state == tasks.RunWaiting || state == tasks.RunActive {
				continue
			}
		}
		if j.Attempts >= s.cfg.MaxAttempts {
			if _, err := s.failRun(ctx, j.ID, "", CodeRetriesExhausted, fmt.Sprintf("The agent run was started %d times without finishing.", j.Attempts)); err != nil {
				return err
			}
			continue
		}
		ok, err := s.db.RecoverJobRun(ctx, j.ID, j.Turn, j.Recovery)
		if err != nil {
			return err
		}
		if !ok {
			continue // another sweeper, or the job moved on
		}
		j.Recovery++
		s.log.Warn("re-enqueuing a lost run", "job_id", j.ID, "turn", j.Turn, "recovery", j.Recovery)
		if err := s.enqueueRun(ctx, j); err != nil {
			return err
		}
	}
	return nil
}
