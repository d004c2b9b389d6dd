package jobs_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hibiken/asynq"

	"github.com/folio-docs/folio/agent"
	"github.com/folio-docs/folio/jobs"
	"github.com/folio-docs/folio/model"
	"github.com/folio-docs/folio/tasks"
)

func TestCreateIsActiveThenCompletedWithPRLink(t *testing.T) {
	w := newWorld(t, jobs.Config{})
	w.startWorker()
	j := w.create("Fix the typo in README")
	if j.Status != model.JobActive || j.Branch != "folio/"+j.ID || j.Model != "test-model" || j.Repository != "acme/docs" || j.Ref != "main" {
		t.Fatalf("created job = %+v, want active on folio/<id>, model test-model, acme/docs@main", j)
	}
	run := w.runner.waitRun(t)
	if got, want := contents(run.History), []string{"user:Fix the typo in README"}; !slices.Equal(got, want) {
		t.Fatalf("history = %q, want %q", got, want)
	}
	if run.Branch != j.Branch || run.Project.ID != w.project.ID || run.Model != "test-model" {
		t.Fatalf("run = %+v, want the job's branch, project and model", run)
	}
	w.runner.then(reply("Fixed.", "https://github.com/acme/docs/pull/1"))
	done := w.waitStatus(j.ID, model.JobCompleted)
	if done.PRLink != "https://github.com/acme/docs/pull/1" {
		t.Fatalf("prLink = %q, want the pull request", done.PRLink)
	}
}

func TestCompletedWithoutChangesKeepsPRLinkEmpty(t *testing.T) {
	w := newWorld(t, jobs.Config{})
	w.startWorker()
	j := w.create("Anything to fix?")
	w.runner.waitRun(t)
	w.runner.then(reply("Nothing to change.", ""))
	if done := w.waitStatus(j.ID, model.JobCompleted); done.PRLink != "" {
		t.Fatalf("prLink = %q, want empty", done.PRLink)
	}
}

func TestFollowUpOnCompletedContinuesWithWholeConversation(t *testing.T) {
	w := newWorld(t, jobs.Config{})
	w.startWorker()
	ctx := context.Background()
	j := w.create("one")
	w.runner.waitRun(t)
	w.runner.then(reply("did one", "https://pr/1"))
	w.waitStatus(j.ID, model.JobCompleted)

	c, err := w.svc.Message(ctx, w.project.ID, j.ID, "two")
	if err != nil || c.Job.Status != model.JobActive {
		t.Fatalf("message on completed = %+v, %v; want active", c.Job, err)
	}
	run := w.runner.waitRun(t)
	if got, want := contents(run.History), []string{"user:one", "assistant:did one", "user:two"}; !slices.Equal(got, want) {
		t.Fatalf("history = %q, want %q", got, want)
	}
	if run.Branch != j.Branch || run.PRLink != "https://pr/1" {
		t.Fatalf("run branch %q pr %q, want the same branch and pull request", run.Branch, run.PRLink)
	}
	w.runner.then(reply("did two", "")) // no new PR link: the old one stays
	if done := w.waitStatus(j.ID, model.JobCompleted); done.PRLink != "https://pr/1" {
		t.Fatalf("prLink = %q, want it never cleared", done.PRLink)
	}
}

func TestPermanentErrorFailsAndFollowUpReactivates(t *testing.T) {
	w := newWorld(t, jobs.Config{})
	w.startWorker()
	ctx := context.Background()
	j := w.create("do it")
	w.runner.waitRun(t)
	w.runner.then(failWith("trying", &agent.Error{Code: "config_missing", Message: "FOLIO_OPENAI_API_KEY is not set.", Permanent: true}))
	failed := w.waitStatus(j.ID, model.JobFailed)
	if failed.ErrorCode != "config_missing" || failed.ErrorMessage != "FOLIO_OPENAI_API_KEY is not set." {
		t.Fatalf("error = %q %q, want the agent's code and message", failed.ErrorCode, failed.ErrorMessage)
	}
	if v := w.svc.View(failed); v.Error == nil || v.Error.Code != "config_missing" {
		t.Fatalf("view error = %+v, want config_missing", v.Error)
	}

	c, err := w.svc.Message(ctx, w.project.ID, j.ID, "try again")
	if err != nil || c.Job.Status != model.JobActive || c.Job.ErrorCode != "" {
		t.Fatalf("message on failed = %+v, %v; want active without error", c.Job, err)
	}
	run := w.runner.waitRun(t)
	// The failed attempt's words are not history; both prompts are.
	if got, want := contents(run.History), []string{"user:do it", "user:try again"}; !slices.Equal(got, want) {
		t.Fatalf("history = %q, want %q", got, want)
	}
	w.runner.then(reply("done", ""))
	w.waitStatus(j.ID, model.JobCompleted)
}

