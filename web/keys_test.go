package main

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/netip"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/folio-docs/folio/auth"
	"github.com/folio-docs/folio/db"
	"github.com/folio-docs/folio/model"
)

// keyCall is one request with a key: the status, the error code and the
// body, so two refusals can be compared byte for byte.
type keyCall struct {
	status int
	code   string
	body   string
}

// call asks GET path of s with key, through a proxy that sends xff as
// X-Forwarded-For (none when empty), over a real socket.
func (s *testServer) call(t *testing.T, key, path, xff string) keyCall {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, s.URL+path, nil)
	req.Header.Set("Authorization", "Bearer "+key)
	if xff != "" {
		req.Header.Set("X-Forwarded-For", xff)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	var e struct{ Code string }
	json.Unmarshal(raw, &e)
	// The request id differs from call to call; nothing else may.
	body := string(raw)
	if i := strings.Index(body, `"requestId"`); i >= 0 {
		body = body[:i]
	}
	return keyCall{res.StatusCode, e.Code, body}
}

// keysWorld is a server, a user (ada) who administers its project and a
// second one (b), and bob's project c.
type keysWorld struct {
	s       *testServer
	ada     model.User
	a, b, c model.Project
}

func newKeysWorld(t *testing.T, opts ...serverOption) keysWorld {
	t.Helper()
	s := newTestServer(t, opts...)
	w := keysWorld{s: s, ada: s.addUser(t, "ada@example.com"), a: s.project}
	if err := s.app.db.AddProjectMember(context.Background(), w.a.ID, w.ada.ID); err != nil {
		t.Fatal(err)
	}
	w.b = s.createProject(t, w.ada)
	w.c = s.createProject(t, s.addUser(t, "bob@example.com"))
	return w
}

func (w keysWorld) key(t *testing.T, nk auth.NewKey) string {
	t.Helper()
	nk.Name, nk.Scope, nk.Expiry = "k", model.ScopeRead, "never"
	plain, _, err := w.s.app.keys.Create(context.Background(), nk)
	if err != nil {
		t.Fatal(err)
	}
	return plain
}

// TestKeysAcrossProjects: a key opens the projects it was made for, or all
// of its creator's, through every keyed door; any other project is 404,
// answered exactly as for a project that does not exist.
func TestKeysAcrossProjects(t *testing.T) {
	t.Parallel()
	w := newKeysWorld(t)
	ctx := context.Background()
	several := w.key(t, auth.NewKey{Projects: []string{w.a.ID, w.b.ID}, CreatedBy: w.ada.ID})
	all := w.key(t, auth.NewKey{AllProjects: true, CreatedBy: w.ada.ID})
	for _, key := range []struct{ name, plain string }{{"several", several}, {"all", all}} {
		for _, door := range []string{"/v1/analytics/%s/visitors", "/v1/analytics/%s/views", "/v2/agent/%s/jobs"} {
			path := func(p string) string { return strings.Replace(door, "%s", p, 1) }
			for _, p := range []string{w.a.ID, w.b.ID} {
				if got := w.s.call(t, key.plain, path(p), ""); got.status != http.StatusOK {
					t.Errorf("%s key, %s: %d %s; want 200", key.name, path(p), got.status, got.body)
				}
			}
			other, none := w.s.call(t, key.plain, path(w.c.ID), ""), w.s.call(t, key.plain, path("no-such-project"), "")
			if other.status != http.StatusNotFound || other.code != "not_found" || other != none {
				t.Errorf("%s key, another's project: %+v; want 404 not_found, as for no project: %+v", key.name, other, none)
			}
		}
	}
	// The creator joins c: the key for all their projects opens it at once.
	if err := w.s.app.db.AddProjectMember(ctx, w.c.ID, w.ada.ID); err != nil {
		t.Fatal(err)
	}
	if got := w.s.call(t, all, "/v1/analytics/"+w.c.ID+"/visitors", ""); got.status != http.StatusOK {
		t.Errorf("all key after joining c: %d %s, want 200", got.status, got.body)
	}
	if got := w.s.call(t, several, "/v1/analytics/"+w.c.ID+"/visitors", ""); got.status != http.StatusNotFound {
		t.Errorf("several key on c: %d, want 404 (it names a and b only)", got.status)
	}
	// Revoked from b's keys, it stops for a too.
	list, _ := w.s.app.keys.List(ctx, w.b.ID)
	for _, k := range list {
		if !k.AllProjects {
			if err := w.s.app.keys.Revoke(ctx, w.b.ID, k.ID); err != nil {
				t.Fatal(err)
			}
		}
	}
	if got := w.s.call(t, several, "/v1/analytics/"+w.a.ID+"/visitors", ""); got.status != http.StatusUnauthorized {
		t.Errorf("several key revoked through b, on a: %d, want 401", got.status)
	}
}

