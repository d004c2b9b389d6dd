package db

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/folio-docs/folio/model"
)

// A transition is written only over the status it was decided on: the
// compare-and-set refuses a job whose status moved, and leaves it as it is.
func TestSaveJobComparesStatus(t *testing.T) {
	ctx := context.Background()
	d := openMigrated(t, filepath.Join(t.TempDir(), "folio.db"))
	j := newProjectJob(t, d, Project{Name: "Docs", Repository: "acme/docs"})

	archived, err := j.Archive(now())
	if err != nil {
		t.Fatal(err)
	}
	err = d.tx(ctx, func(tx *sql.Tx) error { return saveJobTx(ctx, tx, JobCompleted, archived) })
	if !errors.Is(err, errJobChanged) {
		t.Fatalf("a write over a completed job that is active: err %v, want errJobChanged", err)
	}
	if got, _ := d.JobByID(ctx, j.ProjectID, j.ID); got.Status != JobActive || got.ArchivedAt != nil {
		t.Fatalf("the refused write changed the job: %+v", got)
	}
	if err := d.tx(ctx, func(tx *sql.Tx) error { return saveJobTx(ctx, tx, JobActive, archived) }); err != nil {
		t.Fatalf("a write over the status it was decided on: %v", err)
	}
	if got, _ := d.JobByID(ctx, j.ProjectID, j.ID); got.Status != JobArchived || got.ArchivedAt == nil {
		t.Fatalf("the write did not apply: %+v", got)
	}
}

