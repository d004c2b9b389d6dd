package jobs_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/folio-docs/folio/db"
	"github.com/folio-docs/folio/jobs"
	"github.com/folio-docs/folio/tasks"
)

type event struct {
	Type string   `json:"type"`
	Job  jobs.Job `json:"job"`
}

// verify checks a Folio-Signature the way a receiver would, from the
// documented scheme alone.
func verify(secret, header string, body []byte) bool {
	var ts, sig string
	for _, part := range strings.Split(header, ",") {
		k, v, _ := strings.Cut(part, "=")
		switch k {
		case "t":
			ts = v
		case "v1":
			sig = v
		}
	}
	unix, err := strconv.ParseInt(ts, 10, 64)
	if err != nil || time.Since(time.Unix(unix, 0)).Abs() > 5*time.Minute {
		return false
	}
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(ts + "." + string(body)))
	want := hex.EncodeToString(mac.Sum(nil))
	return hmac.Equal([]byte(want), []byte(sig))
}

func TestWebhookOnEveryStatusChangeIsSignedAndLogged(t *testing.T) {
	events := make(chan event, 16)
	bad := make(chan string, 16)
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if !verify("s3cret", r.Header.Get(jobs.SignatureHeader), body) {
			bad <- r.Header.Get(jobs.SignatureHeader)
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		var e event
		if err := json.Unmarshal(body, &e); err != nil {
			bad <- string(body)
			return
		}
		events <- e
	}))
	defer receiver.Close()

	w := newWorld(t, jobs.Config{})
	ctx := context.Background()
	w.project.WebhookURL, w.project.WebhookSecret = receiver.URL, "s3cret"
	if _, err := w.db.UpdateProject(ctx, w.project); err != nil {
		t.Fatal(err)
	}
	w.startWorker()
	j := w.create("edit")
	w.runner.waitRun(t)
	w.runner.then(reply("done", "https://pr/7"))
	w.waitStatus(j.ID, db.JobCompleted)
	if _, err := w.svc.Archive(ctx, w.project.ID, j.ID); err != nil {
		t.Fatal(err)
	}

	var got []string
	for len(got) < 3 {
		select {
		case e := <-events:
			if e.Type != "job.status_changed" || e.Job.ID != j.ID {
				t.Fatalf("event = %+v, want job.status_changed of %s", e, j.ID)
			}
			got = append(got, e.Job.Status)
			if e.Job.Status == db.JobCompleted && (e.Job.PRLink == nil || *e.Job.PRLink != "https://pr/7") {
				t.Fatalf("completed event prLink = %v, want the pull request", e.Job.PRLink)
			}
		case h := <-bad:
			t.Fatalf("the receiver refused a delivery: %q", h)
		case <-time.After(10 * time.Second):
			t.Fatalf("events so far %q, want active, completed, archived", got)
		}
	}
	// Deliveries of different events may arrive in any order.
	for _, s := range []string{db.JobActive, db.JobCompleted, db.JobArchived} {
		if !strings.Contains(strings.Join(got, ","), s) {
			t.Fatalf("events %q lack %s", got, s)
		}
	}
	var ds []db.WebhookDelivery
	for deadline := time.Now().Add(5 * time.Second); len(ds) < 3 && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		ds, _ = w.db.WebhookDeliveries(ctx, w.project.ID, 10)
	}
	if len(ds) != 3 {
		t.Fatalf("deliveries logged = %d, want 3", len(ds))
	}
	for _, d := range ds {
		if d.StatusCode != 200 || d.Error != "" || d.Attempt != 1 || d.JobID != j.ID || d.URL != receiver.URL {
			t.Fatalf("delivery = %+v, want a first attempt answered 200", d)
		}
	}
}

func TestWebhookFailureIsLoggedAndRetried(t *testing.T) {
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusBadGateway)
	}))
	defer receiver.Close()
	w := newWorld(t, jobs.Config{})
	ctx := context.Background()
	w.project.WebhookURL, w.project.WebhookSecret = receiver.URL, "s"
	if _, err := w.db.UpdateProject(ctx, w.project); err != nil {
		t.Fatal(err)
	}
	e := tasks.WebhookEvent{ID: "ev1", ProjectID: w.project.ID, JobID: "j1", Body: json.RawMessage(`{}`), At: time.Now()}
	if err := w.svc.DeliverWebhook(ctx, e, 3); err == nil {
		t.Fatal("delivery answered 502: err = nil, want an error so Asynq retries")
	}
	// A day later, the event is given up.
	e.At = time.Now().Add(-25 * time.Hour)
	if err := w.svc.DeliverWebhook(ctx, e, 32); err != nil {
		t.Fatalf("delivery of a day-old event: err = %v, want nil (given up)", err)
	}
	ds, err := w.svc.WebhookDeliveries(ctx, w.project.ID, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(ds) != 2 || ds[0].StatusCode != 502 || ds[0].Error == "" || ds[0].Attempt != 32 || ds[1].Attempt != 3 {
		t.Fatalf("deliveries = %+v, want two 502 attempts, newest first", ds)
	}
}
