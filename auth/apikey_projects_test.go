package auth_test

import (
	"context"
	"errors"
	"net/netip"
	"slices"
	"strings"
	"testing"

	"github.com/folio-docs/folio/auth"
	"github.com/folio-docs/folio/db"
	"github.com/folio-docs/folio/internal/testenv"
	"github.com/folio-docs/folio/model"
)

// projectsWorld is a database with a user who administers projects a and
// b, and project c, which is somebody else's.
type projectsWorld struct {
	keys     *auth.Keys
	db       *db.DB
	user     model.User
	other    model.User
	a, b, c  model.Project
	anywhere netip.Addr
}

func newProjectsWorld(t *testing.T) projectsWorld {
	t.Helper()
	ctx := context.Background()
	d := testenv.NewDB(t)
	w := projectsWorld{keys: auth.NewKeys(d), db: d, anywhere: netip.MustParseAddr("192.0.2.1")}
	var err error
	if w.user, err = d.CreateUser(ctx, "ada@example.com", "hash"); err != nil {
		t.Fatal(err)
	}
	if w.other, err = d.CreateUser(ctx, "bob@example.com", "hash"); err != nil {
		t.Fatal(err)
	}
	for _, p := range []struct {
		dst   *model.Project
		owner string
	}{{&w.a, w.user.ID}, {&w.b, w.user.ID}, {&w.c, w.other.ID}} {
		if *p.dst, err = d.CreateProject(ctx, model.Project{Name: "docs", Repository: "acme/docs", OwnerID: p.owner}); err != nil {
			t.Fatal(err)
		}
	}
	return w
}

// admits says which of projects the key opens, from w.anywhere.
func (w projectsWorld) admits(t *testing.T, plain string, projects ...string) []bool {
	t.Helper()
	out := make([]bool, len(projects))
	for i, p := range projects {
		_, err := w.keys.Admit(context.Background(), "Bearer "+plain, p, w.anywhere)
		switch {
		case err == nil:
			out[i] = true
		case !errors.Is(err, model.ErrProjectNotFound):
			t.Fatalf("Admit(%s) = %v, want nil or ErrProjectNotFound", p, err)
		}
	}
	return out
}

