package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/mux"

	"github.com/folio-docs/folio/agent"
	"github.com/folio-docs/folio/jobs"
	"github.com/folio-docs/folio/tasks"
)

type apiError struct {
	Error   string `json:"error"`
	Code    string `json:"code"`
	Details []struct{ Field, Message string }
}

// gatedRunner answers each run with the next reply from its channel.
type gatedRunner struct {
	started chan agent.Run
	replies chan error
}

func newGatedRunner() *gatedRunner {
	return &gatedRunner{started: make(chan agent.Run, 8), replies: make(chan error, 8)}
}

func (g *gatedRunner) Run(ctx context.Context, run agent.Run, record agent.Recorder) (agent.Result, error) {
	g.started <- run
	select {
	case err := <-g.replies:
		if err != nil {
			return agent.Result{}, err
		}
		record(ctx, agent.Message{Role: agent.RoleAssistant, Content: "done: " + run.History[len(run.History)-1].Content})
		return agent.Result{PRLink: "https://github.com/acme/docs/pull/1", Changed: true}, nil
	case <-ctx.Done():
		return agent.Result{}, ctx.Err()
	}
}

func (g *gatedRunner) waitRun(t testing.TB) {
	t.Helper()
	select {
	case <-g.started:
	case <-time.After(10 * time.Second):
		t.Fatal("the agent was not run")
	}
}

// completedJob creates a job through the API, lets g finish its first
// turn, and returns the job's id once it is completed.
func (s *testServer) completedJob(g *gatedRunner, prompt string) string {
	s.t.Helper()
	var j map[string]any
	s.expect(201, "POST", "/v2/agent/{p}/job", fmt.Sprintf(`{"prompt":%q}`, prompt), &j)
	id := j["id"].(string)
	g.waitRun(s.t)
	g.replies <- nil
	s.waitStatus(id, "completed")
	return id
}

