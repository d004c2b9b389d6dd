package jobs_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/hibiken/asynq"

	"github.com/folio-docs/folio/jobs"
	"github.com/folio-docs/folio/model"
	"github.com/folio-docs/folio/tasks"
)

// hookRequest is one delivery a receiver got, and how it answered.
type hookRequest struct {
	event
	Code int
}

// hookLog is a webhook receiver on a real socket: it checks each
// delivery's signature, answers as answer says (given the event and how
// many times it has now come), records every request, and counts requests
// about one job that overlap in time.
type hookLog struct {
	*httptest.Server
	secret   string
	answer   func(e event, n int) int
	mu       sync.Mutex
	reqs     []hookRequest
	tries    map[int]map[string]int // by sequence and job
	inFlight map[string]int
	overlaps int
}

func newHookLog(t *testing.T, secret string, answer func(e event, n int) int) *hookLog {
	h := &hookLog{secret: secret, answer: answer, tries: map[int]map[string]int{}, inFlight: map[string]int{}}
	h.Server = httptest.NewServer(http.HandlerFunc(h.serve))
	t.Cleanup(h.Close)
	return h
}

func (h *hookLog) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var e event
	if !verify(h.secret, r.Header.Get(jobs.SignatureHeader), body) || json.Unmarshal(body, &e) != nil {
		w.WriteHeader(http.StatusUnauthorized)
		return
	}
	h.mu.Lock()
	if h.inFlight[e.Job.ID]++; h.inFlight[e.Job.ID] > 1 {
		h.overlaps++
	}
	if h.tries[e.Sequence] == nil {
		h.tries[e.Sequence] = map[string]int{}
	}
	h.tries[e.Sequence][e.Job.ID]++
	code := h.answer(e, h.tries[e.Sequence][e.Job.ID])
	h.reqs = append(h.reqs, hookRequest{e, code})
	h.mu.Unlock()
	w.WriteHeader(code)
	h.mu.Lock()
	h.inFlight[e.Job.ID]--
	h.mu.Unlock()
}

// of returns the requests about one job, in the order they came.
func (h *hookLog) of(jobID string) []hookRequest {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []hookRequest
	for _, r := range h.reqs {
		if r.Job.ID == jobID {
			out = append(out, r)
		}
	}
	return out
}

// checkInOrder checks what a job's receiver got against the contract:
// events come in order of sequence, a later one only once the one before
// was answered 2xx (or given up, where givenUp says so); an event keeps its
// id on every retry, and no two events share one.
func checkInOrder(t *testing.T, reqs []hookRequest, statuses []model.JobStatus, givenUp map[int]bool) {
	t.Helper()
	idOf, seqOf := map[int]string{}, map[string]int{}
	seq, prevOK := 1, false
	for i, r := range reqs {
		switch {
		case r.Sequence == seq && !prevOK: // a first try, or a retry
		case r.Sequence == seq+1 && i > 0 && (prevOK || givenUp[seq]):
			seq++
		default:
			t.Fatalf("request %d carries event %d, after event %d answered %v: want each event until it is delivered, then the next", i, r.Sequence, seq, prevOK)
		}
		prevOK = r.Code/100 == 2
		if r.ID == "" || idOf[r.Sequence] != "" && idOf[r.Sequence] != r.ID || seqOf[r.ID] != 0 && seqOf[r.ID] != r.Sequence {
			t.Fatalf("event %d came with id %q; it came before with %q, and that id was event %d's", r.Sequence, r.ID, idOf[r.Sequence], seqOf[r.ID])
		}
		idOf[r.Sequence], seqOf[r.ID] = r.ID, r.Sequence
		if r.Job.Status != statuses[r.Sequence-1] {
			t.Fatalf("event %d shows the job %s, want %s", r.Sequence, r.Job.Status, statuses[r.Sequence-1])
		}
	}
	if seq != len(statuses) || !prevOK && !givenUp[seq] {
		t.Fatalf("the last request carried event %d (delivered: %v), want event %d delivered", seq, prevOK, len(statuses))
	}
}

// waitEventsDone waits until all n webhook events of the job are delivered
// or given up.
func (w *world) waitEventsDone(jobID string, n int) []model.WebhookEvent {
	w.t.Helper()
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		events, err := w.db.WebhookEvents(context.Background(), jobID)
		if err != nil {
			w.t.Fatal(err)
		}
		done := 0
		for _, e := range events {
			if e.State != model.WebhookPending {
				done++
			}
		}
		if len(events) == n && done == n {
			return events
		}
		if time.Now().After(deadline) {
			w.t.Fatalf("job %s: %d events, %d done; want %d done", jobID, len(events), done, n)
		}
	}
}

// waitWorkers waits until n Asynq workers are up on w's Redis.
func (w *world) waitWorkers(n int) {
	w.t.Helper()
	in := asynq.NewInspectorFromRedisClient(w.rdb)
	for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if servers, err := in.Servers(); err == nil && len(servers) >= n {
			return
		}
		if time.Now().After(deadline) {
			w.t.Fatalf("fewer than %d workers came up", n)
		}
	}
}

func (w *world) setWebhook(url, secret string) {
	w.t.Helper()
	w.project.WebhookURL, w.project.WebhookSecret = url, secret
	if _, err := w.db.UpdateProject(context.Background(), w.project); err != nil {
		w.t.Fatal(err)
	}
}

