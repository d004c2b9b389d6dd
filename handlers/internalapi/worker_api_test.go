package internalapi

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/folio-docs/folio/agent"
	"github.com/folio-docs/folio/doccheck"
	"github.com/folio-docs/folio/jobs"
	"github.com/folio-docs/folio/model"
	"github.com/folio-docs/folio/tasks"
)

// exchange is one call of testdata/worker_api_e23df96.jsonl: what a worker
// of e23df96, the release before the worker API had a version, sent, and
// what its serve answered (the generator is beside it).
type exchange struct {
	Op       string `json:"op"`
	Request  string `json:"request"`
	Status   int    `json:"status"`
	Response string `json:"response"`
}

func previousRelease(t *testing.T) []exchange {
	t.Helper()
	f, err := os.Open("testdata/worker_api_e23df96.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []exchange
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var e exchange
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatal(err)
		}
		out = append(out, e)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(out) != 10 {
		t.Fatalf("%d exchanges in the fixture, want 10", len(out))
	}
	return out
}

func at(ms int64) time.Time            { return time.UnixMilli(ms).UTC() }
func atPtr(ms int64) *time.Time        { t := at(ms); return &t }
func strPtr(s string) *string          { return &s }
func rawJSON(s string) json.RawMessage { return json.RawMessage(s) }

// The values the generator's store held and its worker sent.
var (
	wireJob = model.Job{ID: "j1", ProjectID: "p1", Status: model.JobActive, Repository: "acme/docs", Ref: "main", Model: "gpt-x",
		Branch: "folio/j1", PRLink: "https://github.com/acme/docs/pull/7", ErrorCode: "model_error", ErrorMessage: "The model said no.",
		Turn: 2, Recovery: 1, Attempts: 3, LeaseOwner: "worker-1", LeaseUntil: atPtr(1790000000123), CreatedAt: at(1780000000001),
		UpdatedAt: at(1780000000999), ArchivedAt: atPtr(1790000000456), Steps: 11, Tokens: 99999999999,
		Summary: strPtr(`Fixed <the> "quickstart" & links`), Problems: `[{"path":"docs.json","line":3,"severity":"error","message":"bad"}]`,
		MergedAt: atPtr(1790000000789), MergeCommit: "fedcba9876543210fedcba9876543210fedcba98", StatusChanges: 4}
	wireProject = model.Project{ID: "p1", Name: "Docs & more", Repository: "acme/docs", Ref: "main", Model: "gpt-x", OwnerID: "u1",
		WebhookURL: "https://hooks.example/f", WebhookSecret: "secret", DraftPRs: true, AllowedDomains: "docs.acme.dev",
		CreatedAt: at(1770000000001), UpdatedAt: at(1770000000002)}
	wireHistory = []agent.Message{
		{Role: agent.RoleUser, Content: "Fix the quickstart", CreatedAt: at(1780000000001)},
		{Role: agent.RoleAssistant, ToolCalls: []agent.ToolCall{{ID: "c1", Name: "read_file", Arguments: rawJSON(`{"path":"a.mdx"}`)}}, CreatedAt: at(1780000000002)},
		{Role: agent.RoleTool, Content: "no such file", ToolCallID: "c1", ToolName: "read_file", IsError: true, CreatedAt: at(1780000000003)},
	}
	wireRun     = tasks.AgentRun{JobID: "j1", Turn: 2, Recovery: 1, EnqueuedAt: 1780000000500}
	wireMessage = agent.Message{Role: agent.RoleAssistant, Content: `Done <ok> & "fine"`,
		ToolCalls: []agent.ToolCall{{ID: "c2", Name: "write_file", Arguments: rawJSON(`{"path":"b.mdx","content":"x"}`)}}, CreatedAt: at(1780000000004)}
	wireResult = agent.Result{PRLink: "https://github.com/acme/docs/pull/7", Changed: true, Steps: 3, Tokens: 4567, Summary: "Fixed <the> links",
		Problems: []doccheck.Problem{{Path: "docs.json", Line: 3, Column: 14, Severity: "error", Message: "bad"}, {Path: "a.mdx", Severity: "warning", Message: "w"}}}
)

// fixedStore answers as the generator's did and records what it is given.
type fixedStore struct{ calls []any }

