package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/folio-docs/folio/auth"
	"github.com/folio-docs/folio/db"
	"github.com/folio-docs/folio/internal/testenv"
)

func TestCLISetUpWithoutABrowser(t *testing.T) {
	t.Parallel()
	te := newTestEnv(t)
	// Progress goes to stderr: stdout carries only values asked for.
	if code, out, errs := te.folio(t, "", "migrate"); code != 0 || out != "" || !strings.Contains(errs, "applied 0001_foundation.sql") {
		t.Fatalf("migrate: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	if code, out, errs := te.folio(t, "", "migrate"); code != 0 || out != "" || strings.TrimSpace(errs) != "database is up to date" {
		t.Fatalf("second migrate: exit %d, stdout %q, stderr %q", code, out, errs)
	}

	uid := te.must(t, "s3cret-passw0rd\n", "user create", "--email", "ada@example.com", "--password-stdin")
	if len(uid) != 26 {
		t.Fatalf("user create printed %q, want only the id", uid)
	}
	if code, _, errs := te.folio(t, "another-password\n", "user", "create", "--email", "ada@example.com", "--password-stdin"); code == 0 || !strings.Contains(errs, "already exists") {
		t.Fatalf("duplicate user: exit %d, %q", code, errs)
	}

	repo := newDocsRepo(t)
	testenv.Git(t, repo, "branch", "trunk")
	// Settings that cannot work are refused in one line naming the flag, exit 1.
	for _, bad := range []struct {
		args []string
		want string
	}{
		{[]string{"project", "create", "--name", "Docs", "--repo", filepath.Join(t.TempDir(), "nowhere")}, "--repo: There is no repository"},
		{[]string{"project", "create", "--name", "Docs", "--repo", repo, "--ref", "nope"}, `--ref: The repository has no branch "nope"`},
	} {
		code, out, errs := te.folio(t, "", bad.args...)
		if code != 1 || out != "" || !strings.Contains(errs, bad.want) || strings.Count(strings.TrimSpace(errs), "\n") != 0 {
			t.Fatalf("folio %v: exit %d, stdout %q, stderr %q; want exit 1 and one line with %q", bad.args, code, out, errs, bad.want)
		}
	}
	pid := te.must(t, "", "project", "create", "--name", "Docs", "--repo", repo, "--owner", "ada@example.com")
	if len(pid) != 26 {
		t.Fatalf("project create printed %q, want only the id", pid)
	}
	if code, _, errs := te.folio(t, "", "project", "update", pid, "--webhook", "http://127.0.0.1:9/hook", "--webhook-secret", "whsec"); code != 1 || !strings.Contains(errs, "--webhook: 127.0.0.1 is not a public address") {
		t.Fatalf("private webhook: exit %d, stderr %q; want it refused", code, errs)
	}
	te.must(t, "", "project", "update", pid, "--model", "gpt-x", "--ref", "trunk", "--webhook", "https://hooks.example/f", "--webhook-secret", "whsec")

	key := te.must(t, "", "key", "create", "--project", pid, "--name", "ci", "--scope", "read", "--expires", "30d")
	if !auth.WellFormed(key) {
		t.Fatalf("key create printed %q, want only a key", key)
	}
	other := te.must(t, "", "key", "create", "--project", pid)
	// The name rule is auth's, as on the dashboard; a refused name stores no key
	// (the list below counts two).
	for _, name := range []string{" \t ", strings.Repeat("k", 101)} {
		code, out, errs := te.folio(t, "", "key", "create", "--project", pid, "--name", name)
		if code != 1 || out != "" || !strings.Contains(errs, "--name: "+auth.KeyNameRule) || strings.Count(strings.TrimSpace(errs), "\n") != 0 {
			t.Fatalf("key create --name %q: exit %d, stdout %q, stderr %q; want exit 1 and one line with %q", name, code, out, errs, "--name: "+auth.KeyNameRule)
		}
	}

	list := te.must(t, "", "key", "list", "--project", pid)
	if n := len(strings.Split(list, "\n")); n != 2 {
		t.Fatalf("key list printed %d lines, want one a key:\n%s", n, list)
	}
	if strings.Contains(list, key) || strings.Contains(list, other) || strings.Contains(list, key[6:len(key)-4]) {
		t.Fatalf("key list shows a whole key:\n%s", list)
	}
	if !strings.Contains(list, key[len(key)-4:]) || !strings.Contains(list, "read") || !strings.Contains(list, "write") {
		t.Fatalf("key list lacks last four or scopes:\n%s", list)
	}

	// Revoke by the key itself, then by id.
	te.must(t, "", "key", "revoke", "--project", pid, key)
	d, err := db.Open(context.Background(), te["FOLIO_DATA_DIR"]+"/folio.db")
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	p, _ := d.ProjectByID(context.Background(), pid)
	if p.Model != "gpt-x" || p.Ref != "trunk" || p.WebhookURL != "https://hooks.example/f" || p.WebhookSecret != "whsec" || p.Repository != repo {
		t.Fatalf("project update not stored: %+v", p)
	}
	keys := auth.NewKeys(d)
	if _, err := keys.Authenticate(context.Background(), "Bearer "+key); err == nil {
		t.Fatal("revoked key still authenticates")
	}
	if _, err := keys.Authenticate(context.Background(), "Bearer "+other); err != nil {
		t.Fatalf("the other key stopped working: %v", err)
	}
	recs, _ := d.APIKeysForProject(context.Background(), pid)
	for _, r := range recs {
		if r.Scope == "write" {
			te.must(t, "", "key", "revoke", "--project", pid, r.ID)
		}
	}
	if _, err := keys.Authenticate(context.Background(), "Bearer "+other); err == nil {
		t.Fatal("key revoked by id still authenticates")
	}
	if !strings.Contains(te.must(t, "", "key", "list", "--project", pid), "revoked") {
		t.Error("key list does not say revoked")
	}

	// No key anywhere in the clear on disk.
	d.Close()
	raw, _ := os.ReadFile(filepath.Join(te["FOLIO_DATA_DIR"], "folio.db"))
	if bytes.Contains(raw, []byte(key[6:])) || bytes.Contains(raw, []byte(other[6:])) {
		t.Fatal("the database file holds a key in the clear")
	}
}

func TestCLIUsageErrors(t *testing.T) {
	t.Parallel()
	te := newTestEnv(t)
	for _, args := range [][]string{
		{"nonsense"},
		{"project", "create", "--name", "x"},
		{"key", "create"},
		{"key", "create", "--project", "p", "--bogus"},
		{"key", "revoke", "--project", "p"},
		{"project", "update"},
		{"user", "create", "--email", "a@b.c"},
		{"backup"},
		{"backup", "--to", "x.db", "extra"},
		{"queue", "retry"},
		{"queue", "archived", "extra"},
	} {
		code, out, errs := te.folio(t, "", args...)
		if code != 2 || out != "" || errs == "" {
			t.Errorf("folio %v: exit %d stdout %q stderr %q; want 2, nothing, a message", args, code, out, errs)
		}
	}
	if code, _, errs := te.folio(t, "", "key", "create", "--help"); code != 0 || !strings.Contains(errs, "--scope") && !strings.Contains(errs, "-scope") {
		t.Errorf("--help: exit %d, %q", code, errs)
	}
	if code, _, errs := te.folio(t, "", "key", "create", "--project", "nope"); code != 1 || !strings.Contains(errs, "no project") {
		t.Errorf("unknown project: exit %d, %q", code, errs)
	}
	if code, _, _ := te.folio(t, "short\n", "user", "create", "--email", "a@b.c", "--password-stdin"); code != 2 {
		t.Errorf("short password: exit %d, want 2", code)
	}
}
