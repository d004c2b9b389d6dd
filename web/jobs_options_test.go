package main

import (
	"testing"

	"github.com/folio-docs/folio/internal/testenv"
)

// A create may name the ref to start from and the model; both are checked.
func TestCreateWithRefAndModel(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, withModel(t, testenv.NewModelServer(t, nil)))
	repo := newDocsRepo(t)
	git(t, repo, "branch", "trunk")
	s.useRepository(t, repo)

	var j map[string]any
	s.expect(201, "POST", "/v2/agent/{p}/job", `{"prompt":"Write a note.","ref":"trunk","model":"gpt-test-large"}`, &j)
	if src := j["source"].(map[string]any); src["ref"] != "trunk" || j["model"] != "gpt-test-large" {
		t.Fatalf("created %v, want ref trunk and model gpt-test-large", j)
	}
	if done := s.pollJob(j["id"].(string)); done.Status != "completed" {
		t.Fatalf("job ended %+v", done)
	}
	var c changesJSON
	s.expect(200, "GET", "/v2/agent/{p}/job/"+j["id"].(string)+"/changes", "", &c)
	if c.Base != "trunk" || len(c.Files) != 1 {
		t.Fatalf("changes %+v, want the branch against trunk", c)
	}

	for _, tc := range []struct{ body, field string }{
		{`{"prompt":"x","ref":"no-such-branch"}`, "ref"},
		{`{"prompt":"x","ref":"-bad"}`, "ref"},
		{`{"prompt":"x","model":"not-offered"}`, "model"},
		{`{"prompt":"x","model":"has space"}`, "model"},
		{`{"prompt":"x","branch":"main"}`, "branch"},
	} {
		var e apiError
		s.expect(400, "POST", "/v2/agent/{p}/job", tc.body, &e)
		if e.Code != "invalid_request" || len(e.Details) == 0 || e.Details[0].Field != tc.field {
			t.Errorf("%s: %+v, want 400 naming %s", tc.body, e, tc.field)
		}
	}
}

func TestModelsListsWhatAJobMayUse(t *testing.T) {
	t.Parallel()
	m := testenv.NewModelServer(t, nil)
	s := newTestServer(t, withModel(t, m))
	var out struct {
		Models  []struct{ ID string } `json:"models"`
		Default string                `json:"default"`
	}
	s.expect(200, "GET", "/v2/agent/{p}/models", "", &out)
	if len(out.Models) != 2 || out.Models[0].ID != "gpt-test-large" || out.Models[1].ID != "test-model" || out.Default != "test-model" {
		t.Fatalf("models = %+v", out)
	}
	var e apiError
	s.expect(404, "GET", "/v2/agent/nope/models", "", &e)
	if e.Code != "not_found" {
		t.Fatalf("models of another project: %+v", e)
	}
}

// A follow-up retried after a lost answer is added once.
func TestFollowUpIdempotencyKey(t *testing.T) {
	t.Parallel()
	g := newGatedRunner()
	s := newTestServer(t, withRunner(g))
	id := s.completedJob(g, "First.")

	var j map[string]any
	key := []string{"Idempotency-Key", "follow-up-1"}
	first := s.expect(200, "POST", "/v2/agent/{p}/job/"+id+"/message", `{"prompt":"Second."}`, &j, key...)
	again := s.expect(200, "POST", "/v2/agent/{p}/job/"+id+"/message", `{"prompt":"Second."}`, &j, key...)
	if first.Header.Get("Idempotent-Replayed") != "" || again.Header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("Idempotent-Replayed: first %q, again %q", first.Header.Get("Idempotent-Replayed"), again.Header.Get("Idempotent-Replayed"))
	}
	if first.Header.Get("RateLimit-Remaining") != again.Header.Get("RateLimit-Remaining") && again.Header.Get("RateLimit-Remaining") != "" {
		t.Fatalf("the replay counted against the limit: %s then %s", first.Header.Get("RateLimit-Remaining"), again.Header.Get("RateLimit-Remaining"))
	}
	var msgs struct {
		Messages []struct{ Role, Content string }
	}
	s.expect(200, "GET", "/v2/agent/{p}/job/"+id+"/messages", "", &msgs)
	n := 0
	for _, m := range msgs.Messages {
		if m.Role == "user" && m.Content == "Second." {
			n++
		}
	}
	if n != 1 {
		t.Fatalf("the follow-up was added %d times, want once", n)
	}
	var e apiError
	s.expect(409, "POST", "/v2/agent/{p}/job/"+id+"/message", `{"prompt":"Something else."}`, &e, key...)
	if e.Code != "idempotency_conflict" {
		t.Fatalf("same key, other prompt: %+v", e)
	}
	g.waitRun(t)
	g.replies <- nil
}