func (s *fixedStore) ClaimRun(ctx context.Context, run tasks.AgentRun, owner string, lease time.Duration) (model.Job, bool, error) {
	s.calls = append(s.calls, []any{"claim", run, owner, lease})
	return wireJob, true, nil
}
func (s *fixedStore) ExtendLease(ctx context.Context, jobID, owner string, lease time.Duration) (bool, error) {
	s.calls = append(s.calls, []any{"extend", jobID, owner, lease})
	return true, nil
}
func (s *fixedStore) ReleaseRun(ctx context.Context, jobID, owner string) (bool, error) {
	s.calls = append(s.calls, []any{"release", jobID, owner})
	return true, nil
}
func (s *fixedStore) Project(ctx context.Context, projectID string) (model.Project, error) {
	s.calls = append(s.calls, []any{"project", projectID})
	return wireProject, nil
}
func (s *fixedStore) History(ctx context.Context, jobID string, turn int) ([]agent.Message, error) {
	s.calls = append(s.calls, []any{"history", jobID, turn})
	return wireHistory, nil
}
func (s *fixedStore) AddMessage(ctx context.Context, jobID string, turn int, owner string, m agent.Message) error {
	s.calls = append(s.calls, []any{"message", jobID, turn, owner, m})
	return nil
}
func (s *fixedStore) AddUsage(ctx context.Context, jobID string, u model.RunUsage) error {
	s.calls = append(s.calls, []any{"usage", jobID, u})
	return nil
}
func (s *fixedStore) FinishRun(ctx context.Context, jobID, owner string, res agent.Result) error {
	s.calls = append(s.calls, []any{"finish", jobID, owner, res})
	return nil
}
func (s *fixedStore) FailRun(ctx context.Context, jobID, owner, code, message string) error {
	s.calls = append(s.calls, []any{"fail", jobID, owner, code, message})
	return nil
}

// A worker of the previous release, which names no version, is understood:
// serve takes what it sent as it meant it, and answers it in the bytes that
// release's serve did (hello adds only the version, which it ignores).
func TestWorkerAPIUnderstandsWorkersOfThePreviousRelease(t *testing.T) {
	store := &fixedStore{}
	api := WorkerAPI(store, jobs.ServerInfo{BaseURL: "https://folio.example"})
	for _, e := range previousRelease(t) {
		req := httptest.NewRequest(http.MethodPost, jobs.WorkerAPIPath+e.Op, strings.NewReader(e.Request))
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		api.ServeHTTP(rec, req)
		want := e.Response
		if e.Op == "hello" {
			want = `{"baseUrl":"https://folio.example","workerApi":1}` + "\n"
		}
		if rec.Code != e.Status || rec.Body.String() != want {
			t.Errorf("%s: %d %s\nthe previous release answered %d %s", e.Op, rec.Code, rec.Body, e.Status, want)
		}
	}
	lease := 90 * time.Second
	want := []any{
		[]any{"claim", wireRun, "worker-1", lease}, []any{"project", "p1"}, []any{"history", "j1", 2},
		[]any{"project", "p-other"}, []any{"history", "j1", 1},
		[]any{"extend", "j1", "worker-1", lease},
		[]any{"message", "j1", 2, "worker-1", wireMessage},
		// A worker of before sent no split and no cost: the cost is unknown.
		[]any{"usage", "j1", model.RunUsage{Steps: 3, Tokens: 4567}},
		[]any{"finish", "j1", "worker-1", wireResult},
		[]any{"fail", "j1", "worker-1", "model_error", "The model said no."},
		[]any{"release", "j1", "worker-1"},
	}
	if !reflect.DeepEqual(store.calls, want) {
		t.Errorf("the store was asked\n%v\nwant\n%v", store.calls, want)
	}
}

