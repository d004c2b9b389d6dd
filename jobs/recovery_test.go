package jobs_test

import (
	"context"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/folio-docs/folio/agent"
	"github.com/folio-docs/folio/db"
	"github.com/folio-docs/folio/jobs"
	"github.com/folio-docs/folio/model"
	"github.com/folio-docs/folio/tasks"
)

const helperEnv = "FOLIO_TEST_WORKER"

// TestHelperProcess is not a test: it is a worker subprocess (see
// startWorkerProcess), whose agent says one thing and then works until the
// process is killed or the run cancelled.
func TestHelperProcess(t *testing.T) {
	if os.Getenv(helperEnv) == "" {
		return
	}
	ctx := context.Background()
	d, err := db.Open(ctx, os.Getenv("FOLIO_TEST_DB"))
	if err != nil {
		t.Fatal(err)
	}
	rdb := redis.NewClient(&redis.Options{Addr: os.Getenv("FOLIO_TEST_REDIS")})
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	// Its webhooks, to the tests' receivers on loopback, are retried fast.
	cfg := jobs.Config{Lease: 300 * time.Millisecond, AllowPrivateWebhooks: true, WebhookRetryBase: 2 * time.Millisecond, WebhookRetryMax: 20 * time.Millisecond}
	svc := jobs.New(d, rdb, tasks.NewQueue(rdb), foreverRunner{}, log, cfg)
	srv := tasks.NewWorker(rdb, log, 2)
	if err := srv.Start(tasks.NewServeMux(svc, svc)); err != nil {
		t.Fatal(err)
	}
	select {}
}

type foreverRunner struct{}

func (foreverRunner) Run(ctx context.Context, run agent.Run, record agent.Recorder) (agent.Result, error) {
	if err := record(ctx, agent.Message{Role: agent.RoleAssistant, Content: "working on it"}); err != nil {
		return agent.Result{}, err
	}
	<-ctx.Done()
	return agent.Result{}, ctx.Err()
}

// startWorkerProcess starts a worker of w's database and Redis in a
// process of its own (TestHelperProcess), killed when the test ends.
func startWorkerProcess(t *testing.T, w *world) *exec.Cmd {
	t.Helper()
	child := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$")
	child.Env = append(os.Environ(), helperEnv+"=1", "FOLIO_TEST_REDIS="+testRedis.Addr, "FOLIO_TEST_DB="+w.db.Path())
	child.Stderr = os.Stderr
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { child.Process.Kill(); child.Wait() })
	return child
}

func TestKilledWorkerJobIsRecovered(t *testing.T) {
	w := newWorld(t, jobs.Config{Lease: 300 * time.Millisecond})
	ctx := context.Background()
	j := w.create("edit the docs")

	child := startWorkerProcess(t, w)

	// Wait for the child's agent to be mid-run: the job claimed, a message said.
	deadline := time.Now().Add(15 * time.Second)
	for {
		ms, err := w.svc.Messages(ctx, w.project.ID, j.ID)
		if err != nil {
			t.Fatal(err)
		}
		if len(ms) == 2 && w.get(j.ID).LeaseOwner != "" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the worker subprocess did not start the run")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := child.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	child.Wait()
	if got := w.get(j.ID); got.Status != model.JobActive {
		t.Fatalf("right after the kill: %s, want still active", got.Status)
	}

	// Another worker, with its sweep, takes over.
	w.startWorker()
	sweepCtx, stop := context.WithCancel(ctx)
	t.Cleanup(stop)
	go tasks.RunSweep(sweepCtx, w.log, 100*time.Millisecond, w.svc.Sweep)
	run := w.runner.waitRun(t)
	if got := contents(run.History); len(got) != 1 || got[0] != "user:edit the docs" {
		t.Fatalf("recovered run history = %q, want only the prompt (a clean restart)", got)
	}
	w.runner.then(reply("done", ""))
	done := w.waitStatus(j.ID, model.JobCompleted)
	if done.Attempts != 2 || done.Recovery != 1 {
		t.Fatalf("attempts %d recovery %d, want 2 and 1", done.Attempts, done.Recovery)
	}
	ms, _ := w.svc.Messages(ctx, w.project.ID, j.ID)
	if len(ms) != 3 || ms[1].Content != "working on it" || !ms[1].Discarded || ms[2].Content != "done" {
		t.Fatalf("messages = %+v, want the killed attempt's message kept as discarded", ms)
	}
}

func TestJobKilledTooOftenFails(t *testing.T) {
	w := newWorld(t, jobs.Config{Lease: 50 * time.Millisecond, MaxAttempts: 1})
	ctx := context.Background()
	j := w.create("edit")
	// An attempt claims the job and dies without a trace.
	if _, ok, err := w.db.ClaimJobRun(ctx, j.ID, 1, 0, "dead-attempt", time.Now().Add(50*time.Millisecond)); err != nil || !ok {
		t.Fatalf("claim: %v %v", ok, err)
	}
	time.Sleep(60 * time.Millisecond)
	if err := w.svc.Sweep(ctx); err != nil {
		t.Fatal(err)
	}
	if got := w.get(j.ID); got.Status != model.JobFailed || got.ErrorCode != jobs.CodeRetriesExhausted {
		t.Fatalf("job = %s/%s, want failed/%s", got.Status, got.ErrorCode, jobs.CodeRetriesExhausted)
	}
}
