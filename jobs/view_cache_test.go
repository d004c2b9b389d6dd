package jobs_test

import (
	"context"
	"database/sql"
	"sync"
	"testing"

	"github.com/folio-docs/folio/db"
	"github.com/folio-docs/folio/jobs"
	"github.com/folio-docs/folio/model"
)

// GET job keeps views in memory; a write committed anywhere must still be
// seen by the next Show begun after it returned. The other handle is what
// another process has: its own writer connection and its own mapping of
// the shared version.
func TestShowSeesEveryWriteFromAnotherHandle(t *testing.T) {
	w := newWorld(t, jobs.Config{})
	ctx := context.Background()
	j := w.create("Fix the typo")
	other, err := db.Open(ctx, w.db.Path())
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()

	// Pollers keep the view in memory the whole time.
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				if _, err := w.svc.Show(ctx, w.project.ID, j.ID); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	for n := 1; n <= 30; n++ {
		if err := other.AddJobUsage(ctx, j.ID, model.RunUsage{Steps: 1, Tokens: 10}); err != nil {
			t.Fatal(err)
		}
		v, err := w.svc.Show(ctx, w.project.ID, j.ID)
		if err != nil {
			t.Fatal(err)
		}
		if v.Usage.Steps != n {
			t.Fatalf("after the other handle's write %d returned, Show says %d steps", n, v.Usage.Steps)
		}
	}
	if _, err := other.CancelJob(ctx, w.project.ID, j.ID, "canceled", "Stopped."); err != nil {
		t.Fatal(err)
	}
	if v, _ := w.svc.Show(ctx, w.project.ID, j.ID); v.Status != model.JobFailed {
		t.Fatalf("after a cancel from the other handle Show says %s", v.Status)
	}
	close(stop)
	wg.Wait()

	// The kept view is really served: a change made around Folio's writer
	// (which Folio never does) is not seen until Folio next writes.
	raw, err := sql.Open("sqlite3", "file:"+w.db.Path()+"?_busy_timeout=10000")
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	if _, err := raw.Exec(`UPDATE jobs SET model = 'changed-behind' WHERE id = ?`, j.ID); err != nil {
		t.Fatal(err)
	}
	if v, _ := w.svc.Show(ctx, w.project.ID, j.ID); v.Model == "changed-behind" {
		t.Fatal("Show read the database although nothing was written through Folio: no view is kept")
	}
	if err := other.AddJobUsage(ctx, j.ID, model.RunUsage{Steps: 1, Tokens: 1}); err != nil {
		t.Fatal(err)
	}
	if v, _ := w.svc.Show(ctx, w.project.ID, j.ID); v.Model != "changed-behind" {
		t.Fatalf("after a write through Folio, Show still serves the old view (model %q)", v.Model)
	}
}
