package main

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/folio-docs/folio/accounts"
	"github.com/folio-docs/folio/auth"
	"github.com/folio-docs/folio/model"
)

func TestSignedOutPagesRedirectToLogin(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	owner := s.addUser(t, "owner@example.com")
	p := s.createProject(t, owner)
	c := s.client(t)
	jobPages := []string{"/projects/" + p.ID + "/jobs", "/projects/" + p.ID + "/jobs/x", "/projects/" + p.ID + "/jobs/x/changes"}
	for _, path := range append([]string{"/", "/projects", "/projects/" + p.ID, "/projects/" + p.ID + "/keys", "/projects/nope/keys", "/projects/" + p.ID + "/analytics?dateFrom=2026-01-01"}, jobPages...) {
		res, _ := s.get(t, c, path)
		loc := res.Header.Get("Location")
		if res.StatusCode != http.StatusSeeOther || !strings.HasPrefix(loc, "/login") {
			t.Errorf("GET %s signed out: got %d to %q, want 303 to /login", path, res.StatusCode, loc)
		}
	}
	res, _ := s.get(t, c, "/projects/"+p.ID+"/keys")
	if want := "/login?next=" + url.QueryEscape("/projects/"+p.ID+"/keys"); res.Header.Get("Location") != want {
		t.Errorf("redirect keeps the destination: got %q, want %q", res.Header.Get("Location"), want)
	}
	jobForms := []string{"/projects/" + p.ID + "/jobs", "/projects/" + p.ID + "/jobs/x/message", "/projects/" + p.ID + "/jobs/x/archive", "/projects/" + p.ID + "/jobs/x/cancel", "/projects/" + p.ID + "/jobs/x/merge"}
	memberForms := []string{"/projects/" + p.ID + "/members/" + owner.ID + "/remove", "/projects/" + p.ID + "/invitations", "/projects/" + p.ID + "/invitations/x/revoke", "/invitations/accept"}
	jobForms = append(jobForms, memberForms...)
	for _, path := range append([]string{"/projects", "/projects/" + p.ID, "/projects/" + p.ID + "/members", "/projects/" + p.ID + "/keys", "/projects/" + p.ID + "/keys/x/revoke"}, jobForms...) {
		res := s.post(t, c, path, url.Values{"name": {"x"}}, nil)
		if res.StatusCode != http.StatusSeeOther || !strings.HasPrefix(res.Header.Get("Location"), "/login") {
			t.Errorf("POST %s signed out: got %d to %q, want 303 to /login", path, res.StatusCode, res.Header.Get("Location"))
		}
	}
	if keys, _ := s.app.db.APIKeysForProject(context.Background(), p.ID); len(keys) != 0 {
		t.Errorf("a signed-out post created %d keys", len(keys))
	}
	for _, path := range []string{"/login", "/signup", "/docs/api"} {
		if res, _ := s.get(t, c, path); res.StatusCode != http.StatusOK {
			t.Errorf("GET %s signed out: got %d, want 200", path, res.StatusCode)
		}
	}
}

