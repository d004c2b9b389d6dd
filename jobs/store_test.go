package jobs_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/folio-docs/folio/agent"
	"github.com/folio-docs/folio/jobs"
	"github.com/folio-docs/folio/tasks"
)

// cutOffStore is the SQLite store of a worker that loses its way to it
// once the run has started: every lease renewal fails.
type cutOffStore struct{ jobs.Store }

func (cutOffStore) ExtendLease(context.Context, string, string, time.Duration) (bool, error) {
	return false, errors.New("connection refused")
}

// A worker that cannot renew its lease stops its run before the lease can
// run out, so the sweep never gives the turn to a second worker while the
// first still works on it.
func TestRunStopsBeforeAnUnrenewedLeaseRunsOut(t *testing.T) {
	const lease = 600 * time.Millisecond
	w := newWorld(t, jobs.Config{Lease: lease})
	j := w.create("edit")
	worker := jobs.NewWorker(cutOffStore{w.svc.LocalStore()}, w.runner, w.log, jobs.Config{Lease: lease})
	stopped := make(chan time.Time, 1)
	w.runner.then(func(ctx context.Context, _ agent.Run, _ agent.Recorder) (agent.Result, error) {
		<-ctx.Done()
		stopped <- time.Now()
		return agent.Result{}, ctx.Err()
	})
	start := time.Now()
	if err := worker.RunJob(context.Background(), tasks.AgentRun{JobID: j.ID, Turn: 1}); err != nil {
		t.Fatalf("RunJob = %v, want nil (the claim is lost, nothing to retry)", err)
	}
	at := <-stopped
	if d := at.Sub(start); d >= lease {
		t.Fatalf("the run stopped %s after it started, want before its %s lease ran out", d, lease)
	}
	if got := w.get(j.ID); got.LeaseUntil == nil || !at.Before(*got.LeaseUntil) {
		t.Fatalf("lease until %v, run stopped at %v: want stopped first", got.LeaseUntil, at)
	}
}