func TestFollowUpsOnActiveAreQueuedInOrder(t *testing.T) {
	w := newWorld(t, jobs.Config{})
	w.startWorker()
	ctx := context.Background()
	j := w.create("first")
	w.runner.waitRun(t)
	for _, p := range []string{"second", "third"} {
		c, err := w.svc.Message(ctx, w.project.ID, j.ID, p)
		if err != nil || c.Job.Status != model.JobActive {
			t.Fatalf("message on active = %+v, %v; want still active", c.Job, err)
		}
	}
	w.runner.then(reply("did first", ""))
	run := w.runner.waitRun(t) // the next turn starts by itself
	if got, want := contents(run.History), []string{"user:first", "assistant:did first", "user:second", "user:third"}; !slices.Equal(got, want) {
		t.Fatalf("history = %q, want %q", got, want)
	}
	if j := w.get(j.ID); j.Status != model.JobActive {
		t.Fatalf("between turns status = %q, want active", j.Status)
	}
	w.runner.then(reply("did the rest", ""))
	w.waitStatus(j.ID, model.JobCompleted)

	ms, err := w.svc.Messages(ctx, w.project.ID, j.ID)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range ms {
		got = append(got, m.Role+":"+m.Content)
	}
	if want := []string{"user:first", "assistant:did first", "user:second", "user:third", "assistant:did the rest"}; !slices.Equal(got, want) {
		t.Fatalf("messages = %q, want %q", got, want)
	}
}

func TestArchivedRefusesFollowUpAndArchiveAgain(t *testing.T) {
	w := newWorld(t, jobs.Config{})
	ctx := context.Background()
	j := w.create("x")
	a, err := w.svc.Archive(ctx, w.project.ID, j.ID)
	if err != nil || a.Status != model.JobArchived || a.ArchivedAt == nil {
		t.Fatalf("archive = %+v, %v; want archived with archivedAt", a, err)
	}
	if _, err := w.svc.Message(ctx, w.project.ID, j.ID, "more"); !errors.Is(err, model.ErrJobArchived) {
		t.Fatalf("message on archived: err = %v, want ErrJobArchived", err)
	}
	if _, err := w.svc.Archive(ctx, w.project.ID, j.ID); !errors.Is(err, model.ErrJobArchived) {
		t.Fatalf("archive twice: err = %v, want ErrJobArchived", err)
	}
	if _, err := w.svc.Cancel(ctx, w.project.ID, j.ID); !errors.Is(err, model.ErrJobArchived) {
		t.Fatalf("cancel archived: err = %v, want ErrJobArchived", err)
	}
}