func TestKeyForSeveralProjects(t *testing.T) {
	w := newProjectsWorld(t)
	ctx := context.Background()
	plain, rec, err := w.keys.Create(ctx, auth.NewKey{Name: "ci", Scope: model.ScopeRead, Expiry: "never",
		Projects: []string{w.b.ID, w.a.ID, w.b.ID}, CreatedBy: w.user.ID})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(rec.Projects, []string{w.b.ID, w.a.ID}) {
		t.Fatalf("projects %v, want b and a once each, in the order given", rec.Projects)
	}
	// Another's project and one that does not exist are refused alike.
	if got := w.admits(t, plain, w.a.ID, w.b.ID, w.c.ID, "nope", ""); !slices.Equal(got, []bool{true, true, false, false, false}) {
		t.Fatalf("opens a, b, c, nope, none: %v; want a and b only", got)
	}
	k, err := w.db.APIKeyByHash(ctx, auth.HashKey(plain))
	if err != nil || !slices.Equal(k.Projects, []string{w.b.ID, w.a.ID}) || k.AllProjects || k.CreatedBy != w.user.ID || k.Creator != "ada@example.com" {
		t.Fatalf("stored key %+v, %v", k, err)
	}
	for _, p := range []struct {
		project model.Project
		listed  bool
	}{{w.a, true}, {w.b, true}, {w.c, false}} {
		list, err := w.keys.List(ctx, p.project.ID)
		if err != nil || slices.ContainsFunc(list, func(l model.APIKey) bool { return l.ID == rec.ID }) != p.listed {
			t.Errorf("keys of %s: %d keys, %v; want the key listed: %v", p.project.ID, len(list), err, p.listed)
		}
	}
	// Revoked from a project it does not open: not found, and still good.
	if err := w.keys.Revoke(ctx, w.c.ID, rec.ID); !errors.Is(err, model.ErrNotFound) {
		t.Fatalf("revoke through c: %v, want ErrNotFound", err)
	}
	// Revoked through one project, it stops for all of them at once.
	if err := w.keys.Revoke(ctx, w.b.ID, rec.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := w.keys.Admit(ctx, "Bearer "+plain, w.a.ID, w.anywhere); !errors.Is(err, model.ErrUnknownKey) {
		t.Fatalf("revoked key on a: %v, want ErrUnknownKey", err)
	}
}

func TestKeyForAllProjects(t *testing.T) {
	w := newProjectsWorld(t)
	ctx := context.Background()
	plain, rec, err := w.keys.Create(ctx, auth.NewKey{Name: "all", Scope: model.ScopeWrite, Expiry: "90d", AllProjects: true, CreatedBy: w.user.ID})
	if err != nil {
		t.Fatal(err)
	}
	if !rec.AllProjects || len(rec.Projects) != 0 {
		t.Fatalf("record %+v, want all projects and none listed", rec)
	}
	if got := w.admits(t, plain, w.a.ID, w.b.ID, w.c.ID, "nope"); !slices.Equal(got, []bool{true, true, false, false}) {
		t.Fatalf("opens a, b, c, nope: %v; want the creator's: a and b", got)
	}
	// The creator joins c: the key opens it at once, and c lists it.
	if err := w.db.AddProjectMember(ctx, w.c.ID, w.user.ID); err != nil {
		t.Fatal(err)
	}
	if got := w.admits(t, plain, w.c.ID); !got[0] {
		t.Fatal("the key does not open a project its creator joined")
	}
	if list, _ := w.keys.List(ctx, w.c.ID); !slices.ContainsFunc(list, func(l model.APIKey) bool { return l.ID == rec.ID && l.Creator == "ada@example.com" }) {
		t.Fatal("c does not list the key of a member for all projects")
	}
	// The creator leaves c: closed at once, though the key was just used (and kept).
	if err := w.db.RemoveProjectMember(ctx, w.c.ID, w.user.ID); err != nil {
		t.Fatal(err)
	}
	if got := w.admits(t, plain, w.c.ID, w.a.ID); !slices.Equal(got, []bool{false, true}) {
		t.Fatalf("after leaving c, opens c, a: %v; want a only", got)
	}
}

func TestCreateRefusesProjectsItMayNotOpen(t *testing.T) {
	w := newProjectsWorld(t)
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		nk   auth.NewKey
	}{
		{"no project", auth.NewKey{}},
		{"another's project", auth.NewKey{Projects: []string{w.a.ID, w.c.ID}, CreatedBy: w.user.ID}},
		{"no such project, by a user", auth.NewKey{Projects: []string{"nope"}, CreatedBy: w.user.ID}},
		{"no such project, by the operator", auth.NewKey{Projects: []string{w.a.ID, "nope"}}},
		{"all projects of nobody", auth.NewKey{AllProjects: true}},
		{"all projects and some", auth.NewKey{AllProjects: true, Projects: []string{w.a.ID}, CreatedBy: w.user.ID}},
	} {
		tc.nk.Name, tc.nk.Scope, tc.nk.Expiry = "k", model.ScopeRead, "7d"
		_, _, err := w.keys.Create(ctx, tc.nk)
		var fields model.FieldErrors
		if !errors.As(err, &fields) || fields.Of(auth.FieldKeyProjects) == "" {
			t.Errorf("%s: %v, want a refusal of %s", tc.name, err, auth.FieldKeyProjects)
		}
	}
	// The operator may name any project that exists.
	if _, rec, err := w.keys.Create(ctx, auth.NewKey{Name: "op", Scope: model.ScopeRead, Expiry: "7d", Projects: []string{w.a.ID, w.c.ID}}); err != nil || len(rec.Projects) != 2 {
		t.Fatalf("operator's key for a and c: %+v, %v", rec, err)
	}
	if list, _ := w.keys.List(ctx, w.a.ID); len(list) != 1 {
		t.Fatalf("a lists %d keys, want only the operator's (nothing refused was stored)", len(list))
	}
}

