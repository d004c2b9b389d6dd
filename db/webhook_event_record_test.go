package db

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"os"
	"reflect"
	"strconv"
	"testing"
	"time"
)

// storedBefore is what the events of testdata/webhook_events_job_e23df96.jsonl
// hold: webhook_events.job as the code of e23df96 wrote it, when model.Job
// was stored untagged (the generator is beside it). Rows 1–5 come from real
// transitions (create, finish with a pull request and problems, merge,
// cancel); row 7 has every column set.
func storedBefore() []Job {
	at := func(ms int64) time.Time { return time.UnixMilli(ms).UTC() }
	ptr := func(t time.Time) *time.Time { return &t }
	str := func(s string) *string { return &s }
	created := time.Date(2026, 11, 26, 13, 40, 23, 878e6, time.UTC)
	t881, t882 := created.Add(3*time.Millisecond), created.Add(4*time.Millisecond)
	docs := Job{ID: "4mdw4gmhn11rhz5gh842hmb1mm", ProjectID: "jma0r1kecqxpe6a2bt0xc87xt0", Status: JobActive,
		Repository: "acme/docs", Ref: "main", Model: "m", Branch: "folio/4mdw4gmhn11rhz5gh842hmb1mm", Turn: 1,
		CreatedAt: created, UpdatedAt: created, Problems: "[]", StatusChanges: 1}
	other := Job{ID: "47zvmvzddvnpwp3hzfkatqh824", ProjectID: "d8ck8mfhaqhwtscbffyw1zphd0", Status: JobActive,
		Repository: "acme/other", Ref: "main", Model: "m", Branch: "folio/47zvmvzddvnpwp3hzfkatqh824", Turn: 1,
		CreatedAt: t881, UpdatedAt: t881, Problems: "[]", StatusChanges: 1}
	all := Job{ID: "gany76q1ne012wjpjs5fx5h3cc", ProjectID: "99em6wym0gmq34pdh64sy8yvaw", Status: JobActive,
		Repository: "acme/all", Ref: "main", Model: "m", Branch: "folio/gany76q1ne012wjpjs5fx5h3cc", Turn: 1,
		CreatedAt: t882, UpdatedAt: t882, Problems: "[]", StatusChanges: 1}

	completed := docs
	completed.Status, completed.PRLink, completed.Attempts, completed.UpdatedAt = JobCompleted, "https://github.com/acme/docs/pull/7", 1, t881
	completed.Steps, completed.Tokens, completed.Summary = 7, 12345, str(`Fixed <the> "quickstart" & links`)
	completed.Problems = `[{"path":"docs.json","line":3,"column":14,"severity":"error","message":"bad"}]`
	completed.StatusChanges = 2
	merged := completed
	merged.Status, merged.ArchivedAt, merged.MergedAt = JobArchived, ptr(t881), ptr(t881)
	merged.MergeCommit, merged.StatusChanges = "0123456789abcdef0123456789abcdef01234567", 3
	canceled := other
	canceled.Status, canceled.ErrorCode, canceled.ErrorMessage = JobFailed, "canceled", "Stopped by its owner."
	canceled.UpdatedAt, canceled.StatusChanges = t882, 2

	return []Job{docs, other, completed, merged, canceled, all, {
		ID: all.ID, ProjectID: all.ProjectID, Status: JobFailed, Repository: "acme/all", Ref: "main", Model: "m",
		Branch: "folio/x", PRLink: "https://github.com/acme/all/pull/9", ErrorCode: "model_error", ErrorMessage: "The model said no.",
		Turn: 3, Recovery: 2, Attempts: 4, LeaseOwner: "worker-2", LeaseUntil: ptr(at(1790000000123)),
		CreatedAt: at(1780000000001), UpdatedAt: at(1780000000999), ArchivedAt: ptr(at(1790000000456)),
		Steps: 11, Tokens: 99999999999, Summary: str("Done: é 🚀 <ok>"), Problems: "[]",
		MergedAt: ptr(at(1790000000789)), MergeCommit: "fedcba9876543210fedcba9876543210fedcba98", StatusChanges: 2,
	}}
}

// Webhook events stored by the version before model.JobRecord read back as
// the jobs they held, field for field; and today's code writes those jobs
// byte for byte as it did, so a row written now still reads in that version.
func TestWebhookEventsStoredByThePreviousVersionDecode(t *testing.T) {
	raw, err := os.ReadFile("testdata/webhook_events_job_e23df96.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	rows := bytes.Split(bytes.TrimSuffix(raw, []byte("\n")), []byte("\n"))
	want := storedBefore()
	if len(rows) != len(want) {
		t.Fatalf("%d rows in the fixture, %d expected", len(rows), len(want))
	}

	// Stored as that version stored them, read through the real read.
	ctx := context.Background()
	d, _, j := newHookedJob(t)
	if err := d.tx(ctx, func(tx *sql.Tx) error {
		for i, row := range rows {
			if _, err := tx.ExecContext(ctx, `INSERT INTO webhook_events (id, project_id, job_id, sequence, job, next_attempt_at, created_at)
				VALUES (?, ?, ?, ?, ?, 0, 0)`, "old-"+strconv.Itoa(i), j.ProjectID, j.ID, 100+i, string(row)); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	events, err := d.WebhookEvents(ctx, j.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(events) != 1+len(want) {
		t.Fatalf("%d events read back, want the job's own and %d stored", len(events), len(want))
	}
	events = events[1:] // the hooked job's own creation
	for i, e := range events {
		if !reflect.DeepEqual(e.Job, want[i]) {
			t.Errorf("row %d decodes as\n%+v\nwant\n%+v", i+1, e.Job, want[i])
		}
		got, err := json.Marshal(want[i].Record())
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, rows[i]) {
			t.Errorf("row %d is written today as\n%s\nand was\n%s", i+1, got, rows[i])
		}
	}
}
