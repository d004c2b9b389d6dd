package main

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/a-h/templ"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/gorilla/mux"

	"github.com/folio-docs/folio/components"
	"github.com/folio-docs/folio/handlers/api"
	"github.com/folio-docs/folio/static"
)

// chromiumPath is Debian's Chromium; the test command installs it
// (apt-get install -y chromium).
const chromiumPath = "/usr/bin/chromium"

// browsers holds the place of the one Chromium running: the browser tests
// run in parallel with the others, but Chromium is heavy on the CPU and
// their steps have time limits (two at once, beside the rest of the
// package under -race, missed the 15 s a step on a loaded 2-core machine).
var browsers = make(chan struct{}, 1)

// newBrowser starts headless Chromium with a fresh profile and returns a
// tab's context. Dialogs (the revoke confirmation) are accepted.
func newBrowser(t *testing.T, extra ...chromedp.ExecAllocatorOption) context.Context {
	t.Helper()
	if _, err := exec.LookPath(chromiumPath); err != nil {
		t.Fatalf("Chromium is needed at %s for the browser tests: apt-get install -y chromium (%v)", chromiumPath, err)
	}
	browsers <- struct{}{}
	t.Cleanup(func() { <-browsers })
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromiumPath),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1280, 900),
	)
	opts = append(opts, extra...)
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(func() { cancel(); cancelAlloc() })
	if err := chromedp.Do(ctx, chromedp.Navigate("about:blank")); err != nil {
		t.Fatalf("start Chromium: %v", err)
	}
	dialogs := chromedp.Events(ctx, page.JavascriptDialogOpening)
	go func() {
		for _, err := range dialogs {
			if err != nil {
				return
			}
			chromedp.Call(ctx, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: true})
		}
	}()
	tctx, tcancel := context.WithTimeout(ctx, browserTestWithin)
	t.Cleanup(tcancel)
	return tctx
}

// browserTestWithin bounds a browser test as a whole, in case Chromium
// hangs; each step has its own limit (do). The accessibility tour's many
// pages took over 90 s with -race while the other tests ran beside it.
const browserTestWithin = 4 * time.Minute

// screenshotDir is $FOLIO_SCREENSHOTS, or a temporary directory.
func screenshotDir(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("FOLIO_SCREENSHOTS")
	if dir == "" {
		dir = t.TempDir()
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshots in %s", dir)
	return dir
}

func shoot(t *testing.T, ctx context.Context, dir, name string) {
	t.Helper()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
}

func do(t *testing.T, ctx context.Context, what string, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	sctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	if err := chromedp.Do(sctx, steps...); err != nil {
		loc, _ := chromedp.Run(ctx, chromedp.Location())
		t.Fatalf("%s (at %s): %v", what, loc, err)
	}
}

func text(t *testing.T, ctx context.Context, sel string) string {
	t.Helper()
	s, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(sel)))
	if err != nil {
		t.Fatalf("read %s: %v", sel, err)
	}
	return strings.TrimSpace(s)
}

// apiStatus calls the API with key and returns the status. It asks the
// job list (GET /v2/agent/{id}/jobs) of the real router; until the jobs API
// is mounted there, it asks the same key middleware on a route of its own.
func (s *testServer) apiStatus(t *testing.T, projectID, key string) int {
	t.Helper()
	call := func(base string) (*http.Response, map[string]any) {
		req, _ := http.NewRequest(http.MethodGet, base+"/v2/agent/"+projectID+"/jobs", nil)
		req.Header.Set("Authorization", "Bearer "+key)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var body map[string]any
		json.NewDecoder(res.Body).Decode(&body)
		return res, body
	}
	res, body := call(s.URL)
	if msg, _ := body["error"].(string); res.StatusCode != http.StatusNotFound || !strings.HasPrefix(msg, "No such endpoint") {
		return res.StatusCode
	}
	t.Log("GET /v2/agent/{id}/jobs is not mounted yet: checking the key with api.RequireAPIKey on a route of the test's own")
	r := mux.NewRouter()
	agent := r.PathPrefix("/v2/agent/{projectId}").Subrouter()
	agent.Use(api.RequireAPIKey(s.app.keys))
	agent.HandleFunc("/jobs", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusOK) })
	probe := httptest.NewServer(r)
	defer probe.Close()
	res, _ = call(probe.URL)
	return res.StatusCode
}

