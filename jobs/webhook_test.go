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

	"github.com/folio-docs/folio/jobs"
	"github.com/folio-docs/folio/model"
)

// event is a webhook body as a receiver reads it.
type event struct {
	ID       string   `json:"id"`
	Type     string   `json:"type"`
	Sequence int      `json:"sequence"`
	Job      jobs.Job `json:"job"`
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
	w.waitStatus(j.ID, model.JobCompleted)
	if _, err := w.svc.Archive(ctx, w.project.ID, j.ID); err != nil {
		t.Fatal(err)
	}

	var got []string
	ids := map[string]bool{}
	for len(got) < 3 {
		select {
		case e := <-events:
			if e.Type != "job.status_changed" || e.Job.ID != j.ID || e.Sequence != len(got)+1 || e.ID == "" || ids[e.ID] {
				t.Fatalf("event %d = %+v, want job.status_changed of %s, sequence %d, a new id", len(got)+1, e, j.ID, len(got)+1)
			}
			ids[e.ID] = true
			got = append(got, string(e.Job.Status))
			if e.Job.Status == model.JobCompleted && (e.Job.PRLink == nil || *e.Job.PRLink != "https://pr/7") {
				t.Fatalf("completed event prLink = %v, want the pull request", e.Job.PRLink)
			}
		case h := <-bad:
			t.Fatalf("the receiver refused a delivery: %q", h)
		case <-time.After(10 * time.Second):
			t.Fatalf("events so far %q, want active, completed, archived", got)
		}
	}
	if strings.Join(got, ",") != "active,completed,archived" {
		t.Fatalf("events arrived as %q, want active, completed, archived in order", got)
	}
	var ds []model.WebhookDelivery
	for deadline := time.Now().Add(5 * time.Second); len(ds) < 3 && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		ds, _ = w.db.WebhookDeliveries(ctx, w.project.ID, 10)
	}
	if len(ds) != 3 {
		t.Fatalf("deliveries logged = %d, want 3", len(ds))
	}
	for _, d := range ds {
		if d.StatusCode != 200 || d.Error != "" || d.Attempt != 1 || d.JobID != j.ID || d.URL != receiver.URL || d.Sequence < 1 {
			t.Fatalf("delivery = %+v, want a first attempt answered 200", d)
		}
	}
}
