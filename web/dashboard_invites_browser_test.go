package main

import (
	"context"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/folio-docs/folio/model"
)

// TestInvitationInBrowser: a member invites a teammate, who signs up through
// the link in a browser context of their own (other cookies) and is then
// listed as a member; the member then removes them, after the confirmation.
func TestInvitationInBrowser(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, withEnv(map[string]string{"FOLIO_SIGNUP": "invite"}))
	ctx := newBrowser(t)
	dir := screenshotDir(t)

	do(t, ctx, "first user signs up",
		chromedp.Navigate(s.URL+"/signup"),
		chromedp.SendKeys(chromedp.CSS(`input[name=email]`), "ada@example.com"),
		chromedp.SendKeys(chromedp.CSS(`input[name=password]`), "correct horse battery"),
		chromedp.Click(chromedp.CSS(`form[action="/signup"] button`)),
		chromedp.WaitVisible(chromedp.CSS(`.empty-card`)),
	)
	ada, err := s.app.db.UserByEmail(context.Background(), "ada@example.com")
	if err != nil {
		t.Fatal(err)
	}
	p, err := s.app.db.CreateProject(context.Background(), model.Project{Name: "Acme handbook", Repository: "acme/handbook", OwnerID: ada.ID})
	if err != nil {
		t.Fatal(err)
	}

	do(t, ctx, "invite a teammate",
		chromedp.Navigate(s.URL+"/projects/"+p.ID),
		chromedp.WaitVisible(chromedp.ID("invite-email")),
		chromedp.SendKeys(chromedp.ID("invite-email"), "grace@example.com"),
		chromedp.Click(chromedp.CSS(`form[action$="/invitations"] button`)),
		chromedp.WaitVisible(chromedp.ID("invite-link")),
		chromedp.Click(chromedp.CSS(`[data-copy=invite-link]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-copy=invite-link].copied`)),
	)
	link := text(t, ctx, "#invite-link")
	prefix := s.app.cfg.BaseURL + "/signup?invite="
	if !strings.HasPrefix(link, prefix) {
		t.Fatalf("link shown as %q, want %s…", link, prefix)
	}
	if got := text(t, ctx, "#invitation-list"); !strings.Contains(got, "grace@example.com") || !strings.Contains(got, "pending") || !strings.Contains(got, "Invited by ada@example.com") {
		t.Errorf("invitation list shows %q", got)
	}
	do(t, ctx, "scroll to invitations", chromedp.ScrollIntoView(chromedp.ID("invitations")))
	shoot(t, ctx, dir, "12-invitation-created")

	// The teammate, in a browser context of their own, opens the link (on
	// this test server: FOLIO_BASE_URL is the configured default).
	gctx, cancel := chromedp.NewContext(ctx, chromedp.WithNewBrowserContext())
	defer cancel()
	// The first action on a context starts its tab, which lives as long as
	// the context that action gets: gctx itself, not do's shorter one.
	if err := chromedp.Do(gctx, chromedp.Navigate("about:blank")); err != nil {
		t.Fatalf("open a second browser context: %v", err)
	}
	open := s.URL + "/signup?invite=" + strings.TrimPrefix(link, prefix)
	do(t, gctx, "open the invitation",
		chromedp.Navigate(open),
		chromedp.WaitVisible(chromedp.CSS(`form[action="/signup"]`)),
	)
	if got, _ := chromedp.Run(gctx, chromedp.Value(chromedp.CSS(`input[name=email]`))); got != "grace@example.com" {
		t.Errorf("email on the invitation form: %q", got)
	}
	if ro, _ := chromedp.Run(gctx, chromedp.Evaluate[bool](`document.querySelector("input[name=email]").readOnly`)); !ro {
		t.Error("the invited email can be edited")
	}
	if got := text(t, gctx, ".invite-intro"); !strings.Contains(got, "ada@example.com invited you to join Acme handbook") {
		t.Errorf("invitation intro says %q", got)
	}
	shoot(t, gctx, dir, "13-invitation-signup")
	do(t, gctx, "sign up through the link",
		chromedp.SendKeys(chromedp.CSS(`input[name=password]`), "grace's passphrase"),
		chromedp.Click(chromedp.CSS(`form[action="/signup"] button`)),
		chromedp.WaitVisible(chromedp.CSS(`.notice-ok`)),
	)
	if got := text(t, gctx, ".notice-ok"); got != "Welcome to Folio. You are a member of Acme handbook." {
		t.Errorf("after sign-up the notice says %q", got)
	}
	if got := text(t, gctx, ".account-email"); got != "grace@example.com" {
		t.Errorf("teammate's top bar shows %q", got)
	}
	do(t, gctx, "the link again", chromedp.Navigate(open), chromedp.WaitVisible(chromedp.CSS(`.empty h1`)))
	if got := text(t, gctx, ".empty h1"); got != "This invitation has been used" {
		t.Errorf("the used link says %q", got)
	}
	shoot(t, gctx, dir, "14-invitation-used")

	// The first member sees the teammate listed, and the invitation used.
	do(t, ctx, "members after sign-up",
		chromedp.Navigate(s.URL+"/projects/"+p.ID),
		chromedp.WaitVisible(chromedp.CSS(`.member-list li:nth-child(2)`)),
	)
	if got := text(t, ctx, ".member-list"); !strings.Contains(got, "grace@example.com") {
		t.Errorf("member list shows %q", got)
	}
	if got := text(t, ctx, "#invitation-list"); !strings.Contains(got, "used") {
		t.Errorf("invitation list shows %q after use", got)
	}
	do(t, ctx, "scroll to members", chromedp.ScrollIntoView(chromedp.ID("members")))
	shoot(t, ctx, dir, "15-members-after-invitation")

	// Remove the teammate after the confirmation.
	grace, _ := s.app.db.UserByEmail(context.Background(), "grace@example.com")
	do(t, ctx, "remove the teammate",
		chromedp.Click(chromedp.CSS(`form[action$="/members/`+grace.ID+`/remove"] button`)),
		chromedp.WaitVisible(chromedp.CSS(`.notice-ok`)),
	)
	if got := text(t, ctx, ".member-list"); strings.Contains(got, "grace@example.com") {
		t.Errorf("member list still shows the removed teammate: %q", got)
	}
	do(t, ctx, "phone settings", chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile), chromedp.Navigate(s.URL+"/projects/"+p.ID), chromedp.WaitVisible(chromedp.ID("invitations")),
		chromedp.ScrollIntoView(chromedp.ID("members")))
	shoot(t, ctx, dir, "16-members-phone")
}
