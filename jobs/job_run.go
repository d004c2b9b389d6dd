package jobs

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/folio-docs/folio/agent"
	"github.com/folio-docs/folio/metrics"
	"github.com/folio-docs/folio/model"
	"github.com/folio-docs/folio/tasks"
)

// errNoRunner keeps a run queued in a process that cannot run agents.
var errNoRunner = errors.New("jobs: no agent runner in this process")

// errLeaseLost stops a run whose claim is gone: the job was cancelled or
// archived, or it was given to another attempt after this one went silent.
var errLeaseLost = errors.New("jobs: the run lost its claim on the job")

// errTimeLimit ends a run that reached JobTimeout.
var errTimeLimit = errors.New("jobs: the run reached its time limit")

// Worker runs turns of jobs (the agent:run task) through an agent.Runner,
// reading and writing only through a Store: it does not know whether the
// database is in this process or behind serve's internal API.
type Worker struct {
	store  Store
	runner agent.Runner
	log    *slog.Logger
	cfg    Config
}

// NewWorker returns a Worker over store; cfg's JobTimeout, Lease and
// MaxAttempts apply.
func NewWorker(store Store, runner agent.Runner, log *slog.Logger, cfg Config) *Worker {
	return &Worker{store: store, runner: runner, log: log, cfg: cfg.withDefaults()}
}

// RunJob runs one turn through the in-process Worker (see Worker.RunJob).
func (s *Service) RunJob(ctx context.Context, p tasks.AgentRun) error {
	if s.worker == nil {
		return errNoRunner
	}
	return s.worker.RunJob(ctx, p)
}

// RunJob runs one turn of a job. It claims the turn first, so a job runs
// at most once at a time on any number of workers, and a stale or
// duplicate task does nothing. A nil error means the task is done (the job
// moved on, or failed for good); an error asks Asynq for a retry.
func (w *Worker) RunJob(ctx context.Context, p tasks.AgentRun) error {
	if w.runner == nil {
		return errNoRunner
	}
	owner := model.NewID()
	j, ok, err := w.store.ClaimRun(ctx, p, owner, w.cfg.Lease)
	if err != nil {
		return err
	}
	if !ok {
		w.log.Info("run skipped: the job moved on or another attempt holds it", "job_id", p.JobID, "turn", p.Turn, "recovery", p.Recovery)
		return nil
	}
	attrs := []any{"job_id", j.ID, "turn", j.Turn, "recovery", j.Recovery, "attempt", j.Attempts}
	if p.EnqueuedAt > 0 {
		attrs = append(attrs, "since_enqueue", time.Since(time.UnixMilli(p.EnqueuedAt)).Round(time.Millisecond/10))
	}
	w.log.Info("run picked up", attrs...)
	// Writes after the run must land even when its context is done.
	after := context.WithoutCancel(ctx)
	if j.Attempts > w.cfg.MaxAttempts {
		w.fail(after, j, owner, CodeRetriesExhausted, fmt.Sprintf("The agent run was started %d times without finishing.", j.Attempts-1))
		return nil
	}
	run, err := w.prepare(ctx, j)
	if err != nil {
		_, _ = w.store.ReleaseRun(after, j.ID, owner) // prepare's error is the one to report; if this fails too, the lease runs out and the sweep runs the turn again
		return err
	}

	// The time limit is kept here, to the millisecond; Asynq's own timeout
	// (whole seconds, with a grace) is only a backstop. At the limit the
	// runner stops calling the model and keeps its work (run.Deadline);
	// the run's context lasts WrapUp longer for that, and then ends it.
	started := time.Now()
	run.Deadline, run.TimeLimit = started.Add(w.cfg.JobTimeout), w.cfg.JobTimeout
	limited, stopTimer := context.WithDeadlineCause(ctx, run.Deadline.Add(w.cfg.WrapUp), errTimeLimit)
	defer stopTimer()
	runCtx, cancel := context.WithCancelCause(limited)
	defer cancel(nil)
	stop := w.keepLease(runCtx, cancel, j.ID, owner)
	res, err := w.runner.Run(runCtx, run, w.recorder(j, owner))
	stop()
	// A failed attempt used the model too: count every run.
	if res.Steps > 0 || res.Tokens > 0 {
		u := model.RunUsage{Steps: res.Steps, Tokens: res.Tokens, Input: res.Usage.Input, Output: res.Usage.Output,
			Cached: res.Usage.Cached, CacheWrite: res.Usage.CacheWrite, CostMicros: res.CostMicros}
		if uerr := w.store.AddUsage(after, j.ID, u); uerr != nil {
			w.log.Warn("unable to record a run's usage", "job_id", j.ID, "err", uerr)
		}
	}

	switch {
	case err == nil:
		metrics.AgentRun(metrics.RunCompleted, time.Since(started))
		if ferr := w.store.FinishRun(after, j.ID, owner, res); ferr != nil {
			// The lease runs out and the sweep runs the turn again.
			w.log.Error("unable to record a finished run", "job_id", j.ID, "err", ferr)
		}
		return nil
	case errors.Is(context.Cause(runCtx), errLeaseLost):
		metrics.AgentRun(metrics.RunCanceled, time.Since(started))
		return nil
	case errors.Is(context.Cause(runCtx), errTimeLimit), errors.Is(ctx.Err(), context.DeadlineExceeded):
		metrics.AgentRun(metrics.RunFailed, time.Since(started))
		w.fail(after, j, owner, CodeTimeout, fmt.Sprintf("The agent run exceeded its time limit of %s.", w.cfg.JobTimeout))
		return nil
	case agent.IsPermanent(err):
		var ae *agent.Error
		errors.As(err, &ae)
		metrics.AgentRun(metrics.RunFailed, time.Since(started))
		w.fail(after, j, owner, ae.Code, ae.Message)
		return nil
	}
	// Transient, or this worker is shutting down: free the turn for a retry,
	// unless the job was cancelled or archived meanwhile.
	held, rerr := w.store.ReleaseRun(after, j.ID, owner)
	if rerr != nil || !held {
		metrics.AgentRun(metrics.RunCanceled, time.Since(started)) // cancelled or archived meanwhile
		return rerr
	}
	if j.Attempts >= w.cfg.MaxAttempts {
		code, msg := CodeAgentError, "The agent run kept failing."
		var ae *agent.Error
		if errors.As(err, &ae) {
			code, msg = ae.Code, ae.Message
		}
		metrics.AgentRun(metrics.RunFailed, time.Since(started))
		w.fail(after, j, "", code, fmt.Sprintf("%s (after %d attempts)", msg, j.Attempts))
		return nil
	}
	metrics.AgentRun(metrics.RunRetried, time.Since(started))
	w.log.Warn("agent run failed; it will be retried", "job_id", j.ID, "turn", j.Turn, "attempt", j.Attempts, "err", err)
	return err
}