func TestParseAllowlist(t *testing.T) {
	for in, want := range map[string]string{
		"":                                     "",
		"10.0.0.0/8,2001:db8::/32":             "10.0.0.0/8 2001:db8::/32",
		" 10.0.0.0/8 , 192.0.2.7\n2001:db8::1": "10.0.0.0/8 192.0.2.7/32 2001:db8::1/128",
		"10.0.0.0/8,10.0.0.0/8":                "10.0.0.0/8",
		"::ffff:10.0.0.0/104":                  "10.0.0.0/8",
		"0.0.0.0/0":                            "0.0.0.0/0",
	} {
		got, err := auth.ParseAllowlist(in)
		var s []string
		for _, p := range got {
			s = append(s, p.String())
		}
		if err != nil || joinSpace(s) != want {
			t.Errorf("ParseAllowlist(%q) = %v, %v; want %s", in, got, err, want)
		}
	}
	for _, in := range []string{"10.0.0.1/8", "10.0.0.0/33", "ten", "10.0.0.0/8,nope", "fe80::1%eth0", "2001:db8::1/32", "10.0.0.0/8/8"} {
		_, err := auth.ParseAllowlist(in)
		var fields model.FieldErrors
		if !errors.As(err, &fields) || fields.Of(auth.FieldKeyAllowIP) == "" {
			t.Errorf("ParseAllowlist(%q) = %v, want a refusal of %s", in, err, auth.FieldKeyAllowIP)
		}
	}
	many := ""
	for i := range auth.MaxAllowIPs + 1 {
		many += netip.AddrFrom4([4]byte{10, 0, byte(i >> 8), byte(i)}).String() + ","
	}
	if _, err := auth.ParseAllowlist(many); err == nil {
		t.Errorf("an allowlist of %d addresses was accepted", auth.MaxAllowIPs+1)
	}
}

func joinSpace(s []string) string { return strings.Join(s, " ") }

func TestAdmitChecksTheAllowlist(t *testing.T) {
	w := newProjectsWorld(t)
	ctx := context.Background()
	fenced, _, err := w.keys.Create(ctx, auth.NewKey{Name: "fenced", Scope: model.ScopeRead, Expiry: "never",
		Projects: []string{w.a.ID}, AllowIPs: "10.0.0.0/8, 2001:db8::/32"})
	if err != nil {
		t.Fatal(err)
	}
	open, _, err := w.keys.Issue(ctx, w.a.ID, "open", model.ScopeRead, "never")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		key, client, project string
		want                 error
	}{
		{fenced, "10.1.2.3", w.a.ID, nil},
		{fenced, "::ffff:10.1.2.3", w.a.ID, nil},
		{fenced, "2001:db8:5::9", w.a.ID, nil},
		{fenced, "11.0.0.1", w.a.ID, model.ErrIPNotAllowed},
		{fenced, "2001:db9::1", w.a.ID, model.ErrIPNotAllowed},
		{fenced, "", w.a.ID, model.ErrIPNotAllowed}, // no known client passes no allowlist
		// Outside the allowlist, no answer about projects either.
		{fenced, "11.0.0.1", "nope", model.ErrIPNotAllowed},
		{fenced, "10.1.2.3", w.b.ID, model.ErrProjectNotFound},
		{open, "11.0.0.1", w.a.ID, nil},
		{open, "", w.a.ID, nil},
	} {
		client, _ := netip.ParseAddr(tc.client)
		if _, err := w.keys.Admit(ctx, "Bearer "+tc.key, tc.project, client); !errors.Is(err, tc.want) && (err != nil || tc.want != nil) {
			t.Errorf("Admit(%s key, from %q, project %s) = %v, want %v", map[bool]string{true: "fenced", false: "open"}[tc.key == fenced], tc.client, tc.project, err, tc.want)
		}
	}
}
