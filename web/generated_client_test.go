package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"

	"github.com/folio-docs/folio/handlers/api"
	"github.com/folio-docs/folio/internal/oapiclient"
	"github.com/folio-docs/folio/internal/testenv"
)

// validatingDoer sends the generated client's requests and checks every
// answer against Folio's OpenAPI document with kin-openapi: its status
// must be documented for the operation, and its body valid by the schema.
type validatingDoer struct {
	t      *testing.T
	router routers.Router
	mu     sync.Mutex
	seen   map[string]bool // "operationId status"
}

func (v *validatingDoer) Do(req *http.Request) (*http.Response, error) {
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	body, err := io.ReadAll(res.Body)
	res.Body.Close()
	if err != nil {
		return nil, err
	}
	res.Body = io.NopCloser(bytes.NewReader(body))
	route, params, err := v.router.FindRoute(req)
	if err != nil {
		v.t.Errorf("%s %s: not in the OpenAPI document: %v", req.Method, req.URL.Path, err)
		return res, nil
	}
	in := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route},
		Status:                 res.StatusCode, Header: res.Header, Body: io.NopCloser(bytes.NewReader(body)),
		Options: &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true},
	}
	if err := openapi3filter.ValidateResponse(req.Context(), in); err != nil {
		v.t.Errorf("%s %s: %d does not validate: %v\n%s", req.Method, req.URL, res.StatusCode, err, body)
	}
	v.mu.Lock()
	v.seen[route.Operation.OperationID+" "+res.Status[:3]] = true
	v.mu.Unlock()
	return res, nil
}