// A worker of this release, against a serve of the previous one, sends the
// bytes that release's workers sent, and reads its answers to the values
// they held.
func TestRemoteStoreSpeaksToServeOfThePreviousRelease(t *testing.T) {
	ex := previousRelease(t)
	next := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if next >= len(ex) {
			t.Errorf("unexpected call %s", r.URL.Path)
			http.Error(w, "no more", http.StatusTeapot)
			return
		}
		e := ex[next]
		next++
		if op := strings.TrimPrefix(r.URL.Path, jobs.WorkerAPIPath); op != e.Op || string(body) != e.Request {
			t.Errorf("sent %s %s\nthe previous release sent %s %s", op, body, e.Op, e.Request)
		}
		if v := r.Header.Get(jobs.WorkerAPIHeader); v != "1" {
			t.Errorf("%s: %s is %q, want 1", e.Op, jobs.WorkerAPIHeader, v)
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(e.Status)
		io.WriteString(w, e.Response)
	}))
	defer srv.Close()
	ctx := context.Background()
	rs := jobs.NewRemoteStore(srv.URL, "tok", nil)
	check := func(what string, got, want any, err error) {
		t.Helper()
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %+v, %v\nwant %+v", what, got, err, want)
		}
	}
	info, err := rs.Hello(ctx)
	check("hello", info, jobs.ServerInfo{BaseURL: "https://folio.example", WorkerAPI: 1}, err)
	j, ok, err := rs.ClaimRun(ctx, wireRun, "worker-1", 90*time.Second)
	check("claim", []any{j, ok}, []any{wireJob, true}, err)
	p, err := rs.Project(ctx, "p-other")
	forWorker := wireProject
	forWorker.WebhookURL, forWorker.WebhookSecret = "", ""
	check("project", p, forWorker, err)
	h, err := rs.History(ctx, "j1", 1)
	check("history", h, wireHistory, err)
	ok, err = rs.ExtendLease(ctx, "j1", "worker-1", 90*time.Second)
	check("extend", ok, true, err)
	check("message", nil, nil, rs.AddMessage(ctx, "j1", 2, "worker-1", wireMessage))
	check("usage", nil, nil, rs.AddUsage(ctx, "j1", model.RunUsage{Steps: 3, Tokens: 4567}))
	check("finish", nil, nil, rs.FinishRun(ctx, "j1", "worker-1", wireResult))
	check("fail", nil, nil, rs.FailRun(ctx, "j1", "worker-1", "model_error", "The model said no."))
	ok, err = rs.ReleaseRun(ctx, "j1", "worker-1")
	check("release", ok, true, err)
	if next != len(ex) {
		t.Errorf("%d calls made, the previous release made %d", next, len(ex))
	}
}

// Another version is refused in words that name both, by serve on every
// call and by a worker at hello.
func TestWorkerAPIRefusesAnotherVersion(t *testing.T) {
	store := &fixedStore{}
	api := WorkerAPI(store, jobs.ServerInfo{BaseURL: "https://folio.example"})
	req := httptest.NewRequest(http.MethodPost, jobs.WorkerAPIPath+"usage", strings.NewReader(`{"jobId":"j1","steps":1,"tokens":2}`))
	req.Header.Set(jobs.WorkerAPIHeader, "2")
	rec := httptest.NewRecorder()
	api.ServeHTTP(rec, req)
	var body struct{ Error, Code string }
	json.Unmarshal(rec.Body.Bytes(), &body)
	if rec.Code != http.StatusBadRequest || body.Code != "invalid_request" ||
		!strings.Contains(body.Error, "version 1 of the worker API") || !strings.Contains(body.Error, `version "2"`) {
		t.Errorf("version 2 answered %d %s", rec.Code, rec.Body)
	}
	if len(store.calls) != 0 {
		t.Errorf("the store was asked %v", store.calls)
	}

	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `{"baseUrl":"https://folio.example","workerApi":2}`)
	}))
	defer srv.Close()
	_, err := jobs.NewRemoteStore(srv.URL, "tok", nil).Hello(context.Background())
	if !errors.Is(err, jobs.ErrWorkerAPIVersion) || !strings.Contains(err.Error(), "serve speaks version 2, this worker 1") {
		t.Errorf("hello of a version-2 serve: %v", err)
	}
}

// What a run used reaches serve whole from a worker of this release: the
// tokens split and the cost, a cost of 0 included.
func TestWorkerAPICarriesTheWholeUsage(t *testing.T) {
	store := &fixedStore{}
	srv := httptest.NewServer(WorkerAPI(store, jobs.ServerInfo{BaseURL: "https://folio.example"}))
	defer srv.Close()
	rs := jobs.NewRemoteStore(srv.URL, "tok", nil)
	zero := int64(0)
	sent := []model.RunUsage{
		{Steps: 2, Tokens: 1050, Input: 1000, Output: 50, Cached: 600, CacheWrite: 100, CostMicros: new(int64(1830))},
		{Steps: 1, Tokens: 10, Input: 10, CostMicros: &zero},
		{Steps: 1, Tokens: 10, Input: 10},
	}
	var want []any
	for _, u := range sent {
		if err := rs.AddUsage(context.Background(), "j1", u); err != nil {
			t.Fatal(err)
		}
		want = append(want, []any{"usage", "j1", u})
	}
	if !reflect.DeepEqual(store.calls, want) {
		t.Errorf("the store was asked\n%+v\nwant\n%+v", store.calls, want)
	}
}
