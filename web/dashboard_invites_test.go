package main

import (
	"bytes"
	"context"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/folio-docs/folio/auth"
	"github.com/folio-docs/folio/db"
	"github.com/folio-docs/folio/model"
)

var inviteLink = regexp.MustCompile(`<code id="invite-link">([^<]+)</code>`)

// invite creates an invitation through the settings page as the member
// signed in on c, and returns the page's status and the link's token.
func (s *testServer) invite(t *testing.T, c *http.Client, projectID, email string) string {
	t.Helper()
	res, body := postForm(t, c, s.URL+"/projects/"+projectID+"/invitations", url.Values{"email": {email}}, nil)
	m := inviteLink.FindStringSubmatch(body)
	if res.StatusCode != http.StatusCreated || m == nil {
		t.Fatalf("create invitation for %s: got %d, link %v; want 201 with the link", email, res.StatusCode, m)
	}
	link := strings.ReplaceAll(m[1], "&amp;", "&")
	prefix := s.app.cfg.BaseURL + "/signup?invite="
	if !strings.HasPrefix(link, prefix) {
		t.Fatalf("link %q, want %s…", link, prefix)
	}
	token, _ := url.QueryUnescape(strings.TrimPrefix(link, prefix))
	return token
}

// projectWithOwner is a dashboard server under policy ("" for the default)
// with a first user, signed in on the returned client, and their project.
func projectWithOwner(t *testing.T, policy string) (*testServer, *http.Client, model.User, model.Project) {
	t.Helper()
	var vars map[string]string
	if policy != "" {
		vars = map[string]string{"FOLIO_SIGNUP": policy}
	}
	s := newTestServer(t, withEnv(vars))
	c := s.client(t)
	owner := s.signUp(t, c, "owner@example.com")
	return s, c, owner, s.createProject(t, owner)
}

func TestInvitationSignsUpAndJoins(t *testing.T) {
	t.Parallel()
	s, oc, owner, p := projectWithOwner(t, "invite")
	ctx := context.Background()
	token := s.invite(t, oc, p.ID, "grace@example.com")

	// Only the hash is kept: the token is nowhere in the database files.
	invs, _ := s.app.db.InvitationsForProject(ctx, p.ID)
	if len(invs) != 1 || !bytes.Equal(invs[0].Hash, auth.HashKey(token)) || invs[0].InvitedBy != owner.ID {
		t.Fatalf("stored invitations %+v", invs)
	}
	for _, f := range []string{s.app.db.Path(), s.app.db.Path() + "-wal"} {
		if b, _ := os.ReadFile(f); bytes.Contains(b, []byte(token)) {
			t.Errorf("%s holds the invitation token itself", f)
		}
	}
	if _, body := s.get(t, oc, "/projects/"+p.ID); strings.Contains(body, token) || !strings.Contains(body, "grace@example.com") || !strings.Contains(body, "pending") {
		t.Error("after reload the settings page must list the invitation (pending) without its link")
	}

	// A stranger is refused, but the invited address signs up, whatever the form says its email is.
	gc := s.client(t)
	if res := s.post(t, gc, "/signup", url.Values{"email": {"grace@example.com"}, "password": {"correct horse"}}, nil); res.StatusCode != http.StatusForbidden {
		t.Errorf("sign-up without the link under invite: got %d, want 403", res.StatusCode)
	}
	res, body := s.get(t, gc, "/signup?invite="+url.QueryEscape(token))
	if res.StatusCode != http.StatusOK || !regexp.MustCompile(`value="grace@example.com"[^>]*readonly`).MatchString(body) || !strings.Contains(body, "Acme docs") || !strings.Contains(body, "owner@example.com") {
		t.Fatalf("invitation link: got %d, want the form with the email fixed:\n%s", res.StatusCode, body)
	}
	res = s.post(t, gc, "/signup", url.Values{"invite": {token}, "email": {"mallory@example.com"}, "password": {"correct horse"}}, nil)
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/projects/"+p.ID {
		t.Fatalf("sign-up with the link: got %d to %q, want 303 to the project", res.StatusCode, res.Header.Get("Location"))
	}
	grace, err := s.app.db.UserByEmail(ctx, "grace@example.com")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.app.db.UserByEmail(ctx, "mallory@example.com"); err == nil {
		t.Error("the form's email was used instead of the invitation's")
	}
	if ok, _ := s.app.db.IsProjectMember(ctx, p.ID, grace.ID); !ok {
		t.Error("the invited user is not a member")
	}
	if res, _ := s.get(t, gc, "/projects/"+p.ID); res.StatusCode != http.StatusOK {
		t.Errorf("the new member opening the project: got %d", res.StatusCode)
	}
	if _, body := s.get(t, oc, "/projects/"+p.ID); !strings.Contains(body, "badge-used") {
		t.Error("the settings page does not show the invitation as used")
	}

	// The link works once.
	res, body = s.get(t, s.client(t), "/signup?invite="+url.QueryEscape(token))
	if res.StatusCode != http.StatusGone || !strings.Contains(body, "This invitation has been used") {
		t.Errorf("a used link: got %d, want 410 saying it has been used", res.StatusCode)
	}
	if res := s.post(t, s.client(t), "/signup", url.Values{"invite": {token}, "password": {"correct horse"}}, nil); res.StatusCode != http.StatusGone {
		t.Errorf("signing up again with a used link: got %d, want 410", res.StatusCode)
	}
}

