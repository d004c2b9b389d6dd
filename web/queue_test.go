package main

import (
	"maps"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/folio-docs/folio/internal/testenv"
)

// TestQueueShowsAndRetriesADeadTask kills the worker in the middle of a run
// whose retries are spent (FOLIO_AGENT_RUN_RETRIES=0), so Asynq archives
// the task once its lease is gone; folio queue shows it, folio queue
// archived names its job and error, and folio queue retry runs it again.
func TestQueueShowsAndRetriesADeadTask(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("waits a minute for Asynq's lease on the killed run to expire")
	}
	// The first model call hangs until the worker making it is killed.
	gate := make(chan struct{})
	var once sync.Once
	model := testenv.NewModelServer(t, func(m []testenv.ChatMessage) testenv.ModelReply {
		first := false
		once.Do(func() { first = true })
		if first {
			select {
			case <-gate:
			case <-time.After(2 * time.Minute):
			}
		}
		return testenv.NotesWriter(m)
	})
	t.Cleanup(func() { closeOnce(gate) })
	te := newTestEnv(t)
	maps.Copy(te, testEnv{
		"FOLIO_MODEL_PROVIDER": "openai", "FOLIO_OPENAI_BASE_URL": model.URL, "FOLIO_OPENAI_API_KEY": model.APIKey,
		"FOLIO_MODEL": "test-model", "FOLIO_WORKER": "false", "FOLIO_AGENT_RUN_RETRIES": "0", "FOLIO_LOCAL_REPOS": t.TempDir(),
	})
	pid := te.must(t, "", "project", "create", "--name", "Docs", "--repo", newDocsRepo(t))
	key := te.must(t, "", "key", "create", "--project", pid)
	w := &metricsWorld{te: te, pid: pid, key: key}
	w.base, _ = startServe(t, te)
	wte := maps.Clone(te)
	delete(wte, "FOLIO_ADDR")
	worker := startFolio(t, wte, "worker")

	created := w.call(t, "POST", "/v2/agent/{p}/job", `{"prompt":"Explain key rotation."}`, 201)
	jobID := between(created, `"id":"`, `"`)
	waitFor(t, 30*time.Second, "the worker to call the model", func() bool { return model.Calls() >= 1 })
	if got := queueRow(t, te, "agent"); got[1] != "0" || got[2] != "1" {
		t.Fatalf("folio queue, agent row %v: want 0 pending and 1 active during the run", got)
	}
	worker.kill(t)
	closeOnce(gate)
	killed := time.Now()

	// Asynq takes a task back 30 s after its lease ran out (another 30 s
	// at most): then a worker's recoverer archives it, its retries spent.
	time.Sleep(time.Until(killed.Add(61 * time.Second)))
	startFolio(t, wte, "worker")
	var line []string
	waitFor(t, 90*time.Second, "folio queue archived to list the run", func() bool {
		_, out, _ := te.folio(t, "", "queue", "archived")
		for _, l := range strings.Split(out, "\n") {
			if strings.Contains(l, jobID) {
				line = strings.Fields(l)
				return true
			}
		}
		return false
	})
	// TASK ID, QUEUE, TYPE, JOB ID, RETRIED, FAILED AT, LAST ERROR...
	if len(line) < 7 || !strings.HasPrefix(line[0], "run:"+jobID) || line[1] != "agent" || line[2] != "agent:run" || line[3] != jobID ||
		!strings.Contains(strings.Join(line[6:], " "), "lease expired") {
		t.Fatalf("folio queue archived line %q: want the run's task, queue, type, job and Asynq's error", line)
	}
	taskID := line[0]
	if got := queueRow(t, te, "agent"); got[5] != "1" {
		t.Fatalf("folio queue, agent row %v: want 1 archived", got)
	}
	// The job itself is not stuck: the sweep gave its turn to a new run.
	waitFor(t, 60*time.Second, "the job to complete", func() bool {
		return strings.Contains(w.call(t, "GET", "/v2/agent/{p}/job/"+jobID, "", 200), `"status":"completed"`)
	})

	out := te.must(t, "", "queue", "retry", taskID)
	if !strings.Contains(out, taskID) || !strings.Contains(out, "job "+jobID) || !strings.Contains(out, "moved from archived to pending") {
		t.Fatalf("folio queue retry printed %q", out)
	}
	waitFor(t, 30*time.Second, "the retried task to run", func() bool {
		got := queueRow(t, te, "agent")
		return got[1] == "0" && got[2] == "0" && got[5] == "0"
	})
	// The job had moved on: the old run did nothing to it.
	if j := w.call(t, "GET", "/v2/agent/{p}/job/"+jobID, "", 200); !strings.Contains(j, `"status":"completed"`) {
		t.Fatalf("after the retry the job reads %s", j)
	}
	if code, _, errs := te.folio(t, "", "queue", "retry", taskID); code != 1 || !strings.Contains(errs, taskID) {
		t.Fatalf("retrying it again: exit %d, %q; want 1 naming the task", code, errs)
	}
	if code, _, errs := te.folio(t, "", "queue", "retry", "no-such-task"); code != 1 || !strings.Contains(errs, "no queue holds") {
		t.Fatalf("retrying an unknown task: exit %d, %q", code, errs)
	}
	if code, _, _ := te.folio(t, "", "queue", "bogus"); code != 2 {
		t.Fatalf("folio queue bogus: exit %d, want 2", code)
	}
}

// queueRow is the fields of one queue's line in folio queue's output:
// name, pending, active, scheduled, retry, archived, completed.
func queueRow(t *testing.T, te testEnv, queue string) []string {
	t.Helper()
	out := te.must(t, "", "queue")
	lines := strings.Split(out, "\n")
	if h := strings.Fields(lines[0]); strings.Join(h, " ") != "QUEUE PENDING ACTIVE SCHEDULED RETRY ARCHIVED COMPLETED" {
		t.Fatalf("folio queue header %q", lines[0])
	}
	for _, l := range lines[1:] {
		if f := strings.Fields(l); len(f) == 7 && f[0] == queue {
			return f
		}
	}
	t.Fatalf("folio queue has no %s row:\n%s", queue, out)
	return nil
}