func TestEveryFormRefusesCrossSitePosts(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, withEnv(map[string]string{"FOLIO_SIGNUP": "open"}))
	c := s.client(t)
	owner := s.signUp(t, c, "owner@example.com")
	s.addUser(t, "teammate@example.com")
	p := s.createProject(t, owner)
	plain, key, err := s.app.keys.Issue(context.Background(), p.ID, "ci", model.ScopeWrite, "30d")
	if err != nil || plain == "" {
		t.Fatal(err)
	}
	created, err := s.app.jobs.Create(context.Background(), p.ID, "Fix the typo.", "")
	if err != nil {
		t.Fatal(err)
	}
	job := created.Job
	colleague := s.addUser(t, "colleague@example.com")
	s.app.db.AddProjectMember(context.Background(), p.ID, colleague.ID)
	invLink, inv, err := accounts.NewInvitations(s.app.db, s.app.cfg.BaseURL).Create(context.Background(), p.ID, "newcomer@example.com", owner.ID)
	if err != nil {
		t.Fatal(err)
	}
	invToken := invLink[strings.Index(invLink, "=")+1:]
	forms := []struct {
		path string
		form url.Values
	}{
		{"/login", url.Values{"email": {"owner@example.com"}, "password": {"correct horse"}}},
		{"/signup", url.Values{"email": {"mallory@example.com"}, "password": {"correct horse"}}},
		{"/logout", nil},
		{"/projects", url.Values{"name": {"Evil"}, "repository": {"evil/docs"}, "ref": {"main"}}},
		{"/projects/" + p.ID, url.Values{"name": {"Evil"}, "repository": {"evil/docs"}, "ref": {"main"}, "webhook_url": {"https://evil.example/hook"}, "webhook_secret": {"s"}}},
		{"/projects/" + p.ID + "/members", url.Values{"email": {"teammate@example.com"}}},
		{"/projects/" + p.ID + "/drains", url.Values{"action": {"save"}, "drain_secret": {"attacker-knows-it"}, "vercel_verify": {"evil"}}},
		{"/projects/" + p.ID + "/drains", url.Values{"action": {"remove"}}},
		{"/projects/" + p.ID + "/keys", url.Values{"name": {"stolen"}, "scope": {"write"}, "expiry": {"never"}}},
		{"/projects/" + p.ID + "/keys", url.Values{"name": {"stolen"}, "scope": {"write"}, "expiry": {"never"}, "all_projects": {"on"}, "allow_ip": {"0.0.0.0/0"}}},
		{"/projects/" + p.ID + "/keys/" + key.ID + "/revoke", nil},
		{"/projects/" + p.ID + "/jobs", url.Values{"prompt": {"Delete every page."}}},
		{"/projects/" + p.ID + "/jobs/" + job.ID + "/message", url.Values{"prompt": {"Delete every page."}}},
		{"/projects/" + p.ID + "/jobs/" + job.ID + "/cancel", nil},
		{"/projects/" + p.ID + "/jobs/" + job.ID + "/archive", nil},
		{"/projects/" + p.ID + "/jobs/" + job.ID + "/merge", nil},
		{"/projects/" + p.ID + "/members/" + colleague.ID + "/remove", nil},
		{"/projects/" + p.ID + "/invitations", url.Values{"email": {"mallory@example.com"}}},
		{"/projects/" + p.ID + "/invitations/" + inv.ID + "/revoke", nil},
		{"/signup", url.Values{"invite": {invToken}, "password": {"correct horse"}}},
		{"/invitations/accept", url.Values{"invite": {invToken}}},
	}
	attacks := map[string]map[string]string{
		"Sec-Fetch-Site cross-site": {"Sec-Fetch-Site": "cross-site", "Origin": "https://evil.example"},
		"Origin of another site":    {"Origin": "https://evil.example"},
	}
	for _, f := range forms {
		for name, headers := range attacks {
			res := s.post(t, c, f.path, f.form, headers)
			if res.StatusCode != http.StatusForbidden {
				t.Errorf("POST %s (%s): got %d, want 403", f.path, name, res.StatusCode)
			}
		}
	}
	// Nothing changed, and the session survived the attempted logout.
	ctx := context.Background()
	if got, _ := s.app.db.ProjectByID(ctx, p.ID); got.Name != "Acme docs" || got.WebhookURL != "" {
		t.Errorf("project changed by cross-site posts: %+v", got)
	}
	if ps, _ := s.app.db.ProjectsForUser(ctx, owner.ID); len(ps) != 1 {
		t.Errorf("cross-site posts created projects: have %d, want 1", len(ps))
	}
	if keys, _ := s.app.db.APIKeysForProject(ctx, p.ID); len(keys) != 1 || keys[0].RevokedAt != nil {
		t.Errorf("cross-site posts changed keys: %+v", keys)
	}
	if js, _, _ := s.app.jobs.List(ctx, p.ID, "", 10, 0); len(js) != 1 || js[0].Status != model.JobActive || js[0].Turn != 1 {
		t.Errorf("cross-site posts changed jobs: %+v", js)
	}
	if ms, _ := s.app.db.ProjectMembers(ctx, p.ID); len(ms) != 2 || ms[1].UserID != colleague.ID {
		t.Errorf("cross-site posts changed the members (want owner and colleague): %+v", ms)
	}
	if invs, _ := s.app.db.InvitationsForProject(ctx, p.ID); len(invs) != 1 || invs[0].State(time.Now()) != model.InvitationPending {
		t.Errorf("cross-site posts changed the invitations: %+v", invs)
	}
	if d, _ := s.app.db.DrainSettings(ctx, p.ID); d.Secret != "" || d.VercelVerify != "" {
		t.Errorf("cross-site posts changed the drain settings: %+v", d)
	}
	if _, err := s.app.db.UserByEmail(ctx, "mallory@example.com"); err == nil {
		t.Error("a cross-site post signed up a user")
	}
	if res, _ := s.get(t, c, "/projects"); res.StatusCode != http.StatusOK {
		t.Errorf("session ended by a cross-site logout: GET /projects got %d", res.StatusCode)
	}
	// The same form from Folio's own pages goes through.
	res := s.post(t, c, "/projects/"+p.ID+"/keys/"+key.ID+"/revoke", nil, map[string]string{"Sec-Fetch-Site": "same-origin", "Origin": s.URL})
	if res.StatusCode != http.StatusSeeOther {
		t.Errorf("same-origin revoke: got %d, want 303", res.StatusCode)
	}
}