func TestInvitationRefusedLinks(t *testing.T) {
	t.Parallel()
	s, oc, _, p := projectWithOwner(t, "")
	ctx := context.Background()

	revoked := s.invite(t, oc, p.ID, "gone@example.com")
	invs, _ := s.app.db.InvitationsForProject(ctx, p.ID)
	if res := s.post(t, oc, "/projects/"+p.ID+"/invitations/"+invs[0].ID+"/revoke", nil, nil); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("revoke: got %d, want 303", res.StatusCode)
	}
	if list, _ := s.app.db.InvitationsForProject(ctx, p.ID); list[0].RevokedAt == nil {
		t.Fatal("the invitation is not revoked")
	}
	expired := strings.Repeat("e", 43)
	if _, err := s.app.db.CreateInvitation(ctx, model.Invitation{ProjectID: p.ID, Email: "late@example.com", Hash: auth.HashKey(expired), ExpiresAt: time.Now().Add(-time.Second)}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		token string
		code  int
		says  string
	}{
		{revoked, http.StatusGone, "This invitation was revoked"},
		{expired, http.StatusGone, "This invitation has expired"},
		{strings.Repeat("u", 43), http.StatusNotFound, "This invitation link is not valid"},
		{"garbage", http.StatusNotFound, "This invitation link is not valid"},
	} {
		res, body := s.get(t, s.client(t), "/signup?invite="+url.QueryEscape(tc.token))
		if res.StatusCode != tc.code || !strings.Contains(body, tc.says) {
			t.Errorf("GET link %q: got %d, want %d saying %q", tc.token, res.StatusCode, tc.code, tc.says)
		}
		if res := s.post(t, s.client(t), "/signup", url.Values{"invite": {tc.token}, "password": {"correct horse"}}, nil); res.StatusCode != tc.code {
			t.Errorf("POST with link %q: got %d, want %d", tc.token, res.StatusCode, tc.code)
		}
	}
	for _, email := range []string{"gone@example.com", "late@example.com"} {
		if _, err := s.app.db.UserByEmail(ctx, email); err == nil {
			t.Errorf("%s signed up with a refused link", email)
		}
	}

	// Revoking: another project's invitation is not found; a used one cannot be.
	other := s.addUser(t, "other@example.com")
	op, _ := s.app.db.CreateProject(ctx, model.Project{Name: "Other", Repository: "o/docs", OwnerID: other.ID})
	if res := s.post(t, oc, "/projects/"+op.ID+"/invitations/"+invs[0].ID+"/revoke", nil, nil); res.StatusCode != http.StatusNotFound {
		t.Errorf("revoke through a project one is not a member of: got %d, want 404", res.StatusCode)
	}
	if res := s.post(t, oc, "/projects/"+p.ID+"/invitations/nope/revoke", nil, nil); res.StatusCode != http.StatusNotFound {
		t.Errorf("revoke of an unknown invitation: got %d, want 404", res.StatusCode)
	}
	used := s.invite(t, oc, p.ID, "grace@example.com")
	if res := s.post(t, s.client(t), "/signup", url.Values{"invite": {used}, "password": {"correct horse"}}, nil); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("sign-up: got %d", res.StatusCode)
	}
	inv, _ := s.app.db.InvitationByHash(ctx, auth.HashKey(used))
	if res, body := postForm(t, oc, s.URL+"/projects/"+p.ID+"/invitations/"+inv.ID+"/revoke", nil, nil); res.StatusCode != http.StatusConflict || !strings.Contains(body, "has been used already") {
		t.Errorf("revoke of a used invitation: got %d, want 409 saying it was used", res.StatusCode)
	}
}