func TestCancelStopsRunPromptlyAndDropsQueuedFollowUps(t *testing.T) {
	w := newWorld(t, jobs.Config{})
	w.startWorker()
	ctx := context.Background()
	j := w.create("long task")
	w.runner.waitRun(t)
	stopped := make(chan time.Time, 1)
	w.runner.then(func(ctx context.Context, run agent.Run, record agent.Recorder) (agent.Result, error) {
		<-ctx.Done()
		stopped <- time.Now()
		return agent.Result{}, ctx.Err()
	})
	if _, err := w.svc.Message(ctx, w.project.ID, j.ID, "queued"); err != nil {
		t.Fatal(err)
	}
	asked := time.Now()
	c, err := w.svc.Cancel(ctx, w.project.ID, j.ID)
	if err != nil || c.Status != model.JobFailed || c.ErrorCode != jobs.CodeCanceled {
		t.Fatalf("cancel = %+v, %v; want failed/canceled", c, err)
	}
	select {
	case at := <-stopped:
		if d := at.Sub(asked); d > 2*time.Second {
			t.Fatalf("the run stopped %s after cancel, want promptly", d)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the run's context was not cancelled")
	}
	if j := w.get(j.ID); j.Status != model.JobFailed || j.ErrorCode != jobs.CodeCanceled {
		t.Fatalf("after the run stopped: %s/%s, want failed/canceled", j.Status, j.ErrorCode)
	}
	ms, _ := w.svc.Messages(ctx, w.project.ID, j.ID)
	if len(ms) != 2 || ms[1].Content != "queued" || !ms[1].Dropped {
		t.Fatalf("messages = %+v, want the queued follow-up dropped", ms)
	}
	if _, err := w.svc.Cancel(ctx, w.project.ID, j.ID); !errors.Is(err, model.ErrJobNotActive) {
		t.Fatalf("cancel of failed job: err = %v, want ErrJobNotActive", err)
	}
	// The dropped follow-up is not history for the next turn.
	if _, err := w.svc.Message(ctx, w.project.ID, j.ID, "again"); err != nil {
		t.Fatal(err)
	}
	run := w.runner.waitRun(t)
	if got, want := contents(run.History), []string{"user:long task", "user:again"}; !slices.Equal(got, want) {
		t.Fatalf("history = %q, want %q", got, want)
	}
	w.runner.then(reply("ok", ""))
	w.waitStatus(j.ID, model.JobCompleted)
}

// A run that does not stop at its deadline is ended WrapUp after it.
func TestTimeLimitFailsWithTimeout(t *testing.T) {
	w := newWorld(t, jobs.Config{JobTimeout: 300 * time.Millisecond, WrapUp: 200 * time.Millisecond})
	w.startWorker()
	j := w.create("slow")
	w.runner.waitRun(t)
	w.runner.then(block)
	failed := w.waitStatus(j.ID, model.JobFailed)
	if failed.ErrorCode != jobs.CodeTimeout || !strings.Contains(failed.ErrorMessage, "300ms") {
		t.Fatalf("error = %q %q, want timeout naming the limit", failed.ErrorCode, failed.ErrorMessage)
	}
}

// The runner is told when the time limit runs out, and its context lasts
// past it so that it can keep its work: what it then returns finishes the
// job as any run does. A cancel in that time still stops it.
func TestTimeLimitLeavesTimeToKeepTheWork(t *testing.T) {
	w := newWorld(t, jobs.Config{JobTimeout: 300 * time.Millisecond, WrapUp: 5 * time.Second})
	w.startWorker()
	ctx := context.Background()
	j := w.create("slow")
	run := w.runner.waitRun(t)
	if run.TimeLimit != 300*time.Millisecond || time.Until(run.Deadline) > 300*time.Millisecond || time.Until(run.Deadline) < -time.Second {
		t.Fatalf("run deadline %s from now, time limit %s; want 300ms", time.Until(run.Deadline), run.TimeLimit)
	}
	w.runner.then(func(ctx context.Context, run agent.Run, record agent.Recorder) (agent.Result, error) {
		select {
		case <-time.After(time.Until(run.Deadline) + 200*time.Millisecond):
		case <-ctx.Done():
			return agent.Result{}, fmt.Errorf("the run's context ended before its wrap-up: %w", ctx.Err())
		}
		return agent.Result{PRLink: "https://github.com/acme/docs/pull/7", Changed: true, Summary: "stopped at the time limit"}, nil
	})
	done := w.waitStatus(j.ID, model.JobCompleted)
	if done.PRLink != "https://github.com/acme/docs/pull/7" || done.Summary == nil || *done.Summary != "stopped at the time limit" {
		t.Fatalf("job = %+v, want completed with the run's pull request and summary", done)
	}

	// A follow-up whose wrap-up is cancelled stops at once, as any run.
	if _, err := w.svc.Message(ctx, w.project.ID, j.ID, "more"); err != nil {
		t.Fatal(err)
	}
	w.runner.waitRun(t)
	stopped := make(chan error, 1)
	w.runner.then(func(ctx context.Context, run agent.Run, record agent.Recorder) (agent.Result, error) {
		time.Sleep(time.Until(run.Deadline))
		<-ctx.Done()
		stopped <- ctx.Err()
		return agent.Result{}, ctx.Err()
	})
	time.Sleep(500 * time.Millisecond) // past the deadline, within the wrap-up
	if c, err := w.svc.Cancel(ctx, w.project.ID, j.ID); err != nil || c.ErrorCode != jobs.CodeCanceled {
		t.Fatalf("cancel = %+v, %v", c, err)
	}
	select {
	case <-stopped:
	case <-time.After(3 * time.Second):
		t.Fatal("a cancel during the wrap-up did not stop the run")
	}
	if j := w.get(j.ID); j.Status != model.JobFailed || j.ErrorCode != jobs.CodeCanceled {
		t.Fatalf("after the cancel: %s/%s, want failed/canceled", j.Status, j.ErrorCode)
	}
}

// Runs are driven by hand here (no worker), so retries need no waiting.
func TestTransientErrorRetriesFromCleanHistory(t *testing.T) {
	w := newWorld(t, jobs.Config{MaxAttempts: 2})
	ctx := context.Background()
	j := w.create("edit")
	p := tasks.AgentRun{JobID: j.ID, Turn: 1}

	w.runner.then(failWith("half done", errors.New("connection reset")))
	if err := w.svc.RunJob(ctx, p); err == nil {
		t.Fatal("RunJob after a transient error = nil, want an error so Asynq retries")
	}
	<-w.runner.started
	if j := w.get(j.ID); j.Status != model.JobActive || j.LeaseOwner != "" {
		t.Fatalf("after a transient error: %+v, want active and unclaimed", j)
	}
	w.runner.then(reply("all done", ""))
	if err := w.svc.RunJob(ctx, p); err != nil {
		t.Fatal(err)
	}
	run := <-w.runner.started
	if got, want := contents(run.History), []string{"user:edit"}; !slices.Equal(got, want) {
		t.Fatalf("retry history = %q, want %q (no failed attempt)", got, want)
	}
	w.waitStatus(j.ID, model.JobCompleted)
	ms, _ := w.svc.Messages(ctx, w.project.ID, j.ID)
	if len(ms) != 3 || ms[1].Content != "half done" || !ms[1].Discarded || ms[2].Content != "all done" || ms[2].Discarded {
		t.Fatalf("messages = %+v, want the failed attempt kept and marked discarded", ms)
	}
}

func TestTransientErrorsFailTheJobAfterMaxAttempts(t *testing.T) {
	w := newWorld(t, jobs.Config{MaxAttempts: 2})
	ctx := context.Background()
	j := w.create("edit")
	p := tasks.AgentRun{JobID: j.ID, Turn: 1}
	for range 2 {
		w.runner.then(failWith("", &agent.Error{Code: "model_error", Message: "The model is overloaded."}))
	}
	if err := w.svc.RunJob(ctx, p); err == nil {
		t.Fatal("first transient failure: want an error (retry)")
	}
	if run := <-w.runner.started; run.LastAttempt {
		t.Fatal("the first of 2 attempts was told it is the last")
	}
	if err := w.svc.RunJob(ctx, p); err != nil {
		t.Fatalf("last attempt: err = %v, want nil (the job failed for good)", err)
	}
	// The last attempt knows it, so its agent can keep its work (a draft).
	if run := <-w.runner.started; !run.LastAttempt {
		t.Fatal("the second of 2 attempts was not told it is the last")
	}
	failed := w.get(j.ID)
	if failed.Status != model.JobFailed || failed.ErrorCode != "model_error" {
		t.Fatalf("job = %s/%s, want failed/model_error", failed.Status, failed.ErrorCode)
	}
}

func TestAtMostOneRunAtATime(t *testing.T) {
	w := newWorld(t, jobs.Config{})
	ctx := context.Background()
	j := w.create("edit")
	p := tasks.AgentRun{JobID: j.ID, Turn: 1}
	first := make(chan error, 1)
	go func() { first <- w.svc.RunJob(ctx, p) }()
	<-w.runner.started // the first run holds the job

	// The same task delivered twice, on any number of workers, does nothing.
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := w.svc.RunJob(ctx, p); err != nil {
				t.Errorf("duplicate RunJob: %v", err)
			}
		}()
	}
	wg.Wait()
	select {
	case r := <-w.runner.started:
		t.Fatalf("a second run started while the first held the job: %+v", r)
	default:
	}
	w.runner.then(reply("done", ""))
	if err := <-first; err != nil {
		t.Fatal(err)
	}
	// And once done, a stale copy of the task does nothing either.
	if err := w.svc.RunJob(ctx, p); err != nil {
		t.Fatal(err)
	}
	select {
	case r := <-w.runner.started:
		t.Fatalf("a stale task ran the job again: %+v", r)
	default:
	}
	if got := w.get(j.ID); got.Status != model.JobCompleted || got.Attempts != 1 {
		t.Fatalf("job = %s after %d attempts, want completed after 1", got.Status, got.Attempts)
	}
}

