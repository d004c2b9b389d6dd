package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/folio-docs/folio/db"
	"github.com/folio-docs/folio/internal/testenv"
)

// gatedModel is NotesWriter that holds its first answer until release is
// closed, so the browser sees a job running before it completes.
func gatedModel(t *testing.T) (m *testenv.ModelServer, release func()) {
	gate := make(chan struct{})
	var once atomic.Bool
	m = testenv.NewModelServer(t, func(ms []testenv.ChatMessage) testenv.ModelReply {
		select {
		case <-gate:
		case <-time.After(30 * time.Second):
		}
		return testenv.NotesWriter(ms)
	})
	release = func() {
		if once.CompareAndSwap(false, true) {
			close(gate)
		}
	}
	t.Cleanup(release) // before the model server closes: cleanups run last-in first-out
	return m, release
}

func TestJobPagesInBrowser(t *testing.T) {
	t.Parallel()
	model, release := gatedModel(t)
	// The hook's one failure holds the job's later events back: retry it soon.
	s := newTestServer(t, withModel(t, model), withWebhookRetry(5*time.Millisecond, 50*time.Millisecond))
	var hooks atomic.Int32
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if hooks.Add(1) == 1 {
			w.WriteHeader(http.StatusServiceUnavailable) // one failure, for the delivery log
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(hook.Close)
	ctx := newBrowser(t)
	dir := screenshotDir(t)

	projectID, repo := signUpWithLocalProject(t, ctx, s)
	p, err := s.app.db.ProjectByID(context.Background(), projectID)
	if err != nil {
		t.Fatal(err)
	}
	p.WebhookURL, p.WebhookSecret = hook.URL, "whsec-test"
	if _, err := s.app.db.UpdateProject(context.Background(), p); err != nil {
		t.Fatal(err)
	}

	do(t, ctx, "open the jobs tab",
		chromedp.Click(chromedp.CSS(`.tabs a[href="/projects/`+projectID+`/jobs"]`)),
		chromedp.WaitVisible(chromedp.ID("launch")),
	)
	if got := text(t, ctx, "#job-list"); !strings.Contains(got, "No jobs yet") {
		t.Errorf("an empty project's list says %q", got)
	}
	shoot(t, ctx, dir, "jobs-01-empty")

	// Launch; the list shows the job running, then completed, without a reload.
	do(t, ctx, "launch a job",
		chromedp.SendKeys(chromedp.CSS(`#launch textarea[name=prompt]`), "Explain how to rotate API keys, with an example."),
		chromedp.Click(chromedp.CSS(`#launch button`)),
		chromedp.WaitVisible(chromedp.CSS(`#job-list[data-polling=true] .job-item[data-status=active]`)),
	)
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[int](`window.folioMarker = 42`)); err != nil {
		t.Fatal(err)
	}
	shoot(t, ctx, dir, "jobs-02-running")
	release()
	do(t, ctx, "see the job complete", chromedp.WaitVisible(chromedp.CSS(`#job-list[data-polling=false] .job-item[data-status=completed]`)))
	if marker, err := chromedp.Run(ctx, chromedp.Evaluate[int](`window.folioMarker || 0`)); err != nil || marker != 42 {
		t.Fatalf("the page was reloaded while the status changed (marker %d, %v)", marker, err)
	}
	if got := text(t, ctx, ".job-item .job-prompt"); got != "Explain how to rotate API keys, with an example." {
		t.Errorf("the list names the job %q", got)
	}
	shoot(t, ctx, dir, "jobs-03-completed")
	list, _, err := s.app.jobs.List(context.Background(), projectID, "", 10, 0)
	if err != nil || len(list) != 1 {
		t.Fatalf("jobs after one launch: %v, %v", list, err)
	}
	job := list[0]

	// The job page: conversation, details, the review link.
	do(t, ctx, "open the job",
		chromedp.Click(chromedp.CSS(`.job-item .job-main`)),
		chromedp.WaitVisible(chromedp.ID("job-live")),
		chromedp.Click(chromedp.CSS(`.tool-call summary`)),
		chromedp.WaitVisible(chromedp.CSS(`.tool-call pre`)),
	)
	convo := text(t, ctx, ".convo")
	for _, want := range []string{"Explain how to rotate API keys", "write_file", "notes/1.md", "Wrote notes/1.md."} {
		if !strings.Contains(convo, want) {
			t.Errorf("the conversation lacks %q:\n%s", want, convo)
		}
	}
	if got := text(t, ctx, ".tool-call pre"); !strings.Contains(got, `"path": "notes/1.md"`) {
		t.Errorf("the tool call's arguments show %q", got)
	}
	if got := text(t, ctx, ".facts"); !strings.Contains(got, job.Branch) || !strings.Contains(got, repo+" at main") || !strings.Contains(got, "test-model") {
		t.Errorf("the job's details show %q", got)
	}
	shoot(t, ctx, dir, "jobs-04-job-page")

	// A follow-up from the page runs a second turn on the same branch.
	do(t, ctx, "send a follow-up",
		chromedp.SendKeys(chromedp.ID("followup-prompt"), "Also cover key expiry."),
		chromedp.Click(chromedp.CSS(`#followup button`)),
		// The follow-up in the conversation: the page has the job as the
		// follow-up left it, so the completed status waited for next is
		// the second turn's, not the first's.
		chromedp.WaitVisible(`//*[contains(concat(" ", normalize-space(@class), " "), " msg-user ")][contains(., "Also cover key expiry.")]`), // a plain string is an XPath search
		chromedp.WaitVisible(chromedp.CSS(`#job-live[data-polling=false] .job-title-row .status-completed`)),
	)
	if got := text(t, ctx, ".convo"); !strings.Contains(got, "Wrote notes/2.md.") {
		t.Errorf("after the follow-up the conversation is:\n%s", got)
	}
	if got := git(t, repo, "show", job.Branch+":notes/2.md"); !strings.Contains(got, "Also cover key expiry.") {
		t.Errorf("notes/2.md on the branch is %q", got)
	}
	shoot(t, ctx, dir, "jobs-05-follow-up")

	// The review page shows the branch's diff, escaped and coloured.
	do(t, ctx, "open the review page",
		chromedp.Click(chromedp.CSS(`.pr-link`)),
		chromedp.WaitVisible(chromedp.CSS(`.diff-file`)),
	)
	if got := text(t, ctx, ".diff-summary"); !strings.HasPrefix(got, "2 files changed") {
		t.Errorf("diff summary %q", got)
	}
	if got := text(t, ctx, `.diff-file[data-file="notes/1.md"] .d-add:last-child .code`); !strings.Contains(got, "rotate API keys") {
		t.Errorf("last added line of notes/1.md is %q", got)
	}
	shoot(t, ctx, dir, "jobs-06-review")

	// Phones.
	do(t, ctx, "phone review", chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile), chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS(`.diff-file`)))
	shoot(t, ctx, dir, "jobs-07-review-phone")
	do(t, ctx, "phone job", chromedp.Navigate(s.URL+"/projects/"+projectID+"/jobs/"+job.ID), chromedp.WaitVisible(chromedp.ID("job-live")))
	shoot(t, ctx, dir, "jobs-08-job-phone")
	do(t, ctx, "phone list", chromedp.Navigate(s.URL+"/projects/"+projectID+"/jobs"), chromedp.WaitVisible(chromedp.ID("job-list")))
	shoot(t, ctx, dir, "jobs-09-list-phone")
	do(t, ctx, "desktop again", chromedp.EmulateViewport(1280, 900),
		chromedp.Navigate(s.URL+"/projects/"+projectID+"/jobs/"+job.ID+"/changes"), chromedp.WaitVisible(chromedp.ID("merge")))

	// Merge (after the confirmation): main has the change, the job is archived.
	do(t, ctx, "merge",
		chromedp.Click(chromedp.CSS(`#merge button`)),
		chromedp.WaitVisible(chromedp.CSS(`.notice-ok`)),
	)
	if got := text(t, ctx, ".notice-ok"); !strings.HasPrefix(got, "Merged "+job.Branch+" into main (now at ") {
		t.Errorf("after merging the page says %q", got)
	}
	if got := git(t, repo, "show", "main:notes/2.md"); !strings.Contains(got, "Also cover key expiry.") {
		t.Errorf("main's notes/2.md after the merge is %q", got)
	}
	if j, _ := s.app.jobs.Get(context.Background(), projectID, job.ID); j.Status != db.JobArchived {
		t.Errorf("the job is %s after the merge, want archived", j.Status)
	}
	if n, _ := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("#merge").length`)); n != 0 {
		t.Error("the merge button is still offered after the merge")
	}
	shoot(t, ctx, dir, "jobs-10-merged")

	// The settings page logs the webhook deliveries of the job's status changes.
	do(t, ctx, "settings",
		chromedp.Navigate(s.URL+"/projects/"+projectID),
		chromedp.WaitVisible(chromedp.CSS(`#webhook-deliveries .delivery`)),
	)
	if got := text(t, ctx, "#webhook-deliveries"); !strings.Contains(got, "503") || !strings.Contains(got, "204") {
		t.Errorf("the delivery log shows %q, want a 503 and a 204", got)
	}
	shoot(t, ctx, dir, "jobs-11-settings-deliveries")
}