func TestInvitationCreateValidates(t *testing.T) {
	t.Parallel()
	s, oc, _, p := projectWithOwner(t, "")
	for email, says := range map[string]string{
		"not an email":      "Enter an email address",
		"":                  "Enter an email address",
		"OWNER@example.com": "already a member",
	} {
		res, body := postForm(t, oc, s.URL+"/projects/"+p.ID+"/invitations", url.Values{"email": {email}}, nil)
		if res.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(body, says) {
			t.Errorf("invite %q: got %d, want 422 saying %q", email, res.StatusCode, says)
		}
	}
	if invs, _ := s.app.db.InvitationsForProject(context.Background(), p.ID); len(invs) != 0 {
		t.Errorf("refused forms made %d invitations", len(invs))
	}
	stranger := s.client(t)
	s.addUser(t, "stranger@example.com")
	s.login(t, stranger, "stranger@example.com", "correct horse")
	if res := s.post(t, stranger, "/projects/"+p.ID+"/invitations", url.Values{"email": {"x@example.com"}}, nil); res.StatusCode != http.StatusNotFound {
		t.Errorf("a non-member inviting: got %d, want 404", res.StatusCode)
	}
}

func TestInvitationForAnExistingAccount(t *testing.T) {
	t.Parallel()
	s, oc, _, p := projectWithOwner(t, "")
	ctx := context.Background()
	ada := s.addUser(t, "ada@example.com")
	s.addUser(t, "mallory@example.com")
	token := s.invite(t, oc, p.ID, "ada@example.com")
	link := "/signup?invite=" + url.QueryEscape(token)

	// Signed in as someone else: refused, and the link stays usable.
	mc := s.client(t)
	s.login(t, mc, "mallory@example.com", "correct horse")
	if res, body := s.get(t, mc, link); res.StatusCode != http.StatusForbidden || !strings.Contains(body, "for someone else") {
		t.Errorf("someone else's link: got %d, want 403 saying it is for someone else", res.StatusCode)
	}
	if res := s.post(t, mc, "/invitations/accept", url.Values{"invite": {token}}, nil); res.StatusCode != http.StatusForbidden {
		t.Errorf("accepting someone else's link: got %d, want 403", res.StatusCode)
	}

	// Signed out, the link asks to sign in and comes back.
	ac := s.client(t)
	res, body := s.get(t, ac, link)
	next := "/login?next=" + url.QueryEscape(link)
	if res.StatusCode != http.StatusOK || !strings.Contains(body, `href="`+strings.ReplaceAll(next, "&", "&amp;")+`"`) {
		t.Fatalf("the link signed out with an account: got %d, want a sign-in link to %s:\n%s", res.StatusCode, next, body)
	}
	res = s.post(t, ac, "/login", url.Values{"email": {"ada@example.com"}, "password": {"correct horse"}, "next": {link}}, nil)
	if res.Header.Get("Location") != link {
		t.Fatalf("sign-in went to %q, want back to %s", res.Header.Get("Location"), link)
	}
	if res, body := s.get(t, ac, link); res.StatusCode != http.StatusOK || !strings.Contains(body, `action="/invitations/accept"`) {
		t.Fatalf("the link signed in: got %d, want the join button", res.StatusCode)
	}
	res = s.post(t, ac, "/invitations/accept", url.Values{"invite": {token}}, nil)
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/projects/"+p.ID {
		t.Fatalf("join: got %d to %q, want 303 to the project", res.StatusCode, res.Header.Get("Location"))
	}
	if ok, _ := s.app.db.IsProjectMember(ctx, p.ID, ada.ID); !ok {
		t.Error("joined but not a member")
	}
	if res := s.post(t, ac, "/invitations/accept", url.Values{"invite": {token}}, nil); res.StatusCode != http.StatusGone {
		t.Errorf("joining twice with one link: got %d, want 410", res.StatusCode)
	}
}

