package jobs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/folio-docs/folio/agent"
	"github.com/folio-docs/folio/db"
	"github.com/folio-docs/folio/metrics"
	"github.com/folio-docs/folio/tasks"
)

// errNoRunner keeps a run queued in a process that cannot run agents.
var errNoRunner = errors.New("jobs: no agent runner in this process")

// errLeaseLost stops a run whose claim is gone: the job was cancelled or
// archived, or it was given to another attempt after this one went silent.
var errLeaseLost = errors.New("jobs: the run lost its claim on the job")

// errTimeLimit ends a run that reached JobTimeout.
var errTimeLimit = errors.New("jobs: the run reached its time limit")

// RunJob runs one turn of a job (the agent:run task). It claims the turn in
// SQLite first, so a job runs at most once at a time on any number of
// workers, and a stale or duplicate task does nothing. A nil error means
// the task is done (the job moved on, or failed for good); an error asks
// Asynq for a retry.
func (s *Service) RunJob(ctx context.Context, p tasks.AgentRun) error {
	if s.runner == nil {
		return errNoRunner
	}
	owner := db.NewID()
	j, ok, err := s.db.ClaimJobRun(ctx, p.JobID, p.Turn, p.Recovery, owner, time.Now().Add(s.cfg.Lease))
	if err != nil {
		return err
	}
	if !ok {
		s.log.Info("run skipped: the job moved on or another attempt holds it", "job_id", p.JobID, "turn", p.Turn, "recovery", p.Recovery)
		return nil
	}
	// Writes after the run must land even when its context is done.
	after := context.WithoutCancel(ctx)
	if j.Attempts > s.cfg.MaxAttempts {
		s.fail(after, j, owner, CodeRetriesExhausted, fmt.Sprintf("The agent run was started %d times without finishing.", j.Attempts-1))
		return nil
	}
	run, err := s.prepare(ctx, j)
	if err != nil {
		s.db.ReleaseJobRun(after, j.ID, owner)
		return err
	}

	// The time limit is kept here, to the millisecond; Asynq's own timeout
	// (whole seconds, with a grace) is only a backstop.
	limited, stopTimer := context.WithTimeoutCause(ctx, s.cfg.JobTimeout, errTimeLimit)
	defer stopTimer()
	runCtx, cancel := context.WithCancelCause(limited)
	defer cancel(nil)
	stop := s.keepLease(runCtx, cancel, j.ID, owner)
	started := time.Now()
	res, err := s.runner.Run(runCtx, run, s.recorder(j, owner))
	stop()
	// A failed attempt used the model too: count every run.
	if res.Steps > 0 || res.Tokens > 0 {
		if uerr := s.db.AddJobUsage(after, j.ID, res.Steps, res.Tokens); uerr != nil {
			s.log.Warn("unable to record a run's usage", "job_id", j.ID, "err", uerr)
		}
	}

	switch {
	case err == nil:
		metrics.AgentRun(metrics.RunCompleted, time.Since(started))
		s.finish(after, j, owner, res)
		return nil
	case errors.Is(context.Cause(runCtx), errLeaseLost):
		metrics.AgentRun(metrics.RunCanceled, time.Since(started))
		return nil
	case errors.Is(context.Cause(runCtx), errTimeLimit), errors.Is(ctx.Err(), context.DeadlineExceeded):
		metrics.AgentRun(metrics.RunFailed, time.Since(started))
		s.fail(after, j, owner, CodeTimeout, fmt.Sprintf("The agent run exceeded its time limit of %s.", s.cfg.JobTimeout))
		return nil
	case agent.IsPermanent(err):
		var ae *agent.Error
		errors.As(err, &ae)
		metrics.AgentRun(metrics.RunFailed, time.Since(started))
		s.fail(after, j, owner, ae.Code, ae.Message)
		return nil
	}
	// Transient, or this worker is shutting down: free the turn for a retry,
	// unless the job was cancelled or archived meanwhile.
	held, rerr := s.db.ReleaseJobRun(after, j.ID, owner)
	if rerr != nil || !held {
		metrics.AgentRun(metrics.RunCanceled, time.Since(started)) // cancelled or archived meanwhile
		return rerr
	}
	if j.Attempts >= s.cfg.MaxAttempts {
		code, msg := CodeAgentError, "The agent run kept failing."
		var ae *agent.Error
		if errors.As(err, &ae) {
			code, msg = ae.Code, ae.Message
		}
		metrics.AgentRun(metrics.RunFailed, time.Since(started))
		s.fail(after, j, "", code, fmt.Sprintf("%s (after %d attempts)", msg, j.Attempts))
		return nil
	}
	metrics.AgentRun(metrics.RunRetried, time.Since(started))
	s.log.Warn("agent run failed; it will be retried", "job_id", j.ID, "turn", j.Turn, "attempt", j.Attempts, "err", err)
	return err
}

