package main

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/folio-docs/folio/db"
	"github.com/folio-docs/folio/internal/testenv"
)

// quietPrompt makes jobModel answer without changing a file.
const quietPrompt = "Change nothing: just check the welcome page."

// jobModel writes notes as NotesWriter does, but answers a prompt that asks
// for nothing without a tool call; its first answer waits for release.
func jobModel(t *testing.T) (m *testenv.ModelServer, release func()) {
	gate := make(chan struct{})
	var once atomic.Bool
	m = testenv.NewModelServer(t, func(ms []testenv.ChatMessage) testenv.ModelReply {
		select {
		case <-gate:
		case <-time.After(30 * time.Second):
		}
		for i := len(ms) - 1; i >= 0; i-- {
			if ms[i].Role == "user" {
				if strings.Contains(ms[i].Text(), quietPrompt) {
					return testenv.ModelReply{Text: "The welcome page is fine as it is; I changed nothing."}
				}
				break
			}
		}
		return testenv.NotesWriter(ms)
	})
	release = func() {
		if once.CompareAndSwap(false, true) {
			close(gate)
		}
	}
	t.Cleanup(release)
	return m, release
}

// signUpWithLocalProject signs a new admin up in the browser and creates a
// project on a fresh local repository; it returns the project's id and the
// repository's path.
func signUpWithLocalProject(t *testing.T, ctx context.Context, s *testServer) (string, string) {
	t.Helper()
	repo := newDocsRepoIn(t, s.app.cfg.LocalRepos)
	s.signUpInBrowser(t, ctx, "ada@example.com")
	return createProjectInBrowser(t, ctx, "Acme handbook", repo), repo
}

// launch starts a job from the jobs page and returns it.
func launch(t *testing.T, ctx context.Context, s *testServer, projectID, prompt string) db.Job {
	t.Helper()
	before, _, _ := s.app.jobs.List(context.Background(), projectID, "", 100, 0)
	do(t, ctx, "launch "+prompt,
		chromedp.Navigate(s.URL+"/projects/"+projectID+"/jobs"),
		chromedp.WaitVisible(chromedp.ID("launch")),
		chromedp.SendKeys(chromedp.CSS(`#launch textarea[name=prompt]`), prompt),
		chromedp.Click(chromedp.CSS(`#launch button`)),
		chromedp.WaitVisible(chromedp.CSS(`.notice-ok`)),
	)
	list, _, err := s.app.jobs.List(context.Background(), projectID, "", 100, 0)
	if err != nil || len(list) != len(before)+1 {
		t.Fatalf("jobs after launching %q: %d (before %d), %v", prompt, len(list), len(before), err)
	}
	return list[0]
}

// waitTurn waits until the job's turn has ended.
func waitTurn(t *testing.T, s *testServer, projectID, id string) db.Job {
	t.Helper()
	var j db.Job
	ended := s.awaitJob(id, 30*time.Second, func() bool {
		var err error
		if j, err = s.app.jobs.Get(context.Background(), projectID, id); err != nil {
			t.Fatal(err)
		}
		return j.Status != db.JobActive
	})
	if !ended {
		t.Fatalf("job %s still active after 30s", id)
	}
	return j
}