func TestInvitationsUnderEachSignupPolicy(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		policy                    string
		strangerCode, invitedCode int
	}{{"open", http.StatusSeeOther, http.StatusSeeOther}, {"invite", http.StatusForbidden, http.StatusSeeOther}, {"closed", http.StatusForbidden, http.StatusForbidden}} {
		t.Run(tc.policy, func(t *testing.T) {
			s, oc, _, p := projectWithOwner(t, tc.policy)
			if res := s.post(t, s.client(t), "/signup", url.Values{"email": {"stranger@example.com"}, "password": {"correct horse"}}, nil); res.StatusCode != tc.strangerCode {
				t.Errorf("a stranger signing up: got %d, want %d", res.StatusCode, tc.strangerCode)
			}
			token := s.invite(t, oc, p.ID, "grace@example.com")
			if res := s.post(t, s.client(t), "/signup", url.Values{"invite": {token}, "password": {"correct horse"}}, nil); res.StatusCode != tc.invitedCode {
				t.Fatalf("sign-up with an invitation: got %d, want %d", res.StatusCode, tc.invitedCode)
			}
			wantMembers := 2
			if tc.policy == "closed" {
				// No account was created; once the operator makes one, the same link joins it.
				if res, _ := s.get(t, s.client(t), "/signup?invite="+token); res.StatusCode != http.StatusForbidden {
					t.Errorf("opening the link under closed: got %d, want 403", res.StatusCode)
				}
				hash, _ := auth.HashPassword("correct horse")
				if _, err := s.app.db.CreateUser(context.Background(), "grace@example.com", hash); err != nil {
					t.Fatal(err)
				}
				gc := s.client(t)
				if res := s.post(t, gc, "/login", url.Values{"email": {"grace@example.com"}, "password": {"correct horse"}}, nil); res.StatusCode != http.StatusSeeOther {
					t.Fatalf("operator-made account signing in: %d", res.StatusCode)
				}
				if res := s.post(t, gc, "/invitations/accept", url.Values{"invite": {token}}, nil); res.StatusCode != http.StatusSeeOther {
					t.Fatalf("joining with the link under closed: got %d, want 303", res.StatusCode)
				}
			}
			if ms, _ := s.app.db.ProjectMembers(context.Background(), p.ID); len(ms) != wantMembers || ms[1].Email != "grace@example.com" {
				t.Errorf("members after the invitation: %+v", ms)
			}
			_, body := s.get(t, oc, "/projects/"+p.ID)
			hint := map[string]string{"open": "Anyone may also sign up", "invite": "invite-only", "closed": "only an operator creates accounts"}[tc.policy]
			if !strings.Contains(body, hint) {
				t.Errorf("settings hint under %s lacks %q", tc.policy, hint)
			}
		})
	}
}

func TestSimultaneousFirstSignUpsOneWins(t *testing.T) {
	t.Parallel()
	for _, policy := range []string{"invite", "closed"} {
		t.Run(policy, func(t *testing.T) {
			s := newTestServer(t, withEnv(map[string]string{"FOLIO_SIGNUP": policy}))
			const n = 6
			codes := make([]int, n)
			var wg sync.WaitGroup
			for i := range n {
				wg.Add(1)
				go func() {
					defer wg.Done()
					c := s.client(t)
					req, _ := http.NewRequest(http.MethodPost, s.URL+"/signup", strings.NewReader(url.Values{"email": {"admin" + string(rune('a'+i)) + "@example.com"}, "password": {"correct horse"}}.Encode()))
					req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
					res, err := c.Do(req)
					if err != nil {
						t.Error(err)
						return
					}
					res.Body.Close()
					codes[i] = res.StatusCode
				}()
			}
			wg.Wait()
			won := 0
			for _, c := range codes {
				if c == http.StatusSeeOther {
					won++
				} else if c != http.StatusForbidden {
					t.Errorf("a losing first sign-up: got %d, want 403", c)
				}
			}
			if n2, _ := s.app.db.CountUsers(context.Background()); won != 1 || n2 != 1 {
				t.Fatalf("%d simultaneous first sign-ups: %v; %d users; want exactly one", n, codes, n2)
			}
		})
	}
}