func TestDashboardInBrowser(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, withEnv(map[string]string{"FOLIO_SIGNUP": "invite"}))
	ctx := newBrowser(t)
	dir := screenshotDir(t)

	// Signed out, a page sends the browser to sign in.
	do(t, ctx, "open /projects signed out", chromedp.Navigate(s.URL+"/projects"), chromedp.WaitVisible(chromedp.CSS(`form[action="/login"]`)))
	if loc, _ := chromedp.Run(ctx, chromedp.Location()); !strings.Contains(loc, "/login?next=") {
		t.Errorf("signed out /projects went to %s, want /login?next=…", loc)
	}
	shoot(t, ctx, dir, "01-login")

	// The first user signs up, whatever the policy.
	do(t, ctx, "sign up",
		chromedp.Navigate(s.URL+"/signup"),
		chromedp.WaitVisible(chromedp.CSS(`form[action="/signup"]`)),
	)
	shoot(t, ctx, dir, "02-signup-first-user")
	do(t, ctx, "fill sign-up",
		chromedp.SendKeys(chromedp.CSS(`input[name=email]`), "ada@example.com"),
		chromedp.SendKeys(chromedp.CSS(`input[name=password]`), "correct horse battery"),
		chromedp.Click(chromedp.CSS(`form[action="/signup"] button`)),
		chromedp.WaitVisible(chromedp.CSS(`.empty-card`)),
	)
	if got := text(t, ctx, ".account-email"); got != "ada@example.com" {
		t.Errorf("top bar shows %q, want the signed-in email", got)
	}
	shoot(t, ctx, dir, "03-projects-empty")
	teammate := s.addUser(t, "grace@example.com") // made by an operator: sign-up is invite-only after the first user

	// Create a project; it opens on its keys page.
	do(t, ctx, "create project",
		chromedp.SendKeys(chromedp.CSS(`form[action="/projects"] input[name=name]`), "Acme handbook"),
		chromedp.SendKeys(chromedp.CSS(`form[action="/projects"] input[name=repository]`), "acme/handbook"),
		chromedp.Click(chromedp.CSS(`form[action="/projects"] button`)),
		chromedp.WaitVisible(chromedp.ID("project-id")),
	)
	projectID := text(t, ctx, "#project-id")
	p, err := s.app.db.ProjectByID(context.Background(), projectID)
	if err != nil || p.Name != "Acme handbook" || p.Repository != "acme/handbook" || p.Ref != "main" {
		t.Fatalf("project %q after create: %+v, %v", projectID, p, err)
	}
	shoot(t, ctx, dir, "04-keys-empty")

	// Generate a key: shown once, with a copy button.
	do(t, ctx, "generate key",
		chromedp.SendKeys(chromedp.CSS(`input[name=name]`), "CI publisher"),
		chromedp.SetValue(chromedp.CSS(`select[name=expiry]`), "30d"),
		chromedp.Click(chromedp.CSS(`form[action$="/keys"] button`)),
		chromedp.WaitVisible(chromedp.ID("new-key")),
	)
	key := text(t, ctx, "#new-key")
	if !strings.HasPrefix(key, "folio_") || len(key) != 42 {
		t.Fatalf("new key shown as %q", key)
	}
	do(t, ctx, "copy key", chromedp.Click(chromedp.CSS(`[data-copy=new-key]`)), chromedp.WaitVisible(chromedp.CSS(`[data-copy=new-key].copied`)))
	shoot(t, ctx, dir, "05-key-created")

	// The key works against the API, and the list records its use.
	if code := s.apiStatus(t, projectID, key); code != http.StatusOK {
		t.Fatalf("API with the new key: got %d, want 200", code)
	}
	do(t, ctx, "reload keys", chromedp.Navigate(s.URL+"/projects/"+projectID+"/keys"), chromedp.WaitVisible(chromedp.ID("keys")))
	if strings.Contains(mustHTML(t, ctx), key) {
		t.Error("the keys page shows the key again after reload")
	}
	if got := text(t, ctx, `#keys td[data-label="Last used"]`); got != "just now" {
		t.Errorf("last used shows %q, want just now", got)
	}
	if got := text(t, ctx, `#keys td[data-label="Key"]`); got != "folio_…"+key[len(key)-4:] {
		t.Errorf("key column shows %q, want its last four", got)
	}

	// Revoke it after the confirmation; the API refuses it at once.
	do(t, ctx, "revoke key",
		chromedp.Click(chromedp.CSS(`#keys form[action$="/revoke"] button`)),
		chromedp.WaitVisible(chromedp.CSS(`#keys tr.key-revoked`)),
	)
	shoot(t, ctx, dir, "06-key-revoked")
	if code := s.apiStatus(t, projectID, key); code != http.StatusUnauthorized {
		t.Errorf("API with the revoked key: got %d, want 401", code)
	}

	// Settings: model, webhook, allowed domains; then a member.
	do(t, ctx, "edit settings",
		chromedp.Click(chromedp.CSS(`.tabs a[href="/projects/`+projectID+`"]`)),
		chromedp.WaitVisible(chromedp.CSS(`input[name=model]`)),
		chromedp.SendKeys(chromedp.CSS(`input[name=model]`), "gpt-4.1-mini"),
		chromedp.Click(chromedp.CSS(`input[name=draft_prs]`)),
		chromedp.SendKeys(chromedp.CSS(`input[name=webhook_url]`), "https://hooks.acme.example/folio"),
		chromedp.SendKeys(chromedp.CSS(`input[name=webhook_secret]`), "whsec-test"),
		chromedp.SendKeys(chromedp.CSS(`textarea[name=allowed_domains]`), "Docs.Acme.example, *.acme.dev"),
		chromedp.Click(chromedp.CSS(`.form-actions button`)),
		chromedp.WaitVisible(chromedp.CSS(`.notice-ok`)),
	)
	if got := text(t, ctx, ".notice-ok"); got != "Settings saved." {
		t.Errorf("after saving settings the notice says %q", got)
	}
	p, _ = s.app.db.ProjectByID(context.Background(), projectID)
	if p.Model != "gpt-4.1-mini" || !p.DraftPRs || p.WebhookURL != "https://hooks.acme.example/folio" || p.WebhookSecret != "whsec-test" || p.AllowedDomains != "docs.acme.example,*.acme.dev" {
		t.Errorf("settings saved as %+v", p)
	}
	do(t, ctx, "add member",
		chromedp.SendKeys(chromedp.ID("member-email"), teammate.Email),
		chromedp.Click(chromedp.CSS(`form[action$="/members"] button`)),
		chromedp.WaitVisible(chromedp.CSS(`.member-list li:nth-child(2)`)),
	)
	if ok, _ := s.app.db.IsProjectMember(context.Background(), projectID, teammate.ID); !ok {
		t.Error("the teammate is not a member after Add member")
	}
	if got := text(t, ctx, ".member-list"); !strings.Contains(got, teammate.Email) {
		t.Errorf("member list shows %q", got)
	}
	shoot(t, ctx, dir, "07-settings-and-members")

	// The API reference renders what /openapi.json holds, or says it is not there.
	do(t, ctx, "API reference", chromedp.Navigate(s.URL+"/docs/api"), chromedp.WaitVisible(chromedp.CSS(`#api-reference[data-rendered]`)))
	rendered, _ := chromedp.Run(ctx, chromedp.AttributeValue(chromedp.CSS("#api-reference"), "data-rendered"))
	res, err := http.Get(s.URL + "/openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	json.NewDecoder(res.Body).Decode(&doc)
	res.Body.Close()
	ops := 0
	for _, item := range doc.Paths {
		for m := range item {
			switch m {
			case "get", "post", "put", "patch", "delete", "head":
				ops++
			}
		}
	}
	if want := strconv.Itoa(ops); rendered.Value != want {
		t.Errorf("API reference rendered %s operations; /openapi.json (status %d) has %s", rendered.Value, res.StatusCode, want)
	}
	shoot(t, ctx, dir, "08-api-reference")

	// A phone.
	do(t, ctx, "phone keys", chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile), chromedp.Navigate(s.URL+"/projects/"+projectID+"/keys"), chromedp.WaitVisible(chromedp.ID("keys")))
	shoot(t, ctx, dir, "09-keys-phone")
	do(t, ctx, "phone settings", chromedp.Navigate(s.URL+"/projects/"+projectID), chromedp.WaitVisible(chromedp.CSS(`input[name=model]`)))
	shoot(t, ctx, dir, "10-settings-phone")
	do(t, ctx, "desktop again", chromedp.EmulateViewport(1280, 900))

	// Sign out; the pages are closed again.
	do(t, ctx, "sign out",
		chromedp.Navigate(s.URL+"/projects"),
		chromedp.WaitVisible(chromedp.CSS(`form[action="/logout"] button`)),
		chromedp.Click(chromedp.CSS(`form[action="/logout"] button`)),
		chromedp.WaitVisible(chromedp.CSS(`form[action="/login"]`)),
		chromedp.Navigate(s.URL+"/projects/"+projectID+"/keys"),
		chromedp.WaitVisible(chromedp.CSS(`form[action="/login"]`)),
	)
}

