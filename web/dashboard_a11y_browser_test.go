package main

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/folio-docs/folio/analytics"
	"github.com/folio-docs/folio/internal/testenv"
)

// axePath is axe-core (npm axe-core@4.11.0, MPL-2.0), vendored with its
// licence so the test needs no network and no node.
const axePath = "testdata/axe-core/axe.min.js"

var axeSource = sync.OnceValues(func() (string, error) {
	b, err := os.ReadFile(axePath)
	return string(b), err
})

// axeViolation is one rule axe-core found broken, with where.
type axeViolation struct {
	ID     string   `json:"id"`
	Impact string   `json:"impact"`
	Help   string   `json:"help"`
	Nodes  []string `json:"nodes"`
}

// axeCheck runs axe-core on the page the browser shows and fails the test
// on any serious or critical violation, and on content outside landmarks
// (moderate, but a screen reader's user loses the project's name and tabs);
// other moderate and minor ones are logged.
func axeCheck(t *testing.T, ctx context.Context, page string) {
	t.Helper()
	for _, v := range axeRun(t, ctx, page) {
		msg := fmt.Sprintf("%s: axe %s (%s) %s\n\t%s", page, v.ID, v.Impact, v.Help, strings.Join(v.Nodes, "\n\t"))
		if v.Impact == "serious" || v.Impact == "critical" || v.ID == "region" || strings.HasPrefix(v.ID, "landmark-") {
			t.Error(msg)
		} else {
			t.Log(msg)
		}
	}
}

// axeClean is axeCheck that fails on any violation, minor ones too.
func axeClean(t *testing.T, ctx context.Context, page string) {
	t.Helper()
	for _, v := range axeRun(t, ctx, page) {
		t.Errorf("%s: axe %s (%s) %s\n\t%s", page, v.ID, v.Impact, v.Help, strings.Join(v.Nodes, "\n\t"))
	}
}

// axeRun runs axe-core on the page the browser shows (open shadow roots
// included) and returns the rules broken.
func axeRun(t *testing.T, ctx context.Context, page string) []axeViolation {
	t.Helper()
	src, err := axeSource()
	if err != nil {
		t.Fatalf("read %s: %v", axePath, err)
	}
	actx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if _, err := chromedp.Run(actx, chromedp.Evaluate[bool](`window.axe !== undefined || (function(){`+src+`; return true})()`)); err != nil {
		t.Fatalf("%s: inject axe-core: %v", page, err)
	}
	vs, err := chromedp.Run(actx, chromedp.Evaluate[[]axeViolation](`axe.run(document, {resultTypes: ["violations"]}).then(r => r.violations.map(v => ({
		id: v.id, impact: v.impact || "", help: v.help,
		nodes: v.nodes.slice(0, 5).map(n => n.target.join(" ") + ": " + (n.failureSummary || "").replace(/\s+/g, " "))})))`, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("%s: run axe-core: %v", page, err)
	}
	return vs
}

// watchFailedRequests records every response of 400 or more the browser
// receives, but for the 404 page the tour asks for on purpose.
func watchFailedRequests(ctx context.Context) func() []string {
	var mu sync.Mutex
	var failed []string
	events := chromedp.Events(ctx, network.ResponseReceived)
	go func() {
		for ev, err := range events {
			if err != nil {
				return
			}
			if ev.Response.Status >= 400 && !strings.HasSuffix(ev.Response.URL, "/no-such-page") {
				mu.Lock()
				failed = append(failed, fmt.Sprintf("%d %s", ev.Response.Status, ev.Response.URL))
				mu.Unlock()
			}
		}
	}()
	return func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), failed...)
	}
}