func TestProjectPagesAreForMembersOnly(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	owner := s.addUser(t, "owner@example.com")
	s.addUser(t, "stranger@example.com")
	p := s.createProject(t, owner)
	c := s.client(t)
	if res := s.login(t, c, "stranger@example.com", "correct horse"); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("login: got %d", res.StatusCode)
	}
	for _, path := range []string{"/projects/" + p.ID, "/projects/" + p.ID + "/keys", "/projects/doesnotexist/keys", "/projects/" + p.ID + "/analytics", "/projects/doesnotexist/analytics"} {
		res, body := s.get(t, c, path)
		if res.StatusCode != http.StatusNotFound || !strings.Contains(body, "Page not found") {
			t.Errorf("GET %s as a non-member: got %d, want the 404 page", path, res.StatusCode)
		}
	}
	res := s.post(t, c, "/projects/"+p.ID+"/keys", url.Values{"name": {"x"}, "scope": {"write"}, "expiry": {"7d"}}, nil)
	if res.StatusCode != http.StatusNotFound {
		t.Errorf("non-member key create: got %d, want 404", res.StatusCode)
	}
	if keys, _ := s.app.db.APIKeysForProject(context.Background(), p.ID); len(keys) != 0 {
		t.Errorf("a non-member issued a key")
	}
	if _, body := s.get(t, c, "/projects"); strings.Contains(body, p.ID) {
		t.Error("the project list shows a project the user is not a member of")
	}
}