func TestSweepReenqueuesAJobAsynqLost(t *testing.T) {
	w := newWorld(t, jobs.Config{RecoveryGrace: time.Millisecond})
	ctx := context.Background()
	j := w.create("edit")
	// Lose the task, as a crash between commit and enqueue would.
	inspector := asynq.NewInspectorFromRedisClient(w.rdb)
	if err := inspector.DeleteTask(tasks.QueueAgent, tasks.AgentRun{JobID: j.ID, Turn: 1}.TaskID()); err != nil {
		t.Fatal(err)
	}
	time.Sleep(5 * time.Millisecond)
	if err := w.svc.Sweep(ctx); err != nil {
		t.Fatal(err)
	}
	if got := w.get(j.ID); got.Recovery != 1 {
		t.Fatalf("recovery = %d, want 1", got.Recovery)
	}
	// A second sweep sees the new task waiting and leaves it alone.
	if err := w.svc.Sweep(ctx); err != nil {
		t.Fatal(err)
	}
	if got := w.get(j.ID); got.Recovery != 1 {
		t.Fatalf("recovery after a second sweep = %d, want still 1", got.Recovery)
	}
	w.startWorker()
	w.runner.waitRun(t)
	w.runner.then(reply("done", ""))
	w.waitStatus(j.ID, model.JobCompleted)
}

