package jobs_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/folio-docs/folio/agent"
	"github.com/folio-docs/folio/codehost/hosts"
	"github.com/folio-docs/folio/db"
	"github.com/folio-docs/folio/internal/testenv"
	"github.com/folio-docs/folio/jobs"
	"github.com/folio-docs/folio/model"
	"github.com/folio-docs/folio/tasks"
)

var testRedis *testenv.Redis

func TestMain(m *testing.M) {
	if os.Getenv(helperEnv) != "" {
		// A worker subprocess (TestHelperProcess) uses the parent's Redis.
		os.Exit(m.Run())
	}
	r, err := testenv.StartRedis()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	testRedis = r
	code := m.Run()
	r.Stop()
	os.Exit(code)
}

// world is one test's Folio: a SQLite file, a flushed Redis, a project and
// a jobs service whose agent is a script the test drives.
type world struct {
	t       *testing.T
	db      *db.DB
	rdb     *redis.Client
	queue   *tasks.Queue
	svc     *jobs.Service
	runner  *scriptRunner
	project model.Project
	log     *slog.Logger
}

func newWorld(t *testing.T, cfg jobs.Config) *world {
	t.Helper()
	testRedis.Flush(t)
	w := &world{t: t, db: testenv.NewDB(t), rdb: testRedis.Client(t), runner: newScriptRunner(), log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	w.queue = tasks.NewQueue(w.rdb)
	t.Cleanup(func() { w.queue.Close() })
	var err error
	w.project, err = w.db.CreateProject(context.Background(), model.Project{Name: "docs", Repository: "acme/docs", Ref: "main"})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Hosts == nil {
		cfg.Hosts = hosts.Config{} // as the composition root's, with no GitHub token
	}
	cfg.DefaultModel = "test-model"
	cfg.AllowPrivateWebhooks = true // the tests' receivers are on loopback
	w.svc = jobs.New(w.db, w.rdb, w.queue, w.runner, w.log, cfg)
	return w
}

// startWorker runs an Asynq worker for this world until the test ends.
func (w *world) startWorker() {
	w.t.Helper()
	srv := tasks.NewWorker(w.rdb, w.log, 4)
	if err := srv.Start(tasks.NewServeMux(w.svc, w.svc)); err != nil {
		w.t.Fatal(err)
	}
	w.t.Cleanup(srv.Shutdown)
}

func (w *world) create(prompt string) model.Job {
	w.t.Helper()
	c, err := w.svc.Create(context.Background(), w.project.ID, prompt, "")
	if err != nil {
		w.t.Fatalf("create: %v", err)
	}
	return c.Job
}

func (w *world) get(id string) model.Job {
	w.t.Helper()
	j, err := w.svc.Get(context.Background(), w.project.ID, id)
	if err != nil {
		w.t.Fatalf("get %s: %v", id, err)
	}
	return j
}

// waitStatus polls the job until it has status, or fails the test.
func (w *world) waitStatus(id string, status model.JobStatus) model.Job {
	w.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		j := w.get(id)
		if j.Status == status {
			return j
		}
		if time.Now().After(deadline) {
			w.t.Fatalf("job %s: status %q, want %q (error %s: %s)", id, j.Status, status, j.ErrorCode, j.ErrorMessage)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// step is what the scripted agent does on one run.
type step func(ctx context.Context, run agent.Run, record agent.Recorder) (agent.Result, error)

// scriptRunner is the agent seam: each Run takes the next step the test
// gave (waiting for one if none is there) and reports the run it got.
type scriptRunner struct {
	steps   chan step
	started chan agent.Run
}

func newScriptRunner() *scriptRunner {
	return &scriptRunner{steps: make(chan step, 16), started: make(chan agent.Run, 16)}
}

func (s *scriptRunner) Run(ctx context.Context, run agent.Run, record agent.Recorder) (agent.Result, error) {
	s.started <- run
	select {
	case f := <-s.steps:
		return f(ctx, run, record)
	case <-ctx.Done():
		return agent.Result{}, ctx.Err()
	}
}

// then queues a step.
func (s *scriptRunner) then(f step) { s.steps <- f }

// waitRun returns the next run the agent was given.
func (s *scriptRunner) waitRun(t *testing.T) agent.Run {
	t.Helper()
	select {
	case r := <-s.started:
		return r
	case <-time.After(10 * time.Second):
		t.Fatal("the agent was not run")
		return agent.Run{}
	}
}

// reply answers with text and, if prLink is set, a pull request.
func reply(text, prLink string) step {
	return func(ctx context.Context, run agent.Run, record agent.Recorder) (agent.Result, error) {
		if err := record(ctx, agent.Message{Role: agent.RoleAssistant, Content: text}); err != nil {
			return agent.Result{}, err
		}
		return agent.Result{PRLink: prLink, Changed: prLink != ""}, nil
	}
}

// failWith says text, then fails with err.
func failWith(text string, err error) step {
	return func(ctx context.Context, run agent.Run, record agent.Recorder) (agent.Result, error) {
		if err := record(ctx, agent.Message{Role: agent.RoleAssistant, Content: text}); err != nil {
			return agent.Result{}, err
		}
		return agent.Result{}, err
	}
}

// block waits for the run's context to end, as a long run would.
func block(ctx context.Context, run agent.Run, record agent.Recorder) (agent.Result, error) {
	<-ctx.Done()
	return agent.Result{}, ctx.Err()
}

// contents lists the roles and contents of messages, for comparing.
func contents(ms []agent.Message) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.Role + ":" + m.Content
	}
	return out
}