// prepare gathers what the runner needs: the project and the history.
func (w *Worker) prepare(ctx context.Context, j model.Job) (agent.Run, error) {
	project, err := w.store.Project(ctx, j.ProjectID)
	if err != nil {
		return agent.Run{}, err
	}
	project.Ref = j.Ref // the job's own ref: the project's when it was created, or the one asked for
	history, err := w.store.History(ctx, j.ID, j.Turn)
	if err != nil {
		return agent.Run{}, err
	}
	return agent.Run{JobID: j.ID, Project: project, Model: j.Model, Branch: j.Branch, PRLink: j.PRLink, History: history,
		TokensUsed: j.Tokens, LastAttempt: j.Attempts >= w.cfg.MaxAttempts}, nil
}

// recorder stores what the attempt says as it says it.
func (w *Worker) recorder(j model.Job, owner string) agent.Recorder {
	return func(ctx context.Context, m agent.Message) error {
		return w.store.AddMessage(ctx, j.ID, j.Turn, owner, m)
	}
}

// keepLease renews the claim every Lease/3 (the heartbeat) and cancels the
// run once the claim is gone, or once it may have expired unrenewed (this
// worker cut off from the store), so that no turn runs twice at once. The
// returned func stops it.
func (w *Worker) keepLease(ctx context.Context, cancel context.CancelCauseFunc, id, owner string) (stop func()) {
	done := make(chan struct{})
	exited := make(chan struct{})
	go func() {
		defer close(exited)
		t := time.NewTicker(w.cfg.Lease / 3)
		defer t.Stop()
		renewed := time.Now()
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-t.C:
			}
			asked := time.Now()
			// A renewal that hangs must not outlast the lease it renews.
			ectx, cancelExtend := context.WithTimeout(ctx, w.cfg.Lease/4)
			ok, err := w.store.ExtendLease(ectx, id, owner, w.cfg.Lease)
			cancelExtend()
			if err != nil {
				// The next renewal would come after the lease ran out.
				if time.Since(renewed)+w.cfg.Lease/3 >= w.cfg.Lease {
					w.log.Error("the run's lease could not be renewed in time; stopping it", "job_id", id, "err", err)
					cancel(errLeaseLost)
					return
				}
				w.log.Warn("unable to extend a run's lease", "job_id", id, "err", err)
				continue
			}
			if !ok {
				cancel(errLeaseLost)
				return
			}
			renewed = asked
		}
	}()
	return func() { close(done); <-exited }
}

// fail fails the job owner runs ("" for whoever runs it).
func (w *Worker) fail(ctx context.Context, j model.Job, owner, code, message string) {
	if err := w.store.FailRun(ctx, j.ID, owner, code, message); err != nil {
		w.log.Error("unable to fail a job", "job_id", j.ID, "code", code, "err", err)
	}
}