// A job's life through every transition db applies: each leaves stored
// what the model decided, refusals change nothing, and each status change
// is counted once.
func TestJobTransitionsAreStored(t *testing.T) {
	ctx := context.Background()
	d := openMigrated(t, filepath.Join(t.TempDir(), "folio.db"))
	j := newProjectJob(t, d, Project{Name: "Docs", Repository: "acme/docs"})
	stored := func() Job {
		t.Helper()
		got, err := d.JobByID(ctx, j.ProjectID, j.ID)
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	must := func(ok bool, err error) {
		t.Helper()
		if err != nil || !ok {
			t.Fatalf("ok %v, err %v; want done", ok, err)
		}
	}
	refused := func(ok bool, err error) {
		t.Helper()
		if err != nil || ok {
			t.Fatalf("ok %v, err %v; want refused", ok, err)
		}
	}
	claim := func(turn, recovery int, owner string) (bool, error) {
		_, ok, err := d.ClaimJobRun(ctx, j.ID, turn, recovery, owner, time.Now().Add(time.Minute))
		return ok, err
	}
	check := func(what string, want func(Job) bool) {
		t.Helper()
		if got := stored(); !want(got) {
			t.Fatalf("%s: stored %+v", what, got)
		}
	}

	if ok, err := claim(1, 0, "a"); err != nil || !ok {
		t.Fatalf("claim: ok %v, err %v", ok, err)
	}
	check("claimed", func(g Job) bool { return g.LeaseOwner == "a" && g.LeaseUntil != nil && g.Attempts == 1 })
	refused(claim(1, 0, "b"))
	refused(d.ExtendJobLease(ctx, j.ID, "b", time.Now()))
	until := time.Now().Add(time.Hour).UTC().Truncate(time.Millisecond)
	must(d.ExtendJobLease(ctx, j.ID, "a", until))
	check("extended", func(g Job) bool { return g.LeaseUntil.Equal(until) })
	must(d.ReleaseJobRun(ctx, j.ID, "a"))
	refused(d.ReleaseJobRun(ctx, j.ID, "a"))
	check("released", func(g Job) bool { return g.LeaseOwner == "" && g.LeaseUntil == nil && g.Attempts == 1 })
	must(claim(1, 0, "a"))
	must(d.RecoverJobRun(ctx, j.ID, 1, 0))
	refused(d.RecoverJobRun(ctx, j.ID, 1, 0))
	check("recovered", func(g Job) bool { return g.Recovery == 1 && g.LeaseOwner == "" && g.Attempts == 2 })
	refused(claim(1, 0, "c"))
	must(claim(1, 1, "c"))

	// A follow-up on the running job waits; the turn's end starts it.
	if _, started, err := d.AddJobPrompt(ctx, j.ProjectID, j.ID, "more", nil); err != nil || started {
		t.Fatalf("follow-up while active: started %v, err %v", started, err)
	}
	if _, next, ok, err := d.FinishJobRun(ctx, j.ID, "x", TurnOutcome{Summary: "no"}); err != nil || ok || next {
		t.Fatalf("another attempt's finish: next %v, ok %v, err %v", next, ok, err)
	}
	if _, next, ok, err := d.FinishJobRun(ctx, j.ID, "c", TurnOutcome{PRLink: "https://pr/1", Summary: "one", Problems: `[{"path":"a.mdx"}]`}); err != nil || !ok || !next {
		t.Fatalf("finish with a follow-up waiting: next %v, ok %v, err %v", next, ok, err)
	}
	check("next turn", func(g Job) bool {
		return g.Status == JobActive && g.Turn == 2 && g.Recovery == 0 && g.Attempts == 0 && g.LeaseOwner == "" &&
			g.PRLink == "https://pr/1" && g.Summary != nil && *g.Summary == "one" && g.Problems == `[{"path":"a.mdx"}]`
	})
	must(claim(2, 0, "d"))
	if _, next, ok, err := d.FinishJobRun(ctx, j.ID, "d", TurnOutcome{Summary: "two"}); err != nil || !ok || next {
		t.Fatalf("finish: next %v, ok %v, err %v", next, ok, err)
	}
	check("completed", func(g Job) bool {
		return g.Status == JobCompleted && g.PRLink == "https://pr/1" && *g.Summary == "two" && g.Problems == "[]" && g.StatusChanges == 2
	})
	if _, err := d.CancelJob(ctx, j.ProjectID, j.ID, "canceled", "Stop."); !errors.Is(err, model.ErrJobNotActive) {
		t.Fatalf("cancel of a completed job: %v, want model.ErrJobNotActive", err)
	}

	// A follow-up on the completed job starts turn 3, which fails.
	if _, started, err := d.AddJobPrompt(ctx, j.ProjectID, j.ID, "again", nil); err != nil || !started {
		t.Fatalf("follow-up when completed: started %v, err %v", started, err)
	}
	check("turn 3", func(g Job) bool { return g.Status == JobActive && g.Turn == 3 && g.StatusChanges == 3 })
	must(claim(3, 0, "e"))
	if _, ok, err := d.FailJobRun(ctx, j.ID, "x", "agent_error", "Broke."); err != nil || ok {
		t.Fatalf("another attempt's failure: ok %v, err %v", ok, err)
	}
	if _, ok, err := d.FailJobRun(ctx, j.ID, "e", "agent_error", "Broke."); err != nil || !ok {
		t.Fatalf("failure: ok %v, err %v", ok, err)
	}
	check("failed", func(g Job) bool {
		return g.Status == JobFailed && g.ErrorCode == "agent_error" && g.ErrorMessage == "Broke." && g.LeaseOwner == "" && g.StatusChanges == 4
	})

	// The merge archives it; then nothing more is taken.
	m, archived, err := d.MergeJob(ctx, j.ProjectID, j.ID, "c0ffee", "diff --git")
	if err != nil || !archived || m.Status != JobArchived {
		t.Fatalf("merge: %+v, archived %v, err %v", m, archived, err)
	}
	check("merged", func(g Job) bool {
		return g.Status == JobArchived && g.ArchivedAt != nil && g.MergedAt != nil && g.MergeCommit == "c0ffee" && g.StatusChanges == 5
	})
	if diff, err := d.MergedDiff(ctx, j.ID); err != nil || diff != "diff --git" {
		t.Fatalf("merged diff %q, %v", diff, err)
	}
	before := stored()
	if _, _, err := d.MergeJob(ctx, j.ProjectID, j.ID, "other", ""); !errors.Is(err, model.ErrJobArchived) {
		t.Fatalf("second merge: %v, want model.ErrJobArchived", err)
	}
	if _, err := d.ArchiveJob(ctx, j.ProjectID, j.ID); !errors.Is(err, model.ErrJobArchived) {
		t.Fatalf("archive of an archived job: %v, want model.ErrJobArchived", err)
	}
	if _, _, err := d.AddJobPrompt(ctx, j.ProjectID, j.ID, "late", nil); !errors.Is(err, model.ErrJobArchived) {
		t.Fatalf("follow-up on an archived job: %v, want model.ErrJobArchived", err)
	}
	if _, err := d.CancelJob(ctx, j.ProjectID, j.ID, "canceled", "Stop."); !errors.Is(err, model.ErrJobArchived) {
		t.Fatalf("cancel of an archived job: %v, want model.ErrJobArchived", err)
	}
	refused(claim(3, 0, "f"))
	if after := stored(); after.UpdatedAt != before.UpdatedAt || after.StatusChanges != before.StatusChanges || after.MergeCommit != "c0ffee" {
		t.Fatalf("refusals changed the job: %+v, was %+v", after, before)
	}
	if _, ok, err := d.ClaimJobRun(ctx, "no-such-job", 1, 0, "a", time.Now()); err != nil || ok {
		t.Fatalf("claim of a missing job: ok %v, err %v", ok, err)
	}
}