func mustHTML(t *testing.T, ctx context.Context) string {
	t.Helper()
	html, err := chromedp.Run(ctx, chromedp.OuterHTML(chromedp.CSS("html")))
	if err != nil {
		t.Fatal(err)
	}
	return html
}

// sampleOpenAPI is an OpenAPI 3.1 document in the shape the jobs API
// publishes: tags, path parameters, a $ref'd request body and responses.
const sampleOpenAPI = `{
  "openapi": "3.1.0",
  "info": {"title": "Folio API", "version": "2"},
  "paths": {
    "/v2/agent/{projectId}/job": {
      "post": {"tags": ["Agent jobs"], "operationId": "createJob", "summary": "Create a job",
        "parameters": [{"$ref": "#/components/parameters/projectId"}, {"name": "Idempotency-Key", "in": "header", "schema": {"type": "string"}}],
        "requestBody": {"required": true, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Prompt"}}}},
        "responses": {"201": {"description": "The job", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Job"}}}},
                      "429": {"description": "Rate limited"}}}
    },
    "/v2/agent/{projectId}/job/{id}": {
      "get": {"tags": ["Agent jobs"], "summary": "Get a job", "parameters": [{"$ref": "#/components/parameters/projectId"}, {"name": "id", "in": "path", "required": true}],
        "responses": {"200": {"description": "The job", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Job"}}}}}}
    },
    "/v1/analytics/{projectId}/visitors": {
      "get": {"tags": ["Analytics"], "summary": "Visitors per path <script>alert(1)</script>", "responses": {"200": {"description": "Counts"}}}
    }
  },
  "components": {
    "parameters": {"projectId": {"name": "projectId", "in": "path", "required": true, "schema": {"type": "string"}}},
    "schemas": {
      "Prompt": {"type": "object", "properties": {"prompt": {"type": "string", "example": "Fix the typo in the install guide"}}},
      "Job": {"type": "object", "properties": {"id": {"type": "string"}, "status": {"enum": ["active", "completed", "failed", "archived"]}, "prLink": {"type": ["string", "null"]}}}
    }
  }
}`