// overflow is how many CSS pixels the page is wider than its layout
// viewport (a phone zooms out to show an overflowing page whole, so the
// window itself grows with the page).
func overflow(t *testing.T, ctx context.Context) int {
	t.Helper()
	n, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.documentElement.scrollWidth - document.documentElement.clientWidth`))
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestJobPageTellsTheWholeStory: a running job can be cancelled from its
// page; a finished one names its change in words, keeps the conversation
// first on a phone without overflowing it, and after a merge says "Merged"
// and still shows the merged diff; a job that changed nothing says so.
func TestJobPageTellsTheWholeStory(t *testing.T) {
	t.Parallel()
	model, release := jobModel(t)
	s := newTestServer(t, withModel(t, model))
	ctx := newBrowser(t)
	dir := screenshotDir(t)
	projectID, repo := signUpWithLocalProject(t, ctx, s)
	jobPage := func(j db.Job) string { return s.URL + "/projects/" + projectID + "/jobs/" + j.ID }

	// Cancel while the agent works (after the confirmation).
	doomed := launch(t, ctx, s, projectID, "Rewrite the whole handbook in verse.")
	do(t, ctx, "open the running job", chromedp.Navigate(jobPage(doomed)), chromedp.WaitVisible(chromedp.CSS(`#job-live[data-polling=true] #cancel button`)))
	do(t, ctx, "cancel it",
		chromedp.Click(chromedp.CSS(`#cancel button`)),
		chromedp.WaitVisible(chromedp.CSS(`#job-live[data-polling=false] .job-error`)),
	)
	if got := text(t, ctx, ".job-error"); !strings.Contains(got, "canceled") {
		t.Errorf("a cancelled job's page says %q", got)
	}
	if n, _ := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("#cancel").length`)); n != 0 {
		t.Error("the Cancel button is still offered on a failed job")
	}
	if j, _ := s.app.jobs.Get(context.Background(), projectID, doomed.ID); j.Status != db.JobFailed || j.ErrorCode != "canceled" {
		t.Errorf("after Cancel the job is %s (%s), want failed (canceled)", j.Status, j.ErrorCode)
	}
	release()

	// A job that changes a file: its page names the review page in words.
	job := launch(t, ctx, s, projectID, "Explain how to rotate API keys, with an example.")
	waitTurn(t, s, projectID, job.ID)
	do(t, ctx, "desktop job page", chromedp.EmulateViewport(1280, 800), chromedp.Navigate(jobPage(job)),
		chromedp.WaitVisible(chromedp.CSS(`#job-live[data-polling=false] .status-completed`)))
	if got := text(t, ctx, ".pr-fact"); got != "Review changes" {
		t.Errorf("the pull request fact says %q, want Review changes", got)
	}
	if n, _ := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll(".job-no-changes").length`)); n != 0 {
		t.Error("a job that changed a file says it changed nothing")
	}
	shoot(t, ctx, dir, "job-1280-completed")

	// On a phone: the conversation comes first, and nothing is wider than the screen.
	do(t, ctx, "phone job page", chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile), chromedp.Navigate(jobPage(job)),
		chromedp.WaitVisible(chromedp.ID("job-live")))
	if px := overflow(t, ctx); px > 0 {
		t.Errorf("on a 390 px phone the job page is %d px wider than the screen", px)
	}
	first, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.querySelector(".convo").getBoundingClientRect().top < document.querySelector(".job-facts").getBoundingClientRect().top`))
	if err != nil || !first {
		t.Errorf("on a phone the details come before the conversation (%v)", err)
	}
	shoot(t, ctx, dir, "job-390-completed")
	do(t, ctx, "desktop again", chromedp.EmulateViewport(1280, 800))

	// Merge: the job is "Merged", not just archived, and its diff stays readable.
	do(t, ctx, "merge",
		chromedp.Navigate(jobPage(job)+"/changes"),
		chromedp.Click(chromedp.CSS(`#merge button`)),
		chromedp.WaitVisible(chromedp.CSS(`.notice-ok`)),
	)
	if got := git(t, repo, "show", "main:notes/1.md"); !strings.Contains(got, "rotate API keys") {
		t.Fatalf("main's notes/1.md after the merge: %q", got)
	}
	if got := text(t, ctx, ".review-head h2"); got != "Merged changes" {
		t.Errorf("after the merge the review page is titled %q", got)
	}
	if got := text(t, ctx, ".review-branches .status"); !strings.EqualFold(got, "merged") {
		t.Errorf("after the merge the review page's state is %q, want merged", got)
	}
	if got := text(t, ctx, `.diff-file[data-file="notes/1.md"]`); !strings.Contains(got, "rotate API keys") {
		t.Errorf("after the merge the review page shows %q, want the merged diff of notes/1.md", got)
	}
	shoot(t, ctx, dir, "changes-1280-merged")
	do(t, ctx, "the merged job's page", chromedp.Navigate(jobPage(job)), chromedp.WaitVisible(chromedp.CSS(`.job-merged`)))
	if got := text(t, ctx, ".job-title-row .status"); !strings.EqualFold(got, "merged") {
		t.Errorf("the merged job's state reads %q", got)
	}
	if got := text(t, ctx, ".pr-fact"); got != "Merged changes" {
		t.Errorf("the merged job's pull request fact says %q", got)
	}
	shoot(t, ctx, dir, "job-1280-merged")
	do(t, ctx, "phone merged job", chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile), chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS(`.job-merged`)))
	if px := overflow(t, ctx); px > 0 {
		t.Errorf("on a 390 px phone the merged job's page is %d px wider than the screen", px)
	}
	shoot(t, ctx, dir, "job-390-merged")
	do(t, ctx, "desktop again", chromedp.EmulateViewport(1280, 800))

	// A job that changed nothing says so.
	quiet := launch(t, ctx, s, projectID, quietPrompt)
	if j := waitTurn(t, s, projectID, quiet.ID); j.Status != db.JobCompleted || j.PRLink != "" {
		t.Fatalf("the quiet job ended %s with prLink %q", j.Status, j.PRLink)
	}
	do(t, ctx, "the quiet job's page", chromedp.Navigate(jobPage(quiet)), chromedp.WaitVisible(chromedp.CSS(`.job-no-changes`)))
	if got := text(t, ctx, ".job-no-changes"); !strings.HasPrefix(got, "No changes.") {
		t.Errorf("the quiet job's note says %q", got)
	}
	if got := text(t, ctx, ".pr-fact"); got != "none: nothing changed" {
		t.Errorf("the quiet job's pull request fact says %q", got)
	}
	// The agent's final answer is the summary, and the checks say they found nothing.
	if got := text(t, ctx, ".job-summary"); got != "The welcome page is fine as it is; I changed nothing." {
		t.Errorf("the quiet job's summary reads %q", got)
	}
	if got := text(t, ctx, ".problems-none"); got != "The checks found no problem." {
		t.Errorf("the quiet job's problems read %q", got)
	}
	shoot(t, ctx, dir, "job-1280-no-changes")
}