// TestKeyAllowlistBehindATrustedProxy: the client is the address
// FOLIO_TRUSTED_PROXIES' rule reads from X-Forwarded-For (the right-most
// one that is not a trusted proxy); outside the key's allowlist, 403
// ip_not_allowed, before anything is said about the project.
func TestKeyAllowlistBehindATrustedProxy(t *testing.T) {
	t.Parallel()
	// The test's requests come from 127.0.0.1: the trusted proxy.
	w := newKeysWorld(t, withEnv(map[string]string{"FOLIO_TRUSTED_PROXIES": "127.0.0.1, 10.0.0.0/8"}))
	fenced := w.key(t, auth.NewKey{Projects: []string{w.a.ID}, AllowIPs: "203.0.113.0/24,2001:db8::/32"})
	visitors := "/v1/analytics/" + w.a.ID + "/visitors"
	for _, tc := range []struct {
		xff  string
		want int
	}{
		{"203.0.113.7", 200},
		{"2001:db8:1::7", 200},
		{"::ffff:203.0.113.7", 200},
		{"198.51.100.7", 403},
		{"2001:db9::7", 403},
		{"", 403}, // no header: the client is the proxy itself
		// A client's own forged hop, left of what the proxy appended, is not believed.
		{"203.0.113.7, 198.51.100.7", 403},
		{"198.51.100.7, 203.0.113.7", 200},
		// Through a second trusted proxy (10.0.0.0/8): the client is before it.
		{"203.0.113.7, 10.1.2.3", 200},
		{"198.51.100.7, 10.1.2.3", 403},
		// A malformed hop stops the walk: the client is the proxy.
		{"203.0.113.7, junk", 403},
	} {
		got := w.s.call(t, fenced, visitors, tc.xff)
		if got.status != tc.want || tc.want == 403 && got.code != "ip_not_allowed" {
			t.Errorf("X-Forwarded-For %q: %d %s; want %d", tc.xff, got.status, got.body, tc.want)
		}
	}
	// Outside the allowlist nothing is said about projects: the same 403.
	if got := w.s.call(t, fenced, "/v1/analytics/no-such-project/visitors", "198.51.100.7"); got.status != 403 || got.code != "ip_not_allowed" {
		t.Errorf("outside the allowlist, no project: %d %s; want 403 ip_not_allowed", got.status, got.body)
	}
	if got := w.s.call(t, fenced, "/v1/analytics/"+w.c.ID+"/visitors", "203.0.113.7"); got.status != 404 {
		t.Errorf("inside the allowlist, another's project: %d, want 404", got.status)
	}
	// The git door applies the same rule.
	gitCall := func(xff string) int {
		req, _ := http.NewRequest(http.MethodGet, w.s.URL+"/git/"+w.a.ID+".git/info/refs?service=git-upload-pack", nil)
		req.SetBasicAuth("anyone", fenced)
		req.Header.Set("X-Forwarded-For", xff)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode
	}
	// (Inside, it gets as far as the repository: acme/docs is GitHub's, not Folio's to serve.)
	if in, out := gitCall("203.0.113.7"), gitCall("198.51.100.7"); in != http.StatusNotFound || out != http.StatusForbidden {
		t.Errorf("git: inside the allowlist %d, outside %d; want 404 (the repository is not local) and 403", in, out)
	}
}