// The dashboard refuses a key name by auth's rule, in its words, as the CLI does.
func TestDashboardKeyNameRule(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	owner := s.addUser(t, "owner@example.com")
	p := s.createProject(t, owner)
	c := s.client(t)
	if res := s.login(t, c, "owner@example.com", "correct horse"); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("login: got %d", res.StatusCode)
	}
	for _, name := range []string{"", "   ", strings.Repeat("k", 101)} {
		res, body := postForm(t, c, s.URL+"/projects/"+p.ID+"/keys", url.Values{"name": {name}, "scope": {"write"}, "expiry": {"7d"}}, nil)
		if res.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(body, auth.KeyNameRule) {
			t.Errorf("key named %q: got %d, want 422 saying %q", name, res.StatusCode, auth.KeyNameRule)
		}
	}
	if keys, _ := s.app.db.APIKeysForProject(context.Background(), p.ID); len(keys) != 0 {
		t.Fatalf("refused names stored keys: %+v", keys)
	}
	if res, _ := postForm(t, c, s.URL+"/projects/"+p.ID+"/keys", url.Values{"name": {"  ci "}, "scope": {"write"}, "expiry": {"7d"}}, nil); res.StatusCode != http.StatusCreated {
		t.Fatalf("key named ci: got %d, want 201", res.StatusCode)
	}
	if keys, _ := s.app.db.APIKeysForProject(context.Background(), p.ID); len(keys) != 1 || keys[0].Name != "ci" {
		t.Fatalf("keys after naming one ci: %+v", keys)
	}
}

func TestSignupPolicy(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		policy     string
		secondCode int
	}{
		{"open", http.StatusSeeOther},
		{"invite", http.StatusForbidden},
		{"closed", http.StatusForbidden},
	} {
		t.Run(tc.policy, func(t *testing.T) {
			s := newTestServer(t, withEnv(map[string]string{"FOLIO_SIGNUP": tc.policy}))
			s.signUp(t, s.client(t), "first@example.com") // the first user, whatever the policy
			res := s.post(t, s.client(t), "/signup", url.Values{"email": {"second@example.com"}, "password": {"correct horse"}}, nil)
			if res.StatusCode != tc.secondCode {
				t.Errorf("second sign-up under %s: got %d, want %d", tc.policy, res.StatusCode, tc.secondCode)
			}
		})
	}
}

func TestSignupValidates(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, withEnv(map[string]string{"FOLIO_SIGNUP": "open"}))
	c := s.client(t)
	for _, form := range []url.Values{
		{"email": {"not an email"}, "password": {"correct horse"}},
		{"email": {"ada@example.com"}, "password": {"short"}},
	} {
		if res := s.post(t, c, "/signup", form, nil); res.StatusCode != http.StatusUnprocessableEntity {
			t.Errorf("sign-up %v: got %d, want 422", form, res.StatusCode)
		}
	}
	s.signUp(t, c, "ada@example.com")
	if res := s.post(t, s.client(t), "/signup", url.Values{"email": {"ADA@example.com"}, "password": {"correct horse"}}, nil); res.StatusCode != http.StatusUnprocessableEntity {
		t.Errorf("sign-up with a taken email: got %d, want 422", res.StatusCode)
	}
}

func TestSignInAttemptsAreLimited(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	s.addUser(t, "ada@example.com")
	c := s.client(t)
	for i := range signInFailures {
		if res := s.login(t, c, "ada@example.com", "wrong password"); res.StatusCode != http.StatusUnauthorized {
			t.Fatalf("failed attempt %d: got %d, want 401", i+1, res.StatusCode)
		}
	}
	res := s.login(t, c, "ada@example.com", "correct horse")
	if res.StatusCode != http.StatusTooManyRequests || res.Header.Get("Retry-After") == "" {
		t.Errorf("after %d failures the right password: got %d (Retry-After %q), want 429 with Retry-After", signInFailures, res.StatusCode, res.Header.Get("Retry-After"))
	}
	// Another account from the same address is not locked out by it.
	s.addUser(t, "grace@example.com")
	if res := s.login(t, c, "grace@example.com", "correct horse"); res.StatusCode != http.StatusSeeOther {
		t.Errorf("another email: got %d, want 303", res.StatusCode)
	}
}

