package main

import (
	"context"
	"net/url"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
)

// expire ends the browser's session as its cookie's expiry does.
func expire(t *testing.T, ctx context.Context) {
	t.Helper()
	if _, err := chromedp.Call(ctx, network.ClearBrowserCookies, cdp.Empty{}); err != nil {
		t.Fatal(err)
	}
}

// signInAgain fills the sign-in form the expired post led to, after
// checking it says why.
func signInAgain(t *testing.T, ctx context.Context, typed string) {
	t.Helper()
	do(t, ctx, "the sign-in page", chromedp.WaitVisible(chromedp.CSS(`form[action="/login"]`)))
	if got := text(t, ctx, ".session-expired"); !strings.Contains(got, "Your session expired") {
		t.Errorf("the sign-in page after an expired post says %q", got)
	}
	loc, _ := chromedp.Run(ctx, chromedp.Location())
	if strings.Contains(loc, url.QueryEscape(typed)[:12]) || strings.Contains(loc, typed[:12]) {
		t.Errorf("the typed text travels in the URL %s", loc)
	}
	do(t, ctx, "type the email", chromedp.SendKeys(chromedp.CSS(`form[action="/login"] input[name=email]`), "ada@example.com"))
	do(t, ctx, "type the password", chromedp.SendKeys(chromedp.CSS(`form[action="/login"] input[name=password]`), "correct horse battery"))
	do(t, ctx, "sign in again", chromedp.Click(chromedp.CSS(`form[action="/login"] button`)))
}

// TestExpiredSessionKeepsTheForm: a prompt or a follow-up sent after the
// session expired is not lost. The sign-in page says what happened, and
// sign-in leads back to the page with the text in its form, not sent.
func TestExpiredSessionKeepsTheForm(t *testing.T) {
	t.Parallel()
	s := newTestServer(t) // no worker: jobs stay queued
	ctx := newBrowser(t)
	dir := screenshotDir(t)
	projectID, _ := signUpWithLocalProject(t, ctx, s)
	jobs := s.URL + "/projects/" + projectID + "/jobs"

	prompt := "Document the --dry-run flag of the deploy command, with an example."
	do(t, ctx, "type a prompt",
		chromedp.Navigate(jobs),
		chromedp.WaitVisible(chromedp.ID("launch")),
		chromedp.SendKeys(chromedp.CSS(`#launch textarea[name=prompt]`), prompt),
	)
	expire(t, ctx)
	do(t, ctx, "launch after the session expired", chromedp.Click(chromedp.CSS(`#launch button`)))
	signInAgain(t, ctx, prompt)
	do(t, ctx, "back on the jobs page", chromedp.WaitVisible(chromedp.ID("launch")))
	shoot(t, ctx, dir, "session-01-back-on-jobs")
	if loc, _ := chromedp.Run(ctx, chromedp.Location()); loc != jobs {
		t.Errorf("after signing in again the browser is at %s, want %s", loc, jobs)
	}
	got, _ := chromedp.Run(ctx, chromedp.Value(chromedp.CSS(`#launch textarea[name=prompt]`)))
	if got != prompt {
		t.Errorf("the launch form holds %q after signing in again, want the prompt typed before", got)
	}
	if got := text(t, ctx, ".notice-ok"); !strings.Contains(got, "session had expired") {
		t.Errorf("the jobs page says %q, want a word on the expired session", got)
	}
	if list, _, _ := s.app.jobs.List(context.Background(), projectID, "", 10, 0); len(list) != 0 {
		t.Fatalf("%d jobs launched by a post without a session", len(list))
	}
	do(t, ctx, "launch it now", chromedp.Click(chromedp.CSS(`#launch button`)), chromedp.WaitVisible(chromedp.CSS(`.job-item`)))
	list, _, _ := s.app.jobs.List(context.Background(), projectID, "", 10, 0)
	if len(list) != 1 {
		t.Fatalf("%d jobs after launching the kept prompt, want 1", len(list))
	}
	// Reloading does not bring the text back: it was kept once.
	do(t, ctx, "reload", chromedp.Navigate(jobs), chromedp.WaitVisible(chromedp.ID("launch")))
	if got, _ := chromedp.Run(ctx, chromedp.Value(chromedp.CSS(`#launch textarea[name=prompt]`))); got != "" {
		t.Errorf("the launch form still holds %q after the kept prompt was sent", got)
	}

	// The follow-up box on a job page, the same way.
	followUp := "Also say what --dry-run prints when nothing would change."
	jobPage := jobs + "/" + list[0].ID
	do(t, ctx, "type a follow-up",
		chromedp.Navigate(jobPage),
		chromedp.WaitVisible(chromedp.ID("followup-prompt")),
		chromedp.SendKeys(chromedp.ID("followup-prompt"), followUp),
	)
	expire(t, ctx)
	do(t, ctx, "send after the session expired", chromedp.Click(chromedp.CSS(`#followup button`)))
	signInAgain(t, ctx, followUp)
	do(t, ctx, "back on the job page", chromedp.WaitVisible(chromedp.ID("followup-prompt")))
	if loc, _ := chromedp.Run(ctx, chromedp.Location()); loc != jobPage {
		t.Errorf("after signing in again the browser is at %s, want %s", loc, jobPage)
	}
	if got, _ := chromedp.Run(ctx, chromedp.Value(chromedp.ID("followup-prompt"))); got != followUp {
		t.Errorf("the follow-up box holds %q after signing in again, want the text typed before", got)
	}
	shoot(t, ctx, dir, "session-02-back-on-job")
}