// TestGeneratedClient: a Go client generated with oapi-codegen from Folio's
// own OpenAPI document (internal/oapiclient) makes every call a Mintlify
// client makes (create a job, a follow-up, get the job, the visitors and
// views exports, the searches and feedback exports, the assistant's)
// against a real Folio over a socket, and kin-openapi validates every
// answer against the document the server serves.
func TestGeneratedClient(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, withModel(t, testenv.NewModelServer(t, nil)))
	s.useRepository(t, newDocsRepo(t))
	ctx := context.Background()

	// The document served is the one the client was generated from.
	res, err := http.Get(s.URL + "/openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	served, _ := io.ReadAll(res.Body)
	res.Body.Close()
	committed, err := os.ReadFile("../internal/oapiclient/openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	if want, _ := json.MarshalIndent(api.FolioOpenAPI("http://folio.test"), "", "  "); !bytes.Equal(bytes.TrimSpace(committed), want) {
		t.Errorf("internal/oapiclient/openapi.json is not the document Folio serves: run go generate ./internal/oapiclient")
	}
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(served)
	if err != nil {
		t.Fatalf("kin-openapi loads /openapi.json: %v", err)
	}
	if err := doc.Validate(ctx); err != nil {
		t.Fatalf("kin-openapi validates /openapi.json: %v", err)
	}
	doc.Servers = openapi3.Servers{{URL: s.URL}}
	router, err := gorillamux.NewRouter(doc)
	if err != nil {
		t.Fatal(err)
	}
	doer := &validatingDoer{t: t, router: router, seen: map[string]bool{}}
	bearer := func(_ context.Context, req *http.Request) error {
		req.Header.Set("Authorization", "Bearer "+s.key)
		return nil
	}
	c, err := oapiclient.NewClientWithResponses(s.URL, oapiclient.WithHTTPClient(doer), oapiclient.WithRequestEditorFn(bearer))
	if err != nil {
		t.Fatal(err)
	}
	p := s.project.ID
	ptr := func(s string) *string { return &s }
	num := func(n int) *int { return &n }

	// Agent jobs: create, wait, follow up, get.
	created, err := c.CreateJobWithResponse(ctx, p, nil, oapiclient.CreateJobRequest{Prompt: "Document how to rotate API keys."})
	if err != nil || created.JSON201 == nil {
		t.Fatalf("create job: %v %s", err, created.Body)
	}
	id := created.JSON201.Id
	done := func() oapiclient.Job {
		t.Helper()
		var j oapiclient.Job
		ended := s.awaitJob(id, 30*time.Second, func() bool {
			got, err := c.GetJobWithResponse(ctx, p, id)
			if err != nil || got.JSON200 == nil {
				t.Fatalf("get job: %v %s", err, got.Body)
			}
			j = *got.JSON200
			return j.Status != "active"
		})
		if !ended {
			t.Fatalf("job %s still active after 30 s", id)
		}
		return j
	}
	if j := done(); j.Status != "completed" {
		t.Fatalf("job ended %s", j.Status)
	}
	followed, err := c.SendJobMessageWithResponse(ctx, p, id, nil, oapiclient.PromptRequest{Prompt: "Also mention the expiry."})
	if err != nil || followed.JSON200 == nil {
		t.Fatalf("follow-up: %v %s", err, followed.Body)
	}
	done()

	// Traffic, searches and feedback, as a docs host reports them.
	events, err := c.RecordEventsWithBodyWithResponse(ctx, p, nil, "application/json", strings.NewReader(`{"events":[
		{"path":"/docs/keys","timestamp":"2026-02-01T10:00:00Z","userAgent":"Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0","ip":"192.0.2.1"},
		{"path":"/docs/keys.md","timestamp":"2026-02-01T10:01:00Z","userAgent":"Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; ChatGPT-User/1.0; +https://openai.com/bot)","ip":"192.0.2.9"},
		{"type":"search","timestamp":"2026-02-01T10:02:00Z","query":"rotate keys","hits":3},
		{"type":"search","timestamp":"2026-02-01T10:03:00Z","query":"webhooks","hits":0},
		{"type":"searchClick","timestamp":"2026-02-01T10:02:05Z","query":"rotate keys","path":"/docs/keys"},
		{"type":"feedback","timestamp":"2026-02-01T10:04:00Z","path":"/docs/keys","helpful":false,"source":"contextual","comment":"No CLI example.","contact":"ada@example.com"},
		{"type":"feedback","timestamp":"2026-02-01T10:05:00Z","path":"/docs/keys","helpful":true,"source":"thumbs_only"},
		{"type":"feedback","timestamp":"2026-02-01T10:06:00Z","path":"/docs/cli","source":"code_snippet","code":"folio key create","lang":"sh"}]}`))
	if err != nil || events.JSON200 == nil || events.JSON200.Accepted != 8 {
		t.Fatalf("events: %v %s", err, events.Body)
	}

	// The visitors and views exports, Mintlify's own example first.
	empty, err := c.GetUniqueVisitorsWithResponse(ctx, p, &oapiclient.GetUniqueVisitorsParams{DateFrom: ptr("2024-01-01"), DateTo: ptr("2024-01-01")})
	if err != nil || empty.JSON200 == nil || len(empty.JSON200.Visitors) != 0 {
		t.Errorf("visitors of an empty range: %v %s", err, empty.Body)
	}
	visitors, err := c.GetUniqueVisitorsWithResponse(ctx, p, &oapiclient.GetUniqueVisitorsParams{DateFrom: ptr("2026-02-01"), DateTo: ptr("2026-02-02"), Limit: num(50)})
	if err != nil || visitors.JSON200 == nil || visitors.JSON200.Totals.Total != 2 {
		t.Errorf("visitors: %v %s", err, visitors.Body)
	}
	views, err := c.GetPageViewsWithResponse(ctx, p, &oapiclient.GetPageViewsParams{DateFrom: ptr("2026-02-01T00:00:00.000001Z")})
	if err != nil || views.JSON200 == nil || views.JSON200.Totals.Human != 1 || views.JSON200.Totals.Ai != 1 {
		t.Errorf("views: %v %s", err, views.Body)
	}

	// Searches, paged by cursor to the end.
	var terms []string
	params := &oapiclient.GetSearchesParams{DateFrom: ptr("2026-02-01"), Limit: num(1)}
	for range 5 {
		page, err := c.GetSearchesWithResponse(ctx, p, params)
		if err != nil || page.JSON200 == nil {
			t.Fatalf("searches: %v %s", err, page.Body)
		}
		for _, row := range page.JSON200.Searches {
			terms = append(terms, row.SearchQuery)
		}
		if page.JSON200.TotalSearches != 2 {
			t.Errorf("totalSearches %d, want 2", page.JSON200.TotalSearches)
		}
		if page.JSON200.NextCursor == nil {
			break
		}
		params.Cursor = page.JSON200.NextCursor
	}
	if strings.Join(terms, ",") != "rotate keys,webhooks" {
		t.Errorf("searches paged through %v", terms)
	}

	// Feedback in its two shapes, filtered, and by page.
	source := oapiclient.GetFeedbackParamsSourceContextual
	fb, err := c.GetFeedbackWithResponse(ctx, p, &oapiclient.GetFeedbackParams{Source: &source, Status: ptr("pending,in_progress")})
	if err != nil || fb.JSON200 == nil || len(fb.JSON200.Feedback) != 1 {
		t.Fatalf("feedback: %v %s", err, fb.Body)
	}
	if page, err := fb.JSON200.Feedback[0].AsPageFeedback(); err != nil || page.Helpful || page.Contact == nil || *page.Contact != "ada@example.com" {
		t.Errorf("contextual feedback read as %+v, %v", page, err)
	}
	all, err := c.GetFeedbackWithResponse(ctx, p, &oapiclient.GetFeedbackParams{Limit: num(2)})
	if err != nil || all.JSON200 == nil || !all.JSON200.HasMore || all.JSON200.NextCursor == nil {
		t.Fatalf("feedback, two a page: %v %s", err, all.Body)
	}
	if code, err := all.JSON200.Feedback[0].AsCodeSnippetFeedback(); err != nil || code.Code != "folio key create" || code.Filename != nil {
		t.Errorf("the newest feedback read as a snippet's: %+v, %v", code, err)
	}
	rest, err := c.GetFeedbackWithResponse(ctx, p, &oapiclient.GetFeedbackParams{Limit: num(2), Cursor: all.JSON200.NextCursor})
	if err != nil || rest.JSON200 == nil || len(rest.JSON200.Feedback) != 1 || rest.JSON200.HasMore {
		t.Errorf("feedback's second page: %v %s", err, rest.Body)
	}
	byPage, err := c.GetFeedbackByPageWithResponse(ctx, p, nil)
	if err != nil || byPage.JSON200 == nil || len(byPage.JSON200.Feedback) != 2 || byPage.JSON200.Feedback[0].Path != "/docs/keys" || byPage.JSON200.Feedback[0].Total != 2 {
		t.Errorf("feedback by page: %v %s", err, byPage.Body)
	}

	// Refusals are answered as documented too.
	if bad, err := c.GetSearchesWithResponse(ctx, p, &oapiclient.GetSearchesParams{Limit: num(101)}); err != nil || bad.JSON400 == nil {
		t.Errorf("searches with limit 101: %v %d %s", err, bad.StatusCode(), bad.Body)
	}
	if none, err := c.GetAssistantConversationsWithResponse(ctx, p); err != nil || none.JSON404 == nil || !strings.Contains(none.JSON404.Error, "Folio has no assistant") {
		t.Errorf("assistant: %v %d %s", err, none.StatusCode(), none.Body)
	}
	if none, err := c.GetAssistantCallerStatsWithResponse(ctx, p); err != nil || none.JSON404 == nil {
		t.Errorf("assistant caller stats: %v %d %s", err, none.StatusCode(), none.Body)
	}

	var seen []string
	for k := range doer.seen {
		seen = append(seen, k)
	}
	sort.Strings(seen)
	want := "createJob 201,getAssistantCallerStats 404,getAssistantConversations 404,getFeedback 200,getFeedbackByPage 200,getJob 200,getPageViews 200,getSearches 200,getSearches 400,getUniqueVisitors 200,recordEvents 200,sendJobMessage 200"
	if got := strings.Join(seen, ","); got != want {
		t.Errorf("answers validated: %s\nwant %s", got, want)
	}
}
