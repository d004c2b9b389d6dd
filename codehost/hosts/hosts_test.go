package hosts

import (
	"context"
	"errors"
	"os/exec"
	"testing"

	"github.com/folio-docs/folio/codehost"
	"github.com/folio-docs/folio/codehost/github"
	"github.com/folio-docs/folio/codehost/local"
)

func TestOpenChoosesTheHostOfTheRepository(t *testing.T) {
	repo := t.TempDir()
	if out, err := exec.Command("git", "init", "--quiet", repo).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v: %s", err, out)
	}
	worker := Config{BaseURL: "http://folio.test", ServerURL: "http://serve.test:8080/", WorkerToken: "k"}
	withToken := Config{GitHubTokens: github.StaticToken("ghs_test")}

	// A local path is on this machine's disk, even on a worker, for Open.
	for _, c := range []Config{{}, worker} {
		h, err := c.Open(repo)
		if _, ok := h.(*local.Host); err != nil || !ok {
			t.Fatalf("Open(%q) = %T, %v; want the local host", repo, h, err)
		}
		if r, err := h.Remote(context.Background()); err != nil || r.URL != repo {
			t.Fatalf("Remote = %+v, %v; want the repository on disk", r, err)
		}
	}
	// A run on a worker reaches it through serve's git HTTP.
	h, err := worker.OpenProject("p1", "file://"+repo)
	if err != nil {
		t.Fatal(err)
	}
	if r, err := h.Remote(context.Background()); err != nil || r.URL != "http://serve.test:8080/git/p1.git" || len(r.Env) == 0 {
		t.Fatalf("Remote = %q, %v; want serve's git URL of the project, with credentials", r.URL, err)
	}
	// Beside serve, a run's local repository is on disk.
	if h, err := (Config{}).OpenProject("p1", repo); err != nil {
		t.Fatal(err)
	} else if r, err := h.Remote(context.Background()); err != nil || r.URL != repo {
		t.Fatalf("Remote = %+v, %v; want the repository on disk", r, err)
	}

	if h, err := withToken.OpenProject("p1", "acme/docs"); err != nil {
		t.Fatal(err)
	} else if _, ok := h.(*github.Host); !ok {
		t.Fatalf("OpenProject(acme/docs) = %T, want the GitHub host", h)
	}
	if _, err := worker.Open("acme/docs"); !errors.Is(err, codehost.ErrNoGitHubToken) {
		t.Fatalf("Open(acme/docs) without a token = %v, want ErrNoGitHubToken", err)
	}
	if _, err := withToken.Open("not a repository"); err == nil {
		t.Fatal("Open accepted a repository that is neither owner/name nor a path")
	}
}

// TestRepositoryURL: source.repository is the repository's URL, as
// Mintlify documents it, whatever form the project's setting takes.
func TestRepositoryURL(t *testing.T) {
	for _, tc := range []struct {
		api, repo, want string
	}{
		{"", "acme/docs", "https://github.com/acme/docs"},
		{"https://api.github.com/", "acme/docs.git", "https://github.com/acme/docs"},
		{"https://api.github.com", "Acme-Co/docs.v2", "https://github.com/Acme-Co/docs.v2"},
		{"https://ghe.example.com/api/v3/", "acme/docs", "https://ghe.example.com/acme/docs"},
		{"https://ghe.example.com:8443/api/v3", "acme/docs", "https://ghe.example.com:8443/acme/docs"},
		{"https://api.octo.ghe.com/", "acme/docs", "https://octo.ghe.com/acme/docs"},
		{"http://127.0.0.1:4321/", "acme/docs", "http://127.0.0.1:4321/acme/docs"},
		{"https://api.github.com/", "/srv/git/docs", "https://folio.example/git/p1.git"},
		{"https://api.github.com/", "file:///srv/git/docs.git", "https://folio.example/git/p1.git"},
		{"https://api.github.com/", "not a repository", "not a repository"},
	} {
		c := Config{BaseURL: "https://folio.example/", GitHubAPIURL: tc.api}
		if got := c.RepositoryURL("p1", tc.repo); got != tc.want {
			t.Errorf("RepositoryURL(%q) with API %q = %q, want %q", tc.repo, tc.api, got, tc.want)
		}
	}
}