func TestMemberRemove(t *testing.T) {
	t.Parallel()
	s, oc, owner, p := projectWithOwner(t, "")
	ctx := context.Background()
	grace := s.addUser(t, "grace@example.com")
	remove := func(c *http.Client, u model.User) (*http.Response, string) {
		return postForm(t, c, s.URL+"/projects/"+p.ID+"/members/"+u.ID+"/remove", nil, nil)
	}

	// The only member stays.
	if res, body := remove(oc, owner); res.StatusCode != http.StatusConflict || !strings.Contains(body, "is the only member, and a project keeps at least one") {
		t.Errorf("removing the last member: got %d, want 409 with the reason", res.StatusCode)
	}
	if _, body := s.get(t, oc, "/projects/"+p.ID); strings.Contains(body, "/remove") || !strings.Contains(body, "A project keeps at least one member.") {
		t.Error("the only member is offered a remove button, or no word on why not")
	}
	if res, _ := remove(oc, grace); res.StatusCode != http.StatusNotFound {
		t.Errorf("removing a non-member: got %d, want 404", res.StatusCode)
	}

	// A member removes another, with a confirmation on the button.
	s.app.db.AddProjectMember(ctx, p.ID, grace.ID)
	_, body := s.get(t, oc, "/projects/"+p.ID)
	if !strings.Contains(body, `action="/projects/`+p.ID+`/members/`+grace.ID+`/remove"`) || !strings.Contains(body, `hx-confirm="Remove grace@example.com from Acme docs?`) {
		t.Error("no confirmed remove button for the teammate")
	}
	res, _ := remove(oc, grace)
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/projects/"+p.ID+"#members" {
		t.Errorf("remove: got %d to %q", res.StatusCode, res.Header.Get("Location"))
	}
	if ok, _ := s.app.db.IsProjectMember(ctx, p.ID, grace.ID); ok {
		t.Error("still a member after removal")
	}

	// Removing yourself: off to /projects, and the project is closed to you.
	s.app.db.AddProjectMember(ctx, p.ID, grace.ID)
	gc := s.client(t)
	s.login(t, gc, "grace@example.com", "correct horse")
	if res, _ := remove(gc, grace); res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/projects" {
		t.Errorf("leaving: got %d to %q, want 303 to /projects", res.StatusCode, res.Header.Get("Location"))
	}
	if res, _ := s.get(t, gc, "/projects/"+p.ID); res.StatusCode != http.StatusNotFound {
		t.Errorf("the project after leaving: got %d, want 404", res.StatusCode)
	}
	if res, _ := remove(gc, owner); res.StatusCode != http.StatusNotFound {
		t.Errorf("a former member removing the owner: got %d, want 404", res.StatusCode)
	}
}

func TestCLIInviteCreate(t *testing.T) {
	t.Parallel()
	te := newTestEnv(t)
	te["FOLIO_BASE_URL"] = "https://folio.example.com"
	te.must(t, "s3cret-passw0rd\n", "user", "create", "--email", "ada@example.com", "--password-stdin")
	pid := te.must(t, "", "project", "create", "--name", "Docs", "--repo", newDocsRepo(t), "--owner", "ada@example.com")
	link := te.must(t, "", "invite", "create", "--project", pid, "--email", "grace@example.com")
	token, ok := strings.CutPrefix(link, "https://folio.example.com/signup?invite=")
	if !ok || len(token) != 43 {
		t.Fatalf("invite create printed %q, want only the link", link)
	}
	if code, _, errs := te.folio(t, "", "invite", "create", "--project", "nope", "--email", "grace@example.com"); code != 1 || !strings.Contains(errs, "no project") {
		t.Errorf("unknown project: exit %d, %q", code, errs)
	}
	if code, _, _ := te.folio(t, "", "invite", "create", "--project", pid); code != 2 {
		t.Errorf("missing --email: exit %d, want 2", code)
	}
	d, err := db.Open(context.Background(), te["FOLIO_DATA_DIR"]+"/folio.db")
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	inv, err := d.InvitationByHash(context.Background(), auth.HashKey(token))
	if err != nil || inv.ProjectID != pid || inv.Email != "grace@example.com" || inv.InvitedBy != "" {
		t.Fatalf("stored invitation %+v, %v", inv, err)
	}
}