// TestKeyAllowlistBehindAnUntrustedProxy: when the peer is not a trusted
// proxy its X-Forwarded-For is not believed; the peer is the client.
func TestKeyAllowlistBehindAnUntrustedProxy(t *testing.T) {
	t.Parallel()
	// Only 10.0.0.0/8 is trusted; the test's requests come from 127.0.0.1.
	w := newKeysWorld(t, withEnv(map[string]string{"FOLIO_TRUSTED_PROXIES": "10.0.0.0/8"}))
	forClients := w.key(t, auth.NewKey{Projects: []string{w.a.ID}, AllowIPs: "203.0.113.0/24"})
	forThePeer := w.key(t, auth.NewKey{Projects: []string{w.a.ID}, AllowIPs: "127.0.0.1"})
	visitors := "/v1/analytics/" + w.a.ID + "/visitors"
	for _, tc := range []struct {
		key, xff string
		want     int
	}{
		{forClients, "203.0.113.7", 403},
		{forClients, "", 403},
		{forThePeer, "198.51.100.7", 200},
		{forThePeer, "", 200},
	} {
		got := w.s.call(t, tc.key, visitors, tc.xff)
		if got.status != tc.want || tc.want == 403 && got.code != "ip_not_allowed" {
			t.Errorf("key for %s, X-Forwarded-For %q from an untrusted peer: %d %s; want %d",
				map[bool]string{true: "203.0.113.0/24", false: "127.0.0.1"}[tc.key == forClients], tc.xff, got.status, got.body, tc.want)
		}
	}
}

