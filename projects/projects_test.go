package projects

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/folio-docs/folio/codehost"
	"github.com/folio-docs/folio/codehost/github"
	"github.com/folio-docs/folio/codehost/hosts"
	"github.com/folio-docs/folio/internal/testenv"
	"github.com/folio-docs/folio/model"
)

// newTestRepo is a local git repository with one commit on main.
func newTestRepo(t *testing.T, root string) string {
	dir := filepath.Join(root, "docs")
	os.MkdirAll(dir, 0o755)
	testenv.Git(t, dir, "init", "-q", "-b", "main")
	os.WriteFile(filepath.Join(dir, "index.mdx"), []byte("# Hi\n"), 0o644)
	testenv.Git(t, dir, "add", "-A")
	testenv.Git(t, dir, "commit", "-qm", "init")
	return dir
}

func TestCheck(t *testing.T) {
	root := t.TempDir()
	repo := newTestRepo(t, root)
	gh := testenv.NewFakeGitHub(t, nil) // acme/docs with main; nothing else exists
	v := Validator{Hosts: hosts.Config{GitHubAPIURL: gh.URL, GitHubTokens: github.StaticToken(gh.Token)}}
	bounded := v
	bounded.Policy = &codehost.Policy{LocalRoot: root}
	ok := model.Project{Name: "Docs", Repository: repo, Ref: "main"}
	with := func(f func(*model.Project)) model.Project { p := ok; f(&p); return p }
	for _, tc := range []struct {
		name  string
		v     Validator
		p     model.Project
		field string // "" when valid
	}{
		{"a local repository and its branch", v, ok, ""},
		{"a GitHub repository and its branch", v, with(func(p *model.Project) { p.Repository = "acme/docs" }), ""},
		{"no name", v, with(func(p *model.Project) { p.Name = " " }), FieldName},
		{"unparseable repository", v, with(func(p *model.Project) { p.Repository = "docs" }), FieldRepository},
		{"local repository that does not exist", v, with(func(p *model.Project) { p.Repository = filepath.Join(root, "gone") }), FieldRepository},
		{"GitHub repository that does not exist", v, with(func(p *model.Project) { p.Repository = "acme/gone" }), FieldRepository},
		{"local ref that does not exist", v, with(func(p *model.Project) { p.Ref = "trunk" }), FieldRef},
		{"GitHub ref that does not exist", v, with(func(p *model.Project) { p.Repository, p.Ref = "acme/docs", "trunk" }), FieldRef},
		{"ref that is no branch name", v, with(func(p *model.Project) { p.Ref = "-x" }), FieldRef},
		{"model with a space", v, with(func(p *model.Project) { p.Model = "gpt 4" }), FieldModel},
		{"webhook on loopback", v, with(func(p *model.Project) { p.WebhookURL, p.WebhookSecret = "http://127.0.0.1:9/h", "s" }), FieldWebhookURL},
		{"webhook on localhost", v, with(func(p *model.Project) { p.WebhookURL, p.WebhookSecret = "http://localhost/h", "s" }), FieldWebhookURL},
		{"webhook on a private network", v, with(func(p *model.Project) { p.WebhookURL, p.WebhookSecret = "https://10.1.2.3/h", "s" }), FieldWebhookURL},
		{"webhook not http", v, with(func(p *model.Project) { p.WebhookURL, p.WebhookSecret = "ftp://hooks.example/h", "s" }), FieldWebhookURL},
		{"webhook without a secret", v, with(func(p *model.Project) { p.WebhookURL = "https://93.184.215.14/h" }), FieldWebhookSecret},
		{"public webhook", v, with(func(p *model.Project) { p.WebhookURL, p.WebhookSecret = "https://93.184.215.14/h", "s" }), ""},
		{"private webhook where allowed", Validator{AllowPrivateWebhooks: true}, with(func(p *model.Project) { p.WebhookURL, p.WebhookSecret = "http://127.0.0.1:9/h", "s" }), ""},
		{"repository inside the policy's root", bounded, ok, ""},
		{"repository outside the policy's root", bounded, with(func(p *model.Project) { p.Repository = newTestRepo(t, t.TempDir()) }), FieldRepository},
	} {
		t.Run(tc.name, func(t *testing.T) {
			errs := tc.v.Check(context.Background(), tc.p, model.Project{})
			switch {
			case tc.field == "" && errs != nil:
				t.Fatalf("Check = %v, want valid", errs)
			case tc.field != "" && (len(errs) != 1 || errs.Of(tc.field) == ""):
				t.Fatalf("Check = %v, want one error on %s", errs, tc.field)
			}
		})
	}
}

// An unchanged repository and ref are not asked about again: a project
// whose branch was deleted can still be renamed.
func TestCheckAsksOnlyAboutChanges(t *testing.T) {
	repo := newTestRepo(t, t.TempDir())
	stored := model.Project{Name: "Docs", Repository: repo, Ref: "gone"}
	p := stored
	p.Name = "Renamed"
	if errs := (Validator{}).Check(context.Background(), p, stored); errs != nil {
		t.Fatalf("Check = %v, want valid", errs)
	}
	p.Ref = "also-gone"
	if errs := (Validator{}).Check(context.Background(), p, stored); errs.Of(FieldRef) == "" {
		t.Fatalf("Check = %v, want the new ref refused", errs)
	}
}