func TestSweepLeavesRunningJobsAlone(t *testing.T) {
	w := newWorld(t, jobs.Config{RecoveryGrace: time.Millisecond})
	w.startWorker()
	j := w.create("edit")
	w.runner.waitRun(t)
	time.Sleep(5 * time.Millisecond)
	if err := w.svc.Sweep(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := w.get(j.ID); got.Recovery != 0 || got.Status != model.JobActive {
		t.Fatalf("job = %+v, want untouched", got)
	}
	w.runner.then(reply("done", ""))
	w.waitStatus(j.ID, model.JobCompleted)
}

func TestPromptLength(t *testing.T) {
	w := newWorld(t, jobs.Config{})
	ctx := context.Background()
	var refused model.FieldErrors
	for _, p := range []string{"", strings.Repeat("é", jobs.MaxPromptLength+1)} {
		if _, err := w.svc.Create(ctx, w.project.ID, p, ""); !errors.As(err, &refused) || refused.Of("prompt") == "" {
			t.Fatalf("create with a %d-character prompt: err = %v, want FieldErrors naming prompt", len([]rune(p)), err)
		}
	}
	if _, err := w.svc.Create(ctx, w.project.ID, strings.Repeat("é", jobs.MaxPromptLength), ""); err != nil {
		t.Fatalf("create with a 32,000-character prompt: %v", err)
	}
}