// TestAPIReferenceRendersOpenAPI runs the reference page's script in the
// browser over a document like the one /openapi.json serves.
func TestAPIReferenceRendersOpenAPI(t *testing.T) {
	t.Parallel()
	mux := http.NewServeMux()
	mux.Handle("/static/", static.Handler())
	mux.Handle("/docs/api", templ.Handler(components.APIDocsPage(components.Shell{Title: "API reference"})))
	mux.HandleFunc("/openapi.json", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(sampleOpenAPI))
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	ctx := newBrowser(t)
	do(t, ctx, "open the reference", chromedp.Navigate(srv.URL+"/docs/api"), chromedp.WaitVisible(chromedp.CSS(`#api-reference[data-rendered]`)))
	if got, _ := chromedp.Run(ctx, chromedp.AttributeValue(chromedp.CSS("#api-reference"), "data-rendered")); got.Value != "3" {
		t.Errorf("rendered %q operations, want 3", got.Value)
	}
	if got := text(t, ctx, "#api-reference"); !strings.Contains(got, "Agent jobs") || !strings.Contains(got, "Analytics") {
		t.Errorf("tags missing from %q", got)
	}
	do(t, ctx, "open createJob", chromedp.Click(chromedp.CSS(`#createJob summary`)), chromedp.WaitVisible(chromedp.CSS(`#createJob pre`)))
	body := text(t, ctx, "#createJob")
	for _, want := range []string{"POST", "/v2/agent/{projectId}/job", "projectId", "Idempotency-Key", "Fix the typo in the install guide", "Response 201", `"status": "active"`, `"prLink": "string"`} {
		if !strings.Contains(strings.ToLower(body), strings.ToLower(want)) { // headings are upper-cased by CSS
			t.Errorf("createJob panel lacks %q:\n%s", want, body)
		}
	}
	if n, _ := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("#api-reference script").length`)); n != 0 {
		t.Errorf("a summary from the document became %d script elements", n)
	}
	if dir := os.Getenv("FOLIO_SCREENSHOTS"); dir != "" {
		shoot(t, ctx, dir, "11-api-reference-rendered")
	}
}