// TestCLIKeysAcrossProjects: folio key create's --project (repeated),
// --all-projects with --owner, and --allow-ip; key list shows them.
func TestCLIKeysAcrossProjects(t *testing.T) {
	t.Parallel()
	te := newTestEnv(t)
	te.must(t, "correct horse battery\n", "user", "create", "--email", "ada@example.com", "--password-stdin")
	te.must(t, "correct horse battery\n", "user", "create", "--email", "bob@example.com", "--password-stdin")
	project := func(owner string) string {
		return te.must(t, "", "project", "create", "--name", "Docs", "--repo", "acme/docs", "--owner", owner)
	}
	a, b, c := project("ada@example.com"), project("ada@example.com"), project("bob@example.com")

	several := te.must(t, "", "key", "create", "--project", a, "--project", b, "--allow-ip", "10.0.0.0/8,2001:db8::/32", "--allow-ip", "192.0.2.7")
	all := te.must(t, "", "key", "create", "--all-projects", "--owner", "ada@example.com", "--scope", "read")
	for _, k := range []string{several, all} {
		if !auth.WellFormed(k) {
			t.Fatalf("key create printed %q, want only a key", k)
		}
	}
	list := te.must(t, "", "key", "list", "--project", b)
	if lines := strings.Split(list, "\n"); len(lines) != 2 ||
		!strings.Contains(list, a+","+b) || !strings.Contains(list, "10.0.0.0/8,2001:db8::/32,192.0.2.7/32") ||
		!strings.Contains(list, "all:ada@example.com") || !strings.Contains(list, "any") {
		t.Fatalf("key list of b:\n%s\nwant both keys, their projects and allowlists", list)
	}
	if list := te.must(t, "", "key", "list", "--project", c); list != "" {
		t.Fatalf("key list of bob's project:\n%s\nwant none of ada's keys", list)
	}

	d, err := db.Open(context.Background(), te["FOLIO_DATA_DIR"]+"/folio.db")
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	keys := auth.NewKeys(d)
	inside, outside := netip.MustParseAddr("10.9.8.7"), netip.MustParseAddr("198.51.100.7")
	for _, tc := range []struct {
		name, key, project string
		from               netip.Addr
		want               error
	}{
		{"several on a", several, a, inside, nil},
		{"several on b", several, b, netip.MustParseAddr("2001:db8::1"), nil},
		{"several on c", several, c, inside, model.ErrProjectNotFound},
		{"several from outside", several, a, outside, model.ErrIPNotAllowed},
		{"all on a", all, a, outside, nil},
		{"all on c", all, c, outside, model.ErrProjectNotFound},
	} {
		if _, err := keys.Admit(context.Background(), "Bearer "+tc.key, tc.project, tc.from); !errors.Is(err, tc.want) && (err != nil || tc.want != nil) {
			t.Errorf("%s: %v, want %v", tc.name, err, tc.want)
		}
	}

	// Refusals: a usage error exits 2, a refused value 1 naming its flag, in one line.
	for _, bad := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--all-projects"}, 2, "--owner"},
		{[]string{"--all-projects", "--owner", "ada@example.com", "--project", a}, 2, "not both"},
		{[]string{"--project", a, "--allow-ip", "10.0.0.1/8"}, 1, "--allow-ip: \"10.0.0.1/8\" has bits set"},
		{[]string{"--project", a, "--allow-ip", "intranet"}, 1, "--allow-ip: \"intranet\" is not an IP address"},
		{[]string{"--project", a, "--project", "nope"}, 1, "--project: There is no project with the id \"nope\""},
		{[]string{"--project", c, "--owner", "ada@example.com"}, 1, "--project: No project"},
		{[]string{"--all-projects", "--owner", "nobody@example.com"}, 1, "no user with email nobody@example.com"},
	} {
		code, out, errs := te.folio(t, "", append([]string{"key", "create"}, bad.args...)...)
		if code != bad.code || out != "" || !strings.Contains(errs, bad.want) || bad.code == 1 && strings.Count(strings.TrimSpace(errs), "\n") != 0 {
			t.Errorf("key create %v: exit %d, stdout %q, stderr %q; want exit %d and %q", bad.args, code, out, errs, bad.code, bad.want)
		}
	}
	if list := te.must(t, "", "key", "list", "--project", a); len(strings.Split(list, "\n")) != 2 {
		t.Fatalf("refused keys were stored:\n%s", list)
	}
}

// TestGitDoorTakesNoIngestKey: git over HTTP opens the project's local
// repository to its read and write keys; an ingest key, which a third party
// holds to send traffic (a drain, a CDN), is refused (403) and clones
// nothing, as the API refuses it every door but the events API and the
// drains.
func TestGitDoorTakesNoIngestKey(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	s.useRepository(t, newDocsRepo(t))
	repo := s.URL + "/git/" + s.project.ID + ".git"
	for _, scope := range []string{model.ScopeRead, model.ScopeWrite, model.ScopeIngest} {
		plain, _, err := s.app.keys.Issue(context.Background(), s.project.ID, scope, scope, "never")
		if err != nil {
			t.Fatal(err)
		}
		req, _ := http.NewRequest(http.MethodGet, repo+"/info/refs?service=git-upload-pack", nil)
		req.SetBasicAuth("anyone", plain)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		want := http.StatusOK
		if scope == model.ScopeIngest {
			want = http.StatusForbidden
		}
		if res.StatusCode != want || want == http.StatusForbidden && !strings.Contains(string(body), "ingest scope") {
			t.Errorf("the %s key asking for the refs: %d %s; want %d", scope, res.StatusCode, body, want)
		}
		// git itself, with the key as the password.
		clone := filepath.Join(t.TempDir(), "clone")
		out, err := exec.Command("git", "clone", "--quiet", strings.Replace(repo, "http://", "http://anyone:"+plain+"@", 1), clone).CombinedOutput()
		if cloned := err == nil; cloned != (scope != model.ScopeIngest) {
			t.Errorf("git clone with the %s key: %v %s; want it to clone: %v", scope, err, out, scope != model.ScopeIngest)
		}
	}
}
