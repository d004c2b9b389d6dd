package codehost

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestPolicy(t *testing.T) {
	base := t.TempDir()
	root := filepath.Join(base, "repos")
	for _, d := range []string{"repos/docs/sub", "repos/.hidden", "elsewhere/docs"} {
		if err := os.MkdirAll(filepath.Join(base, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	os.Symlink(filepath.Join(base, "elsewhere", "docs"), filepath.Join(root, "escape"))
	os.Symlink(filepath.Join(root, "docs"), filepath.Join(root, "alias"))
	p := Policy{LocalRoot: root, GitHubOwners: []string{"acme"}}
	for repo, wantErr := range map[string]string{
		filepath.Join(root, "docs"):              "",
		"file://" + filepath.Join(root, "docs"):  "",
		filepath.Join(root, "alias"):             "", // a link within the root, to a repository of the root
		filepath.Join(root, "docs", "sub"):       "directly inside",
		filepath.Join(root, "docs", "..", ".."):  "directly inside",
		filepath.Join(base, "elsewhere", "docs"): "directly inside",
		"/etc":                                   "directly inside",
		filepath.Join(root, "escape"):            "directly inside",
		filepath.Join(root, ".hidden"):           "directly inside",
		filepath.Join(root, "missing"):           "no repository",
		"acme/docs":                              "",
		"ACME/handbook":                          "",
		"someone-else/private":                   "must belong to acme",
		"not a repository":                       "neither owner/name",
	} {
		err := p.Allow(repo)
		switch {
		case wantErr == "" && err != nil:
			t.Errorf("Allow(%q) = %v, want allowed", repo, err)
		case wantErr != "" && (err == nil || !strings.Contains(err.Error(), wantErr)):
			t.Errorf("Allow(%q) = %v, want an error containing %q", repo, err, wantErr)
		}
	}
	if err := (Policy{LocalRoot: filepath.Join(base, "none")}).Allow(filepath.Join(base, "none", "docs")); err == nil || !strings.Contains(err.Error(), "not enabled") {
		t.Errorf("missing root: %v", err)
	}
	if err := (Policy{LocalRoot: root}).Allow("anyone/anything"); err != nil {
		t.Errorf("no owner list: %v, want any GitHub repository allowed", err)
	}
}