func TestJobAPIThroughEveryTransition(t *testing.T) {
	t.Parallel()
	g := newGatedRunner()
	s := newTestServer(t, withRunner(g))

	// create → active, with exactly the seed's fields plus the additive ones.
	var created map[string]any
	resp := s.expect(201, "POST", "/v2/agent/{p}/job", `{"prompt":"Fix the typo"}`, &created)
	keys := make([]string, 0, len(created))
	for k := range created {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if got := strings.Join(keys, ","); got != "archivedAt,branch,createdAt,id,mergedAt,model,prLink,problems,source,status,summary,updatedAt,usage" {
		t.Fatalf("job fields = %s", got)
	}
	// RFC 3339 in UTC, always with milliseconds, so the strings sort as the times do.
	stampShape := regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$`)
	for _, k := range []string{"createdAt", "updatedAt"} {
		if s, _ := created[k].(string); !stampShape.MatchString(s) {
			t.Errorf("%s = %q, want RFC 3339 UTC with milliseconds", k, s)
		}
	}
	if created["status"] != "active" || created["prLink"] != nil || created["archivedAt"] != nil || created["model"] != "test-model" {
		t.Fatalf("created = %v", created)
	}
	if src := created["source"].(map[string]any); src["repository"] != "https://github.com/acme/docs" || src["ref"] != "main" { // the repository's URL, as Mintlify documents it
		t.Fatalf("source = %v", src)
	}
	if ts, _ := created["createdAt"].(string); !strings.HasSuffix(ts, "Z") {
		t.Fatalf("createdAt = %v, want RFC 3339 UTC", created["createdAt"])
	}
	if resp.Header.Get("RateLimit-Limit") != "100" || resp.Header.Get("RateLimit-Remaining") != "99" || resp.Header.Get("RateLimit-Reset") == "" {
		t.Fatalf("rate-limit headers = %v", resp.Header)
	}
	id := created["id"].(string)

	// active → completed
	g.waitRun(t)
	g.replies <- nil
	done := s.waitStatus(id, "completed")
	if done["prLink"] != "https://github.com/acme/docs/pull/1" {
		t.Fatalf("completed = %v, want prLink", done)
	}

	// completed → (message) → active → failed (permanent error)
	var j map[string]any
	s.expect(200, "POST", "/v2/agent/{p}/job/"+id+"/message", `{"prompt":"Also fix the links"}`, &j)
	if j["status"] != "active" {
		t.Fatalf("after message = %v, want active", j)
	}
	g.waitRun(t)
	g.replies <- &agent.Error{Code: "repository_error", Message: "The ref main does not exist.", Permanent: true}
	failed := s.waitStatus(id, "failed")
	if e, _ := failed["error"].(map[string]any); e["code"] != "repository_error" || e["message"] != "The ref main does not exist." {
		t.Fatalf("failed = %v, want the agent's error", failed)
	}

	// failed → (message) → active → (cancel) → failed/canceled
	s.expect(200, "POST", "/v2/agent/{p}/job/"+id+"/message", `{"prompt":"Try again"}`, &j)
	if j["status"] != "active" || j["error"] != nil {
		t.Fatalf("after message on failed = %v, want active without error", j)
	}
	g.waitRun(t)
	s.expect(200, "POST", "/v2/agent/{p}/job/"+id+"/cancel", "", &j)
	if e, _ := j["error"].(map[string]any); j["status"] != "failed" || e["code"] != "canceled" {
		t.Fatalf("after cancel = %v, want failed/canceled", j)
	}
	var e apiError
	s.expect(409, "POST", "/v2/agent/{p}/job/"+id+"/cancel", "", &e)
	if e.Code != "conflict" {
		t.Fatalf("cancel of a failed job = %+v, want 409 conflict", e)
	}

	// any → archived; then 409 job_archived
	s.expect(200, "POST", "/v2/agent/{p}/job/"+id+"/archive", "", &j)
	if j["status"] != "archived" || j["archivedAt"] == nil || j["prLink"] != "https://github.com/acme/docs/pull/1" {
		t.Fatalf("after archive = %v", j)
	}
	s.expect(409, "POST", "/v2/agent/{p}/job/"+id+"/message", `{"prompt":"more"}`, &e)
	if e.Code != "job_archived" {
		t.Fatalf("message on archived = %+v, want job_archived", e)
	}

	var ms struct{ Messages []jobs.Message }
	s.expect(200, "GET", "/v2/agent/{p}/job/"+id+"/messages", "", &ms)
	var conv []string
	for _, m := range ms.Messages {
		conv = append(conv, m.Role+":"+m.Content)
	}
	if want := "user:Fix the typo|assistant:done: Fix the typo|user:Also fix the links|user:Try again"; strings.Join(conv, "|") != want {
		t.Fatalf("conversation = %q, want %q", conv, want)
	}
}

func TestFollowUpOnActiveJobStaysActive(t *testing.T) {
	t.Parallel()
	g := newGatedRunner()
	s := newTestServer(t, withRunner(g))
	var j map[string]any
	s.expect(201, "POST", "/v2/agent/{p}/job", `{"prompt":"one"}`, &j)
	id := j["id"].(string)
	g.waitRun(t)
	resp := s.expect(200, "POST", "/v2/agent/{p}/job/"+id+"/message", `{"prompt":"two"}`, &j)
	if j["status"] != "active" || resp.Header.Get("RateLimit-Remaining") != "99" {
		t.Fatalf("follow-up on active = %v (remaining %s), want active with its own limit", j, resp.Header.Get("RateLimit-Remaining"))
	}
	g.replies <- nil
	g.waitRun(t) // the queued follow-up runs next
	g.replies <- nil
	s.waitStatus(id, "completed")
}

func TestPromptValidation(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	for _, body := range []string{`{"prompt":""}`, `{}`, fmt.Sprintf(`{"prompt":%q}`, strings.Repeat("a", 32001))} {
		var e apiError
		resp := s.expect(400, "POST", "/v2/agent/{p}/job", body, &e)
		if e.Code != "invalid_request" || len(e.Details) != 1 || e.Details[0].Field != "prompt" {
			t.Fatalf("body %.40s… = %+v, want invalid_request naming prompt", body, e)
		}
		if resp.Header.Get("RateLimit-Remaining") != "100" {
			t.Fatalf("a refused prompt was counted or lacks headers: %v", resp.Header)
		}
	}
	var e apiError
	s.expect(400, "POST", "/v2/agent/{p}/job", `{"prompt":"x","extra":1}`, &e)
	if e.Details[0].Field != "extra" {
		t.Fatalf("unknown field = %+v", e)
	}
	s.expect(404, "GET", "/v2/agent/{p}/job/nope", "", &e)
	if resp := s.expect(404, "POST", "/v2/agent/{p}/job/nope/message", `{"prompt":"x"}`, &e); resp.Header.Get("RateLimit-Remaining") != "100" {
		t.Fatalf("404 follow-up headers = %v, want the quota, uncounted", resp.Header)
	}
}

func TestListFiltersAndPages(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	var ids []string
	for i := range 5 {
		var j map[string]any
		s.expect(201, "POST", "/v2/agent/{p}/job", fmt.Sprintf(`{"prompt":"job %d"}`, i), &j)
		ids = append(ids, j["id"].(string))
	}
	s.expect(200, "POST", "/v2/agent/{p}/job/"+ids[1]+"/archive", "", nil)
	type page struct {
		Jobs    []map[string]any
		HasMore bool
	}
	var p page
	s.expect(200, "GET", "/v2/agent/{p}/jobs?limit=2", "", &p)
	if len(p.Jobs) != 2 || !p.HasMore || p.Jobs[0]["id"] != ids[4] || p.Jobs[1]["id"] != ids[3] {
		t.Fatalf("first page = %+v, want the two newest and hasMore", p)
	}
	s.expect(200, "GET", "/v2/agent/{p}/jobs?limit=2&offset=4", "", &p)
	if len(p.Jobs) != 1 || p.HasMore || p.Jobs[0]["id"] != ids[0] {
		t.Fatalf("last page = %+v, want the oldest and no more", p)
	}
	s.expect(200, "GET", "/v2/agent/{p}/jobs?status=archived", "", &p)
	if len(p.Jobs) != 1 || p.Jobs[0]["id"] != ids[1] || p.HasMore {
		t.Fatalf("archived = %+v", p)
	}
	s.expect(200, "GET", "/v2/agent/{p}/jobs", "", &p)
	if len(p.Jobs) != 5 {
		t.Fatalf("default page has %d jobs, want 5", len(p.Jobs))
	}
	for _, q := range []string{"limit=0", "limit=101", "limit=x", "offset=-1", "status=done", "limit=", "offset=", "status=", "limit=5&limit=6"} {
		var e apiError
		s.expect(400, "GET", "/v2/agent/{p}/jobs?"+q, "", &e)
		if field, _, _ := strings.Cut(q, "="); len(e.Details) != 1 || e.Details[0].Field != field {
			t.Fatalf("%s = %+v, want a 400 naming %s", q, e, field)
		}
	}
}

func TestRateLimitIsExactUnderConcurrency(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	codes := map[int]int{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	var missing, badRetry int
	for i := range 150 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			req, _ := http.NewRequest("POST", s.URL+"/v2/agent/"+s.project.ID+"/job", strings.NewReader(fmt.Sprintf(`{"prompt":"p%d"}`, i)))
			req.Header.Set("Authorization", "Bearer "+s.key)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Error(err)
				return
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			mu.Lock()
			defer mu.Unlock()
			codes[resp.StatusCode]++
			if resp.Header.Get("RateLimit-Limit") != "100" || resp.Header.Get("RateLimit-Remaining") == "" || resp.Header.Get("RateLimit-Reset") == "" {
				missing++
			}
			if resp.StatusCode == 429 && (resp.Header.Get("Retry-After") == "" || resp.Header.Get("RateLimit-Remaining") != "0") {
				badRetry++
			}
		}()
	}
	wg.Wait()
	if codes[201] != 100 || codes[429] != 50 || len(codes) != 2 {
		t.Fatalf("status codes = %v, want exactly 100×201 and 50×429", codes)
	}
	if missing > 0 || badRetry > 0 {
		t.Fatalf("%d responses lack RateLimit headers, %d 429s lack Retry-After or Remaining 0", missing, badRetry)
	}
	var p struct{ Jobs []any }
	s.expect(200, "GET", "/v2/agent/{p}/jobs?limit=100&offset=0", "", &p)
	var more struct{ Jobs []any }
	s.expect(200, "GET", "/v2/agent/{p}/jobs?limit=100&offset=100", "", &more)
	if len(p.Jobs)+len(more.Jobs) != 100 {
		t.Fatalf("%d jobs stored, want 100", len(p.Jobs)+len(more.Jobs))
	}
	var e apiError
	s.expect(429, "POST", "/v2/agent/{p}/job", `{"prompt":"one more"}`, &e)
	if e.Code != "rate_limited" {
		t.Fatalf("over the limit = %+v, want rate_limited", e)
	}
}

func TestIdempotencyKey(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	var a, b map[string]any
	s.expect(201, "POST", "/v2/agent/{p}/job", `{"prompt":"same"}`, &a, "Idempotency-Key", "k1")
	resp := s.expect(201, "POST", "/v2/agent/{p}/job", `{"prompt":"same"}`, &b, "Idempotency-Key", "k1")
	if a["id"] != b["id"] {
		t.Fatalf("same key, same body gave jobs %v and %v, want one", a["id"], b["id"])
	}
	if resp.Header.Get("RateLimit-Remaining") != "99" || resp.Header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("replay headers = %v, want it not counted (99 left) and marked replayed", resp.Header)
	}
	var e apiError
	s.expect(409, "POST", "/v2/agent/{p}/job", `{"prompt":"different"}`, &e, "Idempotency-Key", "k1")
	if e.Code != "idempotency_conflict" {
		t.Fatalf("same key, other body = %+v, want idempotency_conflict", e)
	}
	// Concurrent requests with one key still make one job.
	ids := make(chan any, 10)
	var wg sync.WaitGroup
	for range 10 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var j map[string]any
			if resp := s.do("POST", "/v2/agent/{p}/job", `{"prompt":"race"}`, &j, "Idempotency-Key", "k2"); resp.StatusCode != 201 {
				t.Errorf("concurrent same-key create = %d %v", resp.StatusCode, j)
			}
			ids <- j["id"]
		}()
	}
	wg.Wait()
	close(ids)
	first := <-ids
	for id := range ids {
		if id != first {
			t.Fatalf("concurrent same-key creates gave %v and %v", first, id)
		}
	}
	var p struct{ Jobs []any }
	s.expect(200, "GET", "/v2/agent/{p}/jobs", "", &p)
	if len(p.Jobs) != 2 {
		t.Fatalf("%d jobs stored, want 2", len(p.Jobs))
	}
}

func TestRedisDownAnswers503AndStoresNothing(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, withRedisAt("127.0.0.1:1"))
	var e apiError
	s.expect(503, "POST", "/v2/agent/{p}/job", `{"prompt":"x"}`, &e)
	if e.Code != "unavailable" || e.Error == "" {
		t.Fatalf("503 body = %+v, want code unavailable", e)
	}
	list, _, err := s.app.db.ListJobs(context.Background(), s.project.ID, "", 10, 0)
	if err != nil || len(list) != 0 {
		t.Fatalf("jobs stored = %d (%v), want none", len(list), err)
	}
}

func TestRunsWaitWithoutARunner(t *testing.T) {
	t.Parallel()
	s := newTestServer(t) // no runner wired
	wctx, cancel := context.WithCancel(context.Background())
	srv, err := s.app.startWorker(wctx)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { cancel(); srv.Shutdown() }()
	// The job's webhook event, queued after its run, shows the worker is
	// taking tasks: the run has had its chance to be taken too.
	delivered := make(chan struct{}, 1)
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case delivered <- struct{}{}:
		default:
		}
	}))
	defer hook.Close()
	p := s.project
	p.WebhookURL, p.WebhookSecret = hook.URL, "s3cret"
	if _, err := s.app.db.UpdateProject(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	var j map[string]any
	s.expect(201, "POST", "/v2/agent/{p}/job", `{"prompt":"x"}`, &j)
	select {
	case <-delivered:
	case <-time.After(10 * time.Second):
		t.Fatal("the worker delivered no webhook event within 10s: it is not taking tasks")
	}
	s.expect(200, "GET", "/v2/agent/{p}/job/"+j["id"].(string), "", &j)
	if j["status"] != "active" {
		t.Fatalf("without a runner the job became %v, want it left active", j["status"])
	}
	info, err := s.app.queue.AgentRunState(tasks.AgentRun{JobID: j["id"].(string), Turn: 1})
	if err != nil || info != tasks.RunWaiting {
		t.Fatalf("the run's task is in state %v (%v), want waiting in the queue", info, err)
	}
}

func TestOpenAPIDocumentsEveryRoute(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	var doc struct {
		OpenAPI string `json:"openapi"`
		Paths   map[string]map[string]struct {
			Responses map[string]json.RawMessage `json:"responses"`
		} `json:"paths"`
	}
	resp, err := http.Get(s.URL + "/openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || json.Unmarshal(raw, &doc) != nil || doc.OpenAPI != "3.1.0" {
		t.Fatalf("GET /openapi.json = %d %.200s", resp.StatusCode, raw)
	}
	documented := map[string]bool{}
	for path, ops := range doc.Paths {
		for m, op := range ops {
			documented[strings.ToUpper(m)+" "+path] = true
			// Any request may meet the JSON 500 (a panic, a failed dependency).
			if !strings.Contains(string(op.Responses["500"]), "#/components/schemas/Error") {
				t.Errorf("/openapi.json: %s %s does not document the 500 error", strings.ToUpper(m), path)
			}
		}
	}
	routed := map[string]bool{}
	err = s.app.router().Walk(func(route *mux.Route, _ *mux.Router, _ []*mux.Route) error {
		path, err1 := route.GetPathTemplate()
		methods, err2 := route.GetMethods()
		if err1 != nil || err2 != nil || !isAPIPath(path) {
			return nil
		}
		for _, m := range methods {
			routed[m+" "+path] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for r := range routed {
		if !documented[r] {
			t.Errorf("route %s is not in /openapi.json", r)
		}
	}
	for d := range documented {
		if !routed[d] {
			t.Errorf("/openapi.json documents %s, which the router does not serve", d)
		}
	}
	if len(routed) < 10 {
		t.Fatalf("only %d API routes found: %v", len(routed), routed)
	}
	// Every other method on a documented path is a JSON 405 whose Allow
	// header lists exactly the documented methods.
	for path, ops := range doc.Paths {
		var allowed []string
		for m := range ops {
			allowed = append(allowed, strings.ToUpper(m))
		}
		slices.Sort(allowed)
		url := s.URL + regexp.MustCompile(`\{[^}]+\}`).ReplaceAllString(path, "x")
		for _, m := range []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete} {
			if slices.Contains(allowed, m) {
				continue
			}
			req, _ := http.NewRequest(m, url, nil)
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			var e struct{ Code string }
			json.NewDecoder(res.Body).Decode(&e)
			res.Body.Close()
			got := strings.Split(res.Header.Get("Allow"), ", ")
			slices.Sort(got)
			if res.StatusCode != http.StatusMethodNotAllowed || e.Code != "method_not_allowed" || !slices.Equal(got, allowed) {
				t.Errorf("%s %s = %d %q, Allow %v; want 405 method_not_allowed, Allow %v", m, path, res.StatusCode, e.Code, got, allowed)
			}
		}
	}
}

// isAPIPath tells the API (documented in /openapi.json) from dashboard pages.
func isAPIPath(p string) bool {
	return strings.HasPrefix(p, "/v1/") || strings.HasPrefix(p, "/v2/") || strings.HasPrefix(p, "/api/") || strings.HasPrefix(p, "/webhooks/") ||
		p == "/js/folio.js" || p == "/openapi.json" || p == "/healthz" || p == "/readyz"
}
