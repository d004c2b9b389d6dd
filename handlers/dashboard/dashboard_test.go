package dashboard

import (
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/folio-docs/folio/codehost"
	"github.com/folio-docs/folio/internal/testenv"
	"github.com/folio-docs/folio/model"
	"github.com/folio-docs/folio/projects"
)

func TestLocalPath(t *testing.T) {
	for next, want := range map[string]string{
		"/projects/x": "/projects/x", "": "/projects", "projects": "/projects", "//evil.example": "/projects",
		"/\\evil.example": "/projects", "https://evil.example/": "/projects", "/docs/api?x=1": "/docs/api?x=1",
	} {
		if got := localPath(next, "/projects"); got != want {
			t.Errorf("localPath(%q) = %q, want %q", next, got, want)
		}
	}
}

func TestProjectForm(t *testing.T) {
	root := t.TempDir()
	docs := filepath.Join(root, "docs")
	os.Mkdir(docs, 0o755)
	testenv.Git(t, docs, "init", "-q", "-b", "main")
	testenv.Git(t, docs, "commit", "-q", "--allow-empty", "-m", "init")
	repos := projects.Validator{Policy: &codehost.Policy{LocalRoot: root}}
	cases := []struct {
		name    string
		form    url.Values
		wantErr []string
	}{
		{"github", url.Values{"name": {"Docs"}, "repository": {"acme/docs"}, "ref": {"main"}}, nil},
		{"local path in the server's root", url.Values{"name": {"Docs"}, "repository": {filepath.Join(root, "docs")}}, nil},
		{"file url in the server's root", url.Values{"name": {"Docs"}, "repository": {"file://" + filepath.Join(root, "docs")}}, nil},
		{"local path outside the server's root", url.Values{"name": {"Docs"}, "repository": {"/srv/git/docs.git"}}, []string{"repository"}},
		{"file url outside the server's root", url.Values{"name": {"Docs"}, "repository": {"file:///srv/git/docs.git"}}, []string{"repository"}},
		{"missing name and bad repo", url.Values{"repository": {"not a repo"}}, []string{"name", "repository"}},
		{"relative file url", url.Values{"name": {"D"}, "repository": {"file://docs"}}, []string{"repository"}},
		{"bad ref", url.Values{"name": {"D"}, "repository": {"a/b"}, "ref": {"--upload-pack=x"}}, []string{"ref"}},
		{"webhook without secret", url.Values{"name": {"D"}, "repository": {"a/b"}, "webhook_url": {"https://h.example"}}, []string{"webhook_secret"}},
		{"webhook not http", url.Values{"name": {"D"}, "repository": {"a/b"}, "webhook_url": {"javascript:alert(1)"}, "webhook_secret": {"s"}}, []string{"webhook_url"}},
		{"bad domain", url.Values{"name": {"D"}, "repository": {"a/b"}, "allowed_domains": {"docs.example.com, <script>"}}, []string{"allowed_domains"}},
		{"local repository without the ref", url.Values{"name": {"Docs"}, "repository": {docs}, "ref": {"trunk"}}, []string{"ref"}},
		{"webhook on loopback", url.Values{"name": {"D"}, "repository": {"a/b"}, "webhook_url": {"http://127.0.0.1/h"}, "webhook_secret": {"s"}}, []string{"webhook_url"}},
		{"model with space", url.Values{"name": {"D"}, "repository": {"a/b"}, "model": {"gpt 4"}}, []string{"model"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, errs := submitProjectForm(t, repos, model.Project{}, tc.form)
			var got []string
			for _, e := range errs {
				got = append(got, e.Field)
			}
			slices.Sort(got)
			got = slices.Compact(got)
			if !slices.Equal(got, tc.wantErr) {
				t.Errorf("errors on %v, want %v (%v)", got, tc.wantErr, errs)
			}
		})
	}
}

func TestProjectFormKeepsSecretAndNormalisesDomains(t *testing.T) {
	form := url.Values{"name": {"D"}, "repository": {"a/b"}, "webhook_url": {"https://h.example"}, "webhook_secret": {""},
		"allowed_domains": {"Docs.Example.com\n*.example.dev, docs.example.com"}}
	p, errs := submitProjectForm(t, projects.Validator{}, model.Project{WebhookSecret: "kept"}, form)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	if p.WebhookSecret != "kept" || p.AllowedDomains != "docs.example.com,*.example.dev" {
		t.Errorf("secret %q domains %q", p.WebhookSecret, p.AllowedDomains)
	}
}

// submitProjectForm posts form as the dashboard does: read onto p by
// projectForm, then created by the projects service checking with v.
func submitProjectForm(t *testing.T, v projects.Validator, p model.Project, form url.Values) (model.Project, model.FieldErrors) {
	t.Helper()
	r, _ := http.NewRequest(http.MethodPost, "/", strings.NewReader(form.Encode()))
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	projectForm(r, &p)
	p, err := projects.NewService(testenv.NewDB(t), v).Create(r.Context(), p)
	errs := projectErrors(err)
	if err != nil && errs == nil {
		t.Fatal(err)
	}
	return p, errs
}
