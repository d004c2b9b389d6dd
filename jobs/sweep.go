package jobs

import (
	"context"
	"fmt"
	"time"

	"github.com/folio-docs/folio/model"
	"github.com/folio-docs/folio/tasks"
)

// Sweep reconciles the jobs active in SQLite with what Asynq holds, so no
// job stays active forever: a run whose worker went silent past its lease
// (killed, cut off), or a job whose task Asynq lost or gave up on, is
// enqueued again as a new recovery of its turn, or failed once it has been
// attempted MaxAttempts times. Webhook events nothing delivers any more
// are asked for again. Several sweepers at once are safe.
//
// It is called every few seconds (tasks.SweepInterval): expired leases are
// an indexed look-up that finds nothing when all is well; unclaimed jobs,
// which cost a question to Asynq each, are looked at every RecoveryGrace/3.
func (s *Service) Sweep(ctx context.Context) error {
	now := time.Now()
	expired, err := s.db.ExpiredJobRuns(ctx, now)
	if err != nil {
		return err
	}
	for _, j := range expired {
		if err := s.recoverRun(ctx, j); err != nil {
			return err
		}
	}
	if err := s.sweepWebhooks(ctx, now); err != nil {
		return err
	}
	last := s.unclaimedChecked.Load()
	if now.UnixNano()-last < int64(s.cfg.RecoveryGrace/3) || !s.unclaimedChecked.CompareAndSwap(last, now.UnixNano()) {
		return nil
	}
	unclaimed, err := s.db.UnclaimedJobs(ctx, now.Add(-s.cfg.RecoveryGrace))
	if err != nil {
		return err
	}
	for _, j := range unclaimed {
		state, err := s.queue.AgentRunState(runOf(j))
		if err != nil {
			return err
		}
		if state == tasks.RunWaiting || state == tasks.RunActive {
			continue
		}
		if err := s.recoverRun(ctx, j); err != nil {
			return err
		}
	}
	return nil
}

// recoverRun enqueues j's turn again as a new recovery, or fails the job
// once it has been attempted MaxAttempts times.
func (s *Service) recoverRun(ctx context.Context, j model.Job) error {
	if j.Attempts >= s.cfg.MaxAttempts {
		_, err := s.failRun(ctx, j.ID, "", CodeRetriesExhausted, fmt.Sprintf("The agent run was started %d times without finishing.", j.Attempts))
		return err
	}
	ok, err := s.db.RecoverJobRun(ctx, j.ID, j.Turn, j.Recovery)
	if err != nil || !ok {
		return err // !ok: another sweeper, or the job moved on
	}
	j.Recovery++
	s.log.Warn("re-enqueuing a lost run", "job_id", j.ID, "turn", j.Turn, "recovery", j.Recovery, "lease_expired", j.LeaseOwner != "")
	return s.enqueueRun(ctx, j)
}

// sweepWebhooks asks again for the delivery of webhook events due for
// RecoveryGrace that nothing delivers: their task was lost, or the
// delivery holding them died and its lease ran out.
func (s *Service) sweepWebhooks(ctx context.Context, now time.Time) error {
	stalled, err := s.db.StalledWebhookEvents(ctx, now.Add(-s.cfg.RecoveryGrace), 100)
	if err != nil {
		return err
	}
	for _, e := range stalled {
		if err := s.scheduleWebhook(ctx, e); err != nil {
			return err
		}
	}
	return nil
}
