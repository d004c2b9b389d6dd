package db

import (
	"context"
	"errors"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/folio-docs/folio/model"
)

// newHookedJob opens two handles on one database file — as serve and a
// worker beside it do — and creates a job of a project with a webhook.
func newHookedJob(t *testing.T) (a, b *DB, j Job) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "folio.db")
	a, b = openMigrated(t, path), openMigrated(t, path)
	return a, b, newProjectJob(t, a, Project{Name: "Docs", Repository: "acme/docs", WebhookURL: "https://hooks.example/f", WebhookSecret: "s"})
}

// newProjectJob creates project p on d and a job of it.
func newProjectJob(t *testing.T, d *DB, p Project) Job {
	t.Helper()
	ctx := context.Background()
	p, err := d.CreateProject(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	j, err := d.CreateJob(ctx, Job{ProjectID: p.ID, Repository: p.Repository, Ref: "main", Model: "m"}, "x", nil)
	if err != nil {
		t.Fatal(err)
	}
	return j
}

// Status changes made at once through two handles number their events 1,
// 2, 3, ... with no gap and no repeat, each event showing the job as its
// own change left it.
func TestWebhookEventSequenceIsExactAcrossHandles(t *testing.T) {
	ctx := context.Background()
	a, b, j := newHookedJob(t)
	var mu sync.Mutex
	changes := 1 // the create
	var wg sync.WaitGroup
	for _, d := range []*DB{a, b, a, b} {
		wg.Go(func() {
			for range 15 {
				_, cerr := d.CancelJob(ctx, j.ProjectID, j.ID, "canceled", "stop")
				_, started, perr := d.AddJobPrompt(ctx, j.ProjectID, j.ID, "again", nil)
				mu.Lock()
				if cerr == nil {
					changes++
				}
				if started {
					changes++
				}
				mu.Unlock()
				if cerr != nil && !errors.Is(cerr, model.ErrJobNotActive) || perr != nil {
					t.Errorf("cancel: %v; follow-up: %v", cerr, perr)
					return
				}
			}
		})
	}
	wg.Wait()

	events, err := b.WebhookEvents(ctx, j.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(events) != changes {
		t.Fatalf("%d events for %d status changes", len(events), changes)
	}
	ids := map[string]bool{}
	for i, e := range events {
		want := JobActive
		if i%2 == 1 {
			want = JobFailed
		}
		if e.Sequence != i+1 || e.Job.StatusChanges != i+1 || e.Job.Status != want || e.State != WebhookPending || ids[e.ID] {
			t.Fatalf("event %d = sequence %d, job's count %d, status %s, state %s, id %s seen before: %v; want sequence %d showing %s",
				i, e.Sequence, e.Job.StatusChanges, e.Job.Status, e.State, e.ID, ids[e.ID], i+1, want)
		}
		ids[e.ID] = true
	}
	got, err := a.JobByID(ctx, j.ProjectID, j.ID)
	if err != nil || got.StatusChanges != changes {
		t.Fatalf("job counts %d status changes (%v), want %d", got.StatusChanges, err, changes)
	}
}

// A project without a webhook gets no events, but its jobs' changes still
// count, so a webhook added later carries on from the true sequence.
func TestStatusChangesCountWithoutAWebhook(t *testing.T) {
	ctx := context.Background()
	d := openMigrated(t, filepath.Join(t.TempDir(), "folio.db"))
	j := newProjectJob(t, d, Project{Name: "Docs", Repository: "acme/docs"})
	j, err := d.ArchiveJob(ctx, j.ProjectID, j.ID)
	if err != nil {
		t.Fatal(err)
	}
	events, err := d.WebhookEvents(ctx, j.ID)
	if err != nil || len(events) != 0 || j.StatusChanges != 2 {
		t.Fatalf("events %v (%v), changes %d; want none and 2", events, err, j.StatusChanges)
	}
}

// Only a job's oldest pending event may be claimed, by one owner at a time;
// the next waits until it is delivered or given up. A lease that runs out
// (the delivery died) lets another owner take the event again.
func TestOnlyTheOldestPendingWebhookEventIsClaimed(t *testing.T) {
	ctx := context.Background()
	a, b, j := newHookedJob(t)
	if _, err := a.ArchiveJob(ctx, j.ProjectID, j.ID); err != nil {
		t.Fatal(err)
	}
	lease := time.Now().Add(time.Minute)
	claim := func(d *DB, owner string, until time.Time) (WebhookEvent, bool) {
		t.Helper()
		e, ok, err := d.ClaimWebhookEvent(ctx, j.ID, owner, until)
		if err != nil {
			t.Fatal(err)
		}
		return e, ok
	}
	finish := func(e WebhookEvent, owner, state string, retryAt time.Time) bool {
		t.Helper()
		ok, err := b.FinishWebhookEvent(ctx, e, owner, state, retryAt, &WebhookDelivery{ProjectID: j.ProjectID, JobID: j.ID, EventID: e.ID, Sequence: e.Sequence, Attempt: e.Attempts, URL: "u", StatusCode: 500})
		if err != nil {
			t.Fatal(err)
		}
		return ok
	}

	e, ok := claim(a, "A", lease)
	if !ok || e.Sequence != 1 || e.Attempts != 1 || e.Job.Status != JobActive {
		t.Fatalf("first claim = %+v, %v; want event 1, attempt 1", e, ok)
	}
	if e2, ok := claim(b, "B", lease); ok || e2.ID != e.ID || e2.LeaseOwner != "A" {
		t.Fatalf("a claim while A holds event 1 = %+v, %v; want event 1 shown held by A", e2, ok)
	}
	// A fails; the event waits for its retry and event 2 waits for it.
	if !finish(e, "A", WebhookPending, time.Now().Add(time.Hour)) {
		t.Fatal("A's failure was not recorded")
	}
	if e2, ok := claim(b, "B", lease); ok || e2.Sequence != 1 || e2.LeaseOwner != "" {
		t.Fatalf("a claim before the retry is due = %+v, %v; want event 1, waiting", e2, ok)
	}
	if _, err := a.w.ExecContext(context.Background(), `UPDATE webhook_events SET next_attempt_at = 0 WHERE id = ?`, e.ID); err != nil {
		t.Fatal(err)
	}
	// B takes the retry with a lease that has already run out, as if it died.
	e, ok = claim(b, "B", time.Now().Add(-time.Millisecond))
	if !ok || e.Sequence != 1 || e.Attempts != 2 {
		t.Fatalf("the due retry = %+v, %v; want event 1, attempt 2", e, ok)
	}
	if stalled, err := a.StalledWebhookEvents(ctx, time.Now(), 10); err != nil || len(stalled) != 1 || stalled[0].ID != e.ID {
		t.Fatalf("stalled = %+v (%v), want event 1 only", stalled, err)
	}
	e, ok = claim(a, "C", lease)
	if !ok || e.Sequence != 1 || e.Attempts != 3 {
		t.Fatalf("a claim after B's lease ran out = %+v, %v; want event 1, attempt 3", e, ok)
	}
	if finish(e, "B", WebhookDelivered, time.Now()) {
		t.Fatal("B, whose lease was taken over, changed the event's state")
	}
	if !finish(e, "C", WebhookDelivered, time.Now()) {
		t.Fatal("C's delivery was not recorded")
	}
	if e, ok = claim(b, "D", lease); !ok || e.Sequence != 2 || e.Job.Status != JobArchived {
		t.Fatalf("after event 1 was delivered, claim = %+v, %v; want event 2 (archived)", e, ok)
	}
	if !finish(e, "D", WebhookAbandoned, time.Now()) {
		t.Fatal("D's give-up was not recorded")
	}
	if e, ok = claim(a, "E", lease); ok || e.ID != "" {
		t.Fatalf("with every event done, claim = %+v, %v; want nothing", e, ok)
	}
	if stalled, err := a.StalledWebhookEvents(ctx, time.Now(), 10); err != nil || len(stalled) != 0 {
		t.Fatalf("stalled = %+v (%v), want none", stalled, err)
	}
	ds, err := a.WebhookDeliveries(ctx, j.ProjectID, 10)
	if err != nil || len(ds) != 4 || ds[0].Sequence != 2 || ds[1].Sequence != 1 || ds[1].Attempt != 3 {
		t.Fatalf("deliveries = %+v (%v), want all four attempts logged, B's too, newest first", ds, err)
	}
}
