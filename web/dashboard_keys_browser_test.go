package main

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/folio-docs/folio/model"
)

// TestKeyFormAcrossProjectsInBrowser: the key form issues a key for this
// project and others of the user's, or all of them, with an IP allowlist,
// by keyboard, telling a refused allowlist at its field; axe-core finds
// nothing serious on the way, and the keys issued work as they say.
func TestKeyFormAcrossProjectsInBrowser(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	ctx := newBrowser(t)
	s.signUpInBrowser(t, ctx, "ada@example.com")
	ada, err := s.app.db.UserByEmail(context.Background(), "ada@example.com")
	if err != nil {
		t.Fatal(err)
	}
	handbook := s.createProject(t, ada)
	reference, err := s.app.db.CreateProject(context.Background(), model.Project{Name: "API reference", Repository: "acme/api", OwnerID: ada.ID})
	if err != nil {
		t.Fatal(err)
	}
	bobs := s.createProject(t, s.addUser(t, "bob@example.com"))
	other := `input[name=projects][value="` + reference.ID + `"]`

	do(t, ctx, "keys page", chromedp.Navigate(s.URL+"/projects/"+handbook.ID+"/keys"), chromedp.WaitVisible(chromedp.CSS(other)))
	// The other projects offered are the user's own, never this one or bob's.
	if offered, _ := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("input[name=projects]")].map(i => i.value)`)); len(offered) != 1 || offered[0] != reference.ID {
		t.Fatalf("the form offers projects %v, want only %s", offered, reference.ID)
	}
	axeCheck(t, ctx, "keys form with projects and allowlist")
	// By keyboard: a space checks the box, typing fills the fields.
	do(t, ctx, "a key for two projects, with a bad allowlist",
		chromedp.SendKeys(chromedp.CSS(`input[name=name]`), "Deploy bot"),
		chromedp.Focus(chromedp.CSS(other)),
		chromedp.KeyEvent(" "),
		chromedp.SendKeys(chromedp.CSS(`input[name=allow_ip]`), "10.0.0.1/8"),
		chromedp.Submit(chromedp.CSS(`input[name=allow_ip]`)),
		chromedp.WaitVisible(chromedp.ID("allow_ip-error")),
	)
	if msg := text(t, ctx, "#allow_ip-error"); !strings.Contains(msg, "10.0.0.0/8") {
		t.Errorf("the allowlist's error says %q, want the network it meant", msg)
	}
	invalid, _ := chromedp.Run(ctx, chromedp.AttributeValue(chromedp.CSS(`input[name=allow_ip]`), "aria-invalid"))
	described, _ := chromedp.Run(ctx, chromedp.AttributeValue(chromedp.CSS(`input[name=allow_ip]`), "aria-describedby"))
	kept, _ := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.querySelector('`+other+`').checked && document.querySelector('input[name=name]').value === "Deploy bot"`))
	if !invalid.Exists || !strings.Contains(described.Value, "allow_ip-error") || !kept {
		t.Errorf("refused form: aria-invalid %v, aria-describedby %q, choices kept %v", invalid.Exists, described.Value, kept)
	}
	axeCheck(t, ctx, "keys form refused")

	do(t, ctx, "fix the allowlist",
		chromedp.Clear(chromedp.CSS(`input[name=allow_ip]`)),
		chromedp.SendKeys(chromedp.CSS(`input[name=allow_ip]`), "127.0.0.1, 2001:db8::/32"),
		chromedp.Submit(chromedp.CSS(`input[name=allow_ip]`)),
		chromedp.WaitVisible(chromedp.ID("new-key")),
	)
	axeCheck(t, ctx, "keys with a key for two projects")
	twoProjects := text(t, ctx, "#new-key")
	if access := text(t, ctx, "#keys .key-access"); !strings.Contains(access, "This project, API reference") || !strings.Contains(access, "from 127.0.0.1/32, 2001:db8::/32") {
		t.Errorf("the list says the key opens %q", access)
	}

	do(t, ctx, "a key for all projects",
		// The card of the key above goes, so the wait below is for the next page's.
		chromedp.Evaluate[chromedp.Void](`document.querySelector(".card-new-key").remove()`),
		chromedp.SendKeys(chromedp.CSS(`input[name=name]`), "Everything"),
		chromedp.Focus(chromedp.CSS(`input[name=all_projects]`)),
		chromedp.KeyEvent(" "),
		chromedp.Submit(chromedp.CSS(`input[name=name]`)),
		chromedp.WaitVisible(chromedp.ID("new-key")),
	)
	allProjects := text(t, ctx, "#new-key")
	if access := text(t, ctx, "#keys tbody tr:first-child .key-access"); !strings.Contains(access, "All projects of ada@example.com") || !strings.Contains(access, "from any address") {
		t.Errorf("the list says the newest key opens %q", access)
	}

	// The keys work as the page said (the test's requests come from 127.0.0.1).
	for _, tc := range []struct {
		name, key, project string
		want               int
	}{
		{"two projects, this one", twoProjects, handbook.ID, http.StatusOK},
		{"two projects, the other", twoProjects, reference.ID, http.StatusOK},
		{"two projects, bob's", twoProjects, bobs.ID, http.StatusNotFound},
		{"all projects, the other", allProjects, reference.ID, http.StatusOK},
		{"all projects, bob's", allProjects, bobs.ID, http.StatusNotFound},
	} {
		if got := s.call(t, tc.key, "/v1/analytics/"+tc.project+"/visitors", ""); got.status != tc.want {
			t.Errorf("%s: %d %s, want %d", tc.name, got.status, got.body, tc.want)
		}
	}
}