// TestAccessibilityTour signs up, makes a project on a local repository,
// runs a job, merges it, records traffic, and runs axe-core on every page
// of the dashboard on the way, at desktop and phone widths. No page may
// have a serious or critical violation, nor ask for a file that is not
// there.
func TestAccessibilityTour(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, withModel(t, testenv.NewModelServer(t, nil)))
	repo := newDocsRepoIn(t, s.app.cfg.LocalRepos)
	ctx := newBrowser(t)
	failed := watchFailedRequests(ctx)

	do(t, ctx, "sign-up page", chromedp.Navigate(s.URL+"/signup"), chromedp.WaitVisible(chromedp.CSS(`form[action="/signup"]`)))
	axeCheck(t, ctx, "sign-up")
	do(t, ctx, "sign up",
		chromedp.SendKeys(chromedp.CSS(`input[name=email]`), "ada@example.com"),
		chromedp.SendKeys(chromedp.CSS(`input[name=password]`), "correct horse battery"),
		chromedp.Click(chromedp.CSS(`form[action="/signup"] button`)),
		chromedp.WaitVisible(chromedp.CSS(`form[action="/projects"]`)),
	)
	axeCheck(t, ctx, "projects (empty)")
	do(t, ctx, "create a project",
		chromedp.SendKeys(chromedp.CSS(`form[action="/projects"] input[name=name]`), "Acme handbook"),
		chromedp.SendKeys(chromedp.CSS(`form[action="/projects"] input[name=repository]`), repo),
		chromedp.Click(chromedp.CSS(`form[action="/projects"] button`)),
		chromedp.WaitVisible(chromedp.ID("project-id")),
	)
	projectID := text(t, ctx, "#project-id")
	base := s.URL + "/projects/" + projectID
	do(t, ctx, "generate a key",
		chromedp.SendKeys(chromedp.CSS(`input[name=name]`), "CI"),
		chromedp.Click(chromedp.CSS(`form[action$="/keys"] button`)),
		chromedp.WaitVisible(chromedp.ID("new-key")),
	)
	axeCheck(t, ctx, "keys (new key shown)")

	do(t, ctx, "settings", chromedp.Navigate(base), chromedp.WaitVisible(chromedp.ID("invite-email")),
		chromedp.SendKeys(chromedp.ID("invite-email"), "grace@example.com"),
		chromedp.Click(chromedp.CSS(`form[action$="/invitations"] button`)),
		chromedp.WaitVisible(chromedp.ID("invite-link")),
	)
	invite := text(t, ctx, "#invite-link")
	axeCheck(t, ctx, "settings (with an invitation)")

	do(t, ctx, "jobs", chromedp.Navigate(base+"/jobs"), chromedp.WaitVisible(chromedp.ID("launch")))
	axeCheck(t, ctx, "jobs (empty)")
	do(t, ctx, "launch a job",
		chromedp.SendKeys(chromedp.CSS(`#launch textarea[name=prompt]`), "Explain how to rotate API keys."),
		chromedp.Click(chromedp.CSS(`#launch button`)),
		chromedp.WaitVisible(chromedp.CSS(`#job-list[data-polling=false] .job-item[data-status=completed]`)),
	)
	axeCheck(t, ctx, "jobs (one completed)")
	jobID, err := chromedp.Run(ctx, chromedp.AttributeValue(chromedp.CSS(`.job-item`), "data-job-id"))
	if err != nil || jobID.Value == "" {
		t.Fatalf("the job's id in the list: %v", err)
	}
	do(t, ctx, "job page", chromedp.Click(chromedp.CSS(`.job-item .job-main`)), chromedp.WaitVisible(chromedp.ID("job-live")))
	axeCheck(t, ctx, "job page")
	do(t, ctx, "changes page", chromedp.Click(chromedp.CSS(`.pr-link`)), chromedp.WaitVisible(chromedp.CSS(`.diff-file`)))
	axeCheck(t, ctx, "changes page")
	do(t, ctx, "merge", chromedp.Click(chromedp.CSS(`#merge button`)), chromedp.WaitVisible(chromedp.CSS(`.notice-ok`)))
	axeCheck(t, ctx, "changes page (merged)")

	if _, err := s.app.analytics.Generate(context.Background(), projectID, analytics.GenConfig{
		Views: 2000, Paths: 30, Visitors: 300, From: time.Now().UTC().AddDate(0, 0, -30), To: time.Now().UTC(), Seed: 7}); err != nil {
		t.Fatal(err)
	}
	do(t, ctx, "analytics", chromedp.Navigate(base+"/analytics"), chromedp.WaitVisible(chromedp.CSS(`.chart`)))
	axeCheck(t, ctx, "analytics")
	do(t, ctx, "API reference", chromedp.Navigate(s.URL+"/docs/api"), chromedp.WaitVisible(chromedp.CSS(`#api-reference[data-rendered]`)))
	axeCheck(t, ctx, "API reference")
	do(t, ctx, "404", chromedp.Navigate(s.URL+"/no-such-page"), chromedp.WaitVisible(chromedp.CSS(`.empty-code`)))
	axeCheck(t, ctx, "404")

	for _, w := range []struct {
		name string
		act  chromedp.Action[chromedp.Void]
	}{
		{"phone", chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile)},
	} {
		do(t, ctx, w.name, w.act)
		for _, pg := range []struct{ name, path, wait string }{
			{"projects", "/projects", ".project-list"},
			{"keys", "/projects/" + projectID + "/keys", "#keys"},
			{"jobs", "/projects/" + projectID + "/jobs", "#job-list"},
			{"job page", "/projects/" + projectID + "/jobs/" + jobID.Value, "#job-live"},
			{"changes page", "/projects/" + projectID + "/jobs/" + jobID.Value + "/changes", ".diff-file"},
			{"analytics", "/projects/" + projectID + "/analytics", ".chart"},
		} {
			do(t, ctx, w.name+" "+pg.name, chromedp.Navigate(s.URL+pg.path), chromedp.WaitVisible(chromedp.CSS(pg.wait)))
			axeCheck(t, ctx, w.name+" "+pg.name)
		}
		do(t, ctx, "desktop again", chromedp.EmulateViewport(1280, 900))
	}

	// Signed out: the sign-in page, and the invitation link's sign-up.
	do(t, ctx, "sign out", chromedp.Navigate(s.URL+"/projects"), chromedp.Click(chromedp.CSS(`form[action="/logout"] button`)),
		chromedp.WaitVisible(chromedp.CSS(`form[action="/login"]`)))
	axeCheck(t, ctx, "sign-in")
	do(t, ctx, "invitation", chromedp.Navigate(strings.Replace(invite, s.app.cfg.BaseURL, s.URL, 1)), chromedp.WaitVisible(chromedp.CSS(`form[action="/signup"]`)))
	axeCheck(t, ctx, "sign-up by invitation")
	do(t, ctx, "404 signed out", chromedp.Navigate(s.URL+"/no-such-page"), chromedp.WaitVisible(chromedp.CSS(`.empty-code`)))
	axeCheck(t, ctx, "404 signed out")

	if f := failed(); len(f) > 0 {
		t.Errorf("the pages asked for files the server does not have:\n%s", strings.Join(f, "\n"))
	}
}