// Workers in three processes deliver the events of several jobs, each
// status change failing its first tries: every job's events still reach
// the receiver one at a time, in order, with stable ids.
func TestWebhookEventsGoOutInOrderFromManyProcesses(t *testing.T) {
	w := newWorld(t, jobs.Config{WebhookRetryBase: 2 * time.Millisecond, WebhookRetryMax: 20 * time.Millisecond})
	ctx := context.Background()
	// Odd events fail twice, even ones once: each later event is ready
	// while the one before it is being retried.
	hook := newHookLog(t, "whsec", func(e event, n int) int {
		if n <= 1+e.Sequence%2 {
			return http.StatusInternalServerError
		}
		return http.StatusNoContent
	})
	w.setWebhook(hook.URL, "whsec")
	startWorkerProcess(t, w)
	startWorkerProcess(t, w)
	w.startWorker()
	w.waitWorkers(3)

	statuses := []model.JobStatus{model.JobActive, model.JobFailed, model.JobActive, model.JobFailed, model.JobActive, model.JobArchived}
	var ids []string
	for range 3 {
		j := w.create("edit")
		ids = append(ids, j.ID)
		for _, change := range []func() error{
			func() error { _, err := w.svc.Cancel(ctx, w.project.ID, j.ID); return err },
			func() error { _, err := w.svc.Message(ctx, w.project.ID, j.ID, "again"); return err },
			func() error { _, err := w.svc.Cancel(ctx, w.project.ID, j.ID); return err },
			func() error { _, err := w.svc.Message(ctx, w.project.ID, j.ID, "again"); return err },
			func() error { _, err := w.svc.Archive(ctx, w.project.ID, j.ID); return err },
		} {
			if err := change(); err != nil {
				t.Fatal(err)
			}
		}
	}
	attempts := 0
	for _, id := range ids {
		events := w.waitEventsDone(id, len(statuses))
		for _, e := range events {
			if e.State != model.WebhookDelivered {
				t.Fatalf("event %d of job %s is %s, want delivered", e.Sequence, id, e.State)
			}
			attempts += e.Attempts
		}
		checkInOrder(t, hook.of(id), statuses, nil)
	}
	if hook.overlaps != 0 {
		t.Fatalf("%d requests overlapped another about the same job", hook.overlaps)
	}
	ds, err := w.db.WebhookDeliveries(ctx, w.project.ID, 1000)
	if err != nil || len(ds) != attempts || len(hook.reqs) != attempts {
		t.Fatalf("%d attempts logged (%v), %d received, %d counted on the events: want all the same", len(ds), err, len(hook.reqs), attempts)
	}
}

// An event that fails for its whole retry period is given up, and only
// then does the job's next event go.
func TestGivenUpWebhookEventLetsTheNextGo(t *testing.T) {
	w := newWorld(t, jobs.Config{WebhookRetryBase: time.Millisecond, WebhookRetryMax: 5 * time.Millisecond, WebhookRetryFor: 100 * time.Millisecond})
	ctx := context.Background()
	hook := newHookLog(t, "s", func(e event, n int) int {
		if e.Sequence == 1 {
			return http.StatusBadGateway
		}
		return http.StatusOK
	})
	w.setWebhook(hook.URL, "s")
	w.startWorker()
	j := w.create("edit")
	if _, err := w.svc.Archive(ctx, w.project.ID, j.ID); err != nil {
		t.Fatal(err)
	}
	events := w.waitEventsDone(j.ID, 2)
	if events[0].State != model.WebhookAbandoned || events[0].Attempts < 2 || events[1].State != model.WebhookDelivered || events[1].Attempts != 1 {
		t.Fatalf("events = %+v, want the first given up after retries, the second delivered at once", events)
	}
	checkInOrder(t, hook.of(j.ID), []model.JobStatus{model.JobActive, model.JobArchived}, map[int]bool{1: true})
}

// A delivery that dies holding an event, its task gone with it, leaves the
// event to the sweep: once the lease has run out another worker sends it.
func TestSweepDeliversAnEventWhoseDeliveryDied(t *testing.T) {
	w := newWorld(t, jobs.Config{RecoveryGrace: time.Millisecond})
	ctx := context.Background()
	hook := newHookLog(t, "s", func(event, int) int { return http.StatusOK })
	w.setWebhook(hook.URL, "s")
	j := w.create("edit")
	dead, ok, err := w.db.ClaimWebhookEvent(ctx, j.ID, "dead-delivery", time.Now())
	if err != nil || !ok {
		t.Fatalf("claim: %v %v", ok, err)
	}
	testRedis.Flush(t) // its task is lost too

	srv := tasks.NewWorker(w.rdb, w.log, 2, tasks.QueueWebhooks)
	if err := srv.Start(tasks.NewServeMux(nil, w.svc)); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Shutdown)
	for deadline := time.Now().Add(10 * time.Second); len(hook.of(j.ID)) == 0; time.Sleep(10 * time.Millisecond) {
		if err := w.svc.Sweep(ctx); err != nil {
			t.Fatal(err)
		}
		if time.Now().After(deadline) {
			t.Fatal("the sweep did not have the event delivered")
		}
	}
	events := w.waitEventsDone(j.ID, 1)
	if got := hook.of(j.ID); len(got) != 1 || got[0].ID != dead.ID || events[0].Attempts != 2 {
		t.Fatalf("received %+v after %d attempts, want event %s once, on the second attempt", got, events[0].Attempts, dead.ID)
	}
}
