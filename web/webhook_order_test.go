package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/folio-docs/folio/jobs"
)

// delivery is one request a webhook receiver got, as it read it.
type delivery struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Sequence int    `json:"sequence"`
	Job      struct {
		ID     string `json:"id"`
		Status string `json:"status"`
	} `json:"job"`
	Code     int             `json:"-"` // what the receiver answered
	SignedOK bool            `json:"-"`
	Body     json.RawMessage `json:"-"`
}

// A receiver that fails while a job goes active → completed → (follow-up)
// active → completed still gets the four events in order: the first is
// retried under the same id until it succeeds, and only then do the
// others come, each once, numbered 1, 2, 3, 4.
func TestWebhookEventsArriveInOrderWhileTheFirstIsRetried(t *testing.T) {
	t.Parallel()
	g := newGatedRunner()
	s := newTestServer(t, withRunner(g), withWebhookRetry(5*time.Millisecond, 50*time.Millisecond))
	const secret = "whsec-order"
	var (
		mu       sync.Mutex
		got      []delivery
		released atomic.Bool // the job has been through all four changes
		failures int
		accepted = make(chan struct{}, 4) // one for each delivery answered 200
	)
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		d := delivery{Body: body}
		if err := json.Unmarshal(body, &d); err != nil {
			t.Errorf("a delivery is not JSON: %q", body)
		}
		sig := r.Header.Get(jobs.SignatureHeader)
		if ts, err := strconv.ParseInt(strings.TrimPrefix(strings.Split(sig, ",")[0], "t="), 10, 64); err == nil {
			d.SignedOK = jobs.Sign(secret, time.Unix(ts, 0), body) == sig
		}
		mu.Lock()
		defer mu.Unlock()
		d.Code = http.StatusOK
		if !released.Load() || failures < 3 {
			failures++
			d.Code = http.StatusInternalServerError
		}
		got = append(got, d)
		if d.Code == http.StatusOK {
			select {
			case accepted <- struct{}{}:
			default:
			}
		}
		w.WriteHeader(d.Code)
	}))
	defer hook.Close()
	p := s.project
	p.WebhookURL, p.WebhookSecret = hook.URL, secret
	if _, err := s.app.db.UpdateProject(context.Background(), p); err != nil {
		t.Fatal(err)
	}

	id := s.completedJob(g, "Document key rotation.")
	s.expect(200, "POST", "/v2/agent/{p}/job/"+id+"/message", `{"prompt":"Also cover expiry."}`, nil)
	g.waitRun(t)
	g.replies <- nil
	s.waitStatus(id, "completed")
	released.Store(true)

	timeout := time.After(15 * time.Second)
	for n := 0; n < 4; n++ {
		select {
		case <-accepted:
		case <-timeout:
			mu.Lock()
			trail := fmt.Sprintf("%+v", got)
			mu.Unlock()
			t.Fatalf("%d of 4 events delivered within 15 s: %s", n, trail)
		}
	}
	// The receiver has the last event before the sender has its answer and
	// logs the attempt; the log announces nothing, so it is polled.
	waitFor(t, 10*time.Second, "the sender to log every attempt", func() bool {
		mu.Lock()
		n := len(got)
		mu.Unlock()
		logged, err := s.app.jobs.WebhookDeliveries(context.Background(), s.project.ID, 100)
		return err != nil || len(logged) >= n
	})
	mu.Lock()
	defer mu.Unlock()
	var trail []string
	for _, d := range got {
		trail = append(trail, fmt.Sprintf("%d:%s:%d", d.Sequence, d.Job.Status, d.Code))
	}
	// The first event until it succeeds, then each of the others once.
	if len(got) != failures+4 || failures < 3 {
		t.Fatalf("requests %v: want at least 3 failures of event 1, then 4 successes", trail)
	}
	want := []string{"active", "completed", "active", "completed"}
	idOf, taken := map[int]string{}, map[string]bool{}
	for i, d := range got {
		seq := max(1, i-failures+1) // failures of event 1, then 1, 2, 3, 4
		if d.Sequence != seq || d.Job.Status != want[seq-1] || d.Type != "job.status_changed" || d.Job.ID != id || !d.SignedOK {
			t.Fatalf("request %d = %+v, want event %d (%s) of job %s, signed; all: %v", i, d, seq, want[seq-1], id, trail)
		}
		switch {
		case idOf[seq] != "" && idOf[seq] != d.ID:
			t.Fatalf("event %d changed its id on a retry: %q, then %q", seq, idOf[seq], d.ID)
		case idOf[seq] == "" && (d.ID == "" || taken[d.ID]):
			t.Fatalf("event %d has id %q: empty, or another event's", seq, d.ID)
		}
		idOf[seq], taken[d.ID] = d.ID, true
	}

	// /openapi.json describes the body as it is.
	var doc struct {
		Webhooks   map[string]map[string]json.RawMessage `json:"webhooks"`
		Components struct {
			Schemas struct {
				WebhookEvent struct {
					Required   []string                   `json:"required"`
					Properties map[string]json.RawMessage `json:"properties"`
				} `json:"WebhookEvent"`
			} `json:"schemas"`
		} `json:"components"`
	}
	s.expect(200, "GET", "/openapi.json", "", &doc)
	var body map[string]json.RawMessage
	json.Unmarshal(got[0].Body, &body)
	schema := doc.Components.Schemas.WebhookEvent
	if doc.Webhooks["jobStatusChanged"]["post"] == nil || len(schema.Properties) != len(body) || len(schema.Required) != len(body) {
		t.Fatalf("/openapi.json: webhook %v, WebhookEvent %+v; a delivery has %d fields", doc.Webhooks, schema, len(body))
	}
	for _, f := range schema.Required {
		if body[f] == nil || schema.Properties[f] == nil {
			t.Fatalf("WebhookEvent requires %q: in the delivery %v, among the properties %v", f, body[f] != nil, schema.Properties[f] != nil)
		}
	}

	// The admin's log has every attempt, with its event's sequence.
	logged, err := s.app.jobs.WebhookDeliveries(context.Background(), s.project.ID, 100)
	if err != nil || len(logged) != len(got) {
		t.Fatalf("%d attempts logged (%v), want %d", len(logged), err, len(got))
	}
	if first := logged[len(logged)-1]; first.Sequence != 1 || first.Attempt != 1 || first.StatusCode != 500 {
		t.Fatalf("first attempt logged = %+v, want event 1, attempt 1, answered 500", first)
	}
	if last := logged[0]; last.Sequence != 4 || last.Attempt != 1 || last.StatusCode != 200 {
		t.Fatalf("last attempt logged = %+v, want event 4, attempt 1, answered 200", last)
	}
}