func TestSessionCookie(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		base   string
		secure bool
	}{{"", false}, {"https://folio.example.com", true}} {
		s := newTestServer(t, withEnv(map[string]string{"FOLIO_BASE_URL": tc.base}))
		res := s.post(t, s.client(t), "/signup", url.Values{"email": {"ada@example.com"}, "password": {"correct horse"}}, nil)
		var cookie *http.Cookie
		for _, ck := range res.Cookies() {
			if ck.Name == "folio_session" {
				cookie = ck
			}
		}
		if cookie == nil {
			t.Fatalf("base %q: no session cookie set on sign-up", tc.base)
		}
		if !cookie.HttpOnly || cookie.SameSite != http.SameSiteLaxMode || cookie.Secure != tc.secure {
			t.Errorf("base %q: cookie HttpOnly=%v SameSite=%v Secure=%v, want true, Lax, %v", tc.base, cookie.HttpOnly, cookie.SameSite, cookie.Secure, tc.secure)
		}
	}
}

func TestLoginNextStaysOnSite(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	s.addUser(t, "ada@example.com")
	for next, want := range map[string]string{"/projects/x/keys": "/projects/x/keys", "//evil.example/": "/projects", "https://evil.example/": "/projects", "/\\evil.example": "/projects"} {
		res := s.post(t, s.client(t), "/login", url.Values{"email": {"ada@example.com"}, "password": {"correct horse"}, "next": {next}}, nil)
		if res.Header.Get("Location") != want {
			t.Errorf("next=%q: redirected to %q, want %q", next, res.Header.Get("Location"), want)
		}
	}
}

func TestUnknownPathsAnswerHTMLToBrowsersAndJSONToTheAPI(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	c := s.client(t)
	res, body := s.get(t, c, "/no/such/page")
	if res.StatusCode != http.StatusNotFound || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/html") || !strings.Contains(body, "Page not found") {
		t.Errorf("browser on an unknown page: %d %s", res.StatusCode, res.Header.Get("Content-Type"))
	}
	for _, path := range []string{"/v2/agent/x/nothing", "/v1/nothing", "/api/nothing"} {
		res, body := s.get(t, c, path)
		if res.StatusCode != http.StatusNotFound || res.Header.Get("Content-Type") != "application/json" || !strings.Contains(body, `"code":"not_found"`) {
			t.Errorf("GET %s: got %d %s %s, want the JSON 404", path, res.StatusCode, res.Header.Get("Content-Type"), body)
		}
	}
}

// Guessing across many emails from one address is capped too, at five times
// the per-email limit.
func TestSignInAttemptsAreLimitedPerAddress(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	s.addUser(t, "ada@example.com")
	c := s.client(t)
	for i := range 5 * signInFailures {
		email := fmt.Sprintf("guess%d@example.com", i)
		if res := s.login(t, c, email, "wrong password"); res.StatusCode != http.StatusUnauthorized {
			t.Fatalf("failed attempt %d: got %d, want 401", i+1, res.StatusCode)
		}
	}
	if res := s.login(t, c, "ada@example.com", "correct horse"); res.StatusCode != http.StatusTooManyRequests {
		t.Errorf("after %d failures from one address, a new email: got %d, want 429", 5*signInFailures, res.StatusCode)
	}
}

func TestLogoutLink(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	if res, _ := s.get(t, s.client(t), "/logout"); res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/login" {
		t.Fatalf("signed out GET /logout: got %d to %q, want 303 to /login", res.StatusCode, res.Header.Get("Location"))
	}
	c := s.client(t)
	s.signUp(t, c, "ada@example.com")
	res, body := s.get(t, c, "/logout")
	if res.StatusCode != http.StatusOK || !strings.Contains(body, `action="/logout"`) {
		t.Fatalf("signed in GET /logout: got %d, want the page asking to sign out", res.StatusCode)
	}
	if res, _ := s.get(t, c, "/projects"); res.StatusCode != http.StatusOK {
		t.Fatalf("a GET of /logout signed the user out: /projects answered %d", res.StatusCode)
	}
	s.post(t, c, "/logout", nil, nil)
	if res, _ := s.get(t, c, "/projects"); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("after POST /logout, /projects answered %d, want a redirect to sign in", res.StatusCode)
	}
}
