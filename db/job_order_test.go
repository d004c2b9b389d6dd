package db

import (
	"context"
	"path/filepath"
	"slices"
	"testing"
)

// Jobs created within one millisecond still list newest first: by when they
// were inserted, not by their random ids.
func TestJobsInTheSameMillisecondListNewestFirst(t *testing.T) {
	ctx := context.Background()
	d := openMigrated(t, filepath.Join(t.TempDir(), "folio.db"))
	p, err := d.CreateProject(ctx, Project{Name: "Docs", Repository: "acme/docs"})
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for range 12 {
		j, err := d.CreateJob(ctx, Job{ProjectID: p.ID, Repository: "acme/docs", Ref: "main", Model: "m"}, "x", nil)
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, j.ID)
	}
	slices.Reverse(want)
	if _, err := d.w.ExecContext(context.Background(), `UPDATE jobs SET created_at = 1767225600000`); err != nil {
		t.Fatal(err)
	}
	var got []string
	for offset := 0; ; offset += 5 {
		page, more, err := d.ListJobs(ctx, p.ID, "", 5, offset)
		if err != nil {
			t.Fatal(err)
		}
		for _, j := range page {
			got = append(got, j.ID)
		}
		if !more {
			break
		}
	}
	if !slices.Equal(got, want) {
		t.Fatalf("listed %v, want newest first %v", got, want)
	}
}