// prepare gathers what the runner needs: the project and the history.
func (s *Service) prepare(ctx context.Context, j db.Job) (agent.Run, error) {
	project, err := s.db.ProjectByID(ctx, j.ProjectID)
	if err != nil {
		return agent.Run{}, err
	}
	ms, err := s.db.JobMessages(ctx, j.ID, true, j.Turn)
	if err != nil {
		return agent.Run{}, err
	}
	history := make([]agent.Message, len(ms))
	for i, m := range ms {
		history[i] = agent.Message{Role: m.Role, Content: m.Content, ToolCallID: m.ToolCallID, ToolName: m.ToolName, IsError: m.IsError, CreatedAt: m.CreatedAt}
		if m.ToolCalls != "" {
			if err := json.Unmarshal([]byte(m.ToolCalls), &history[i].ToolCalls); err != nil {
				return agent.Run{}, fmt.Errorf("jobs: unable to read tool calls of job %s: %w", j.ID, err)
			}
		}
	}
	return agent.Run{JobID: j.ID, Project: project, Model: j.Model, Branch: j.Branch, PRLink: j.PRLink, History: history}, nil
}

// recorder stores what the attempt says as it says it.
func (s *Service) recorder(j db.Job, owner string) agent.Recorder {
	return func(ctx context.Context, m agent.Message) error {
		calls := ""
		if len(m.ToolCalls) > 0 {
			b, err := json.Marshal(m.ToolCalls)
			if err != nil {
				return fmt.Errorf("jobs: unable to encode tool calls: %w", err)
			}
			calls = string(b)
		}
		at := m.CreatedAt
		if at.IsZero() {
			at = time.Now()
		}
		return s.db.AddJobMessage(ctx, db.JobMessage{
			JobID: j.ID, Turn: j.Turn, Attempt: owner, Role: m.Role, Content: m.Content, ToolCalls: calls,
			ToolCallID: m.ToolCallID, ToolName: m.ToolName, IsError: m.IsError, CreatedAt: at,
		})
	}
}

// keepLease renews the claim every Lease/3 and cancels the run once the
// claim is gone. The returned func stops it.
func (s *Service) keepLease(ctx context.Context, cancel context.CancelCauseFunc, id, owner string) (stop func()) {
	done := make(chan struct{})
	exited := make(chan struct{})
	go func() {
		defer close(exited)
		t := time.NewTicker(s.cfg.Lease / 3)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-t.C:
			}
			ok, err := s.db.ExtendJobLease(ctx, id, owner, time.Now().Add(s.cfg.Lease))
			if err != nil {
				s.log.Warn("unable to extend a run's lease", "job_id", id, "err", err)
				continue
			}
			if !ok {
				cancel(errLeaseLost)
				return
			}
		}
	}()
	return func() { close(done); <-exited }
}

// finish ends a successful turn and starts the next if follow-ups wait.
func (s *Service) finish(ctx context.Context, j db.Job, owner string, res agent.Result) {
	id := j.ID
	j, next, ok, err := s.db.FinishJobRun(ctx, id, owner, res.PRLink)
	switch {
	case err != nil:
		// The lease runs out and the sweep runs the turn again.
		s.log.Error("unable to record a finished run", "job_id", id, "err", err)
	case !ok:
	case next:
		if err := s.enqueueRun(ctx, j); err != nil {
			s.log.Warn("unable to enqueue the next turn; the sweep will", "job_id", j.ID, "err", err)
		}
	default:
		s.notify(ctx, j)
	}
}

// fail fails the job owner runs ("" for whoever runs it).
func (s *Service) fail(ctx context.Context, j db.Job, owner, code, message string) {
	id := j.ID
	j, ok, err := s.db.FailJobRun(ctx, id, owner, code, message)
	if err != nil {
		s.log.Error("unable to fail a job", "job_id", id, "code", code, "err", err)
		return
	}
	if ok {
		s.log.Info("job failed", "job_id", j.ID, "code", code)
		s.notify(ctx, j)
	}
}
