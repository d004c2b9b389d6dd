package agent

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/cgi"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/folio-docs/folio/db"
)

const testGitHubToken = "ghs_testtoken123"

// newGitRemote serves the repositories under root over git's smart HTTP
// protocol through git http-backend, requiring the token as GitHub does.
func newGitRemote(t *testing.T, root string) *httptest.Server {
	backend := &cgi.Handler{
		Path: filepath.Join(gitT(t, root, "--exec-path"), "git-http-backend"),
		Env:  []string{"GIT_PROJECT_ROOT=" + root, "GIT_HTTP_EXPORT_ALL=1"},
	}
	want := "Basic " + base64.StdEncoding.EncodeToString([]byte("x-access-token:"+testGitHubToken))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != want {
			w.Header().Set("WWW-Authenticate", `Basic realm="GitHub"`)
			http.Error(w, "authentication required", http.StatusUnauthorized)
			return
		}
		backend.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// fakeGitHub is GitHub's REST API for one repository's pull requests.
type fakeGitHub struct {
	mu      sync.Mutex
	created []map[string]any
	edited  []map[string]any
	open    bool
	authBad int
}

func newFakeGitHub(t *testing.T, cloneURL string) (*fakeGitHub, *httptest.Server) {
	g := &fakeGitHub{}
	mux := http.NewServeMux()
	pr := map[string]any{"number": 7, "html_url": "https://github.example/acme/docs/pull/7", "state": "open", "head": map[string]any{"ref": "folio/jobg"}}
	mux.HandleFunc("GET /repos/acme/docs", func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(map[string]any{"full_name": "acme/docs", "clone_url": cloneURL, "default_branch": "main"})
	})
	mux.HandleFunc("GET /repos/acme/docs/pulls", func(w http.ResponseWriter, r *http.Request) {
		g.mu.Lock()
		defer g.mu.Unlock()
		if r.URL.Query().Get("head") != "acme:folio/jobg" || r.URL.Query().Get("state") != "open" {
			http.Error(w, `{"message":"unexpected query"}`, 422)
			return
		}
		if g.open {
			json.NewEncoder(w).Encode([]any{pr})
			return
		}
		fmt.Fprint(w, "[]")
	})
	mux.HandleFunc("POST /repos/acme/docs/pulls", func(w http.ResponseWriter, r *http.Request) {
		var body map[string]any
		json.NewDecoder(r.Body).Decode(&body)
		g.mu.Lock()
		g.created, g.open = append(g.created, body), true
		g.mu.Unlock()
		w.WriteHeader(201)
		json.NewEncoder(w).Encode(pr)
	})
	mux.HandleFunc("PATCH /repos/acme/docs/pulls/7", func(w http.ResponseWriter, r *http.Request) {
		var body map[string]any
		json.NewDecoder(r.Body).Decode(&body)
		g.mu.Lock()
		g.edited = append(g.edited, body)
		g.mu.Unlock()
		json.NewEncoder(w).Encode(pr)
	})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+testGitHubToken {
			g.mu.Lock()
			g.authBad++
			g.mu.Unlock()
			w.WriteHeader(401)
			fmt.Fprint(w, `{"message":"Bad credentials"}`)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		mux.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return g, srv
}

func TestRunGitHub(t *testing.T) {
	bare := newTestRepo(t, nil)
	root := filepath.Dir(bare)
	gitT(t, bare, "config", "http.receivepack", "true")
	remote := newGitRemote(t, root)
	gh, api := newFakeGitHub(t, remote.URL+"/docs.git")
	model := newOpenAIServer(t,
		step{calls: []ToolCall{call("c1", "edit_file", map[string]string{"path": "index.mdx", "old_string": "Welcome", "new_string": "Welcome to Acme"})}},
		step{text: "Retitled the home page."},
	)
	var logs bytes.Buffer
	cfg := openAIConfig(model)
	cfg.GitHubToken, cfg.GitHubAPIURL = testGitHubToken, api.URL
	cfg.Log = slog.New(slog.NewTextHandler(&logs, nil))
	a := newTestAgent(t, cfg)
	rec := &recorder{}
	run := Run{JobID: "jobg", Project: db.Project{ID: "p", Repository: "acme/docs", Ref: "main", DraftPRs: true}, Model: "gpt-test", Branch: "folio/jobg",
		History: []Message{{Role: RoleUser, Content: "Retitle the home page\nIt should name the product."}}}
	res, err := a.Run(context.Background(), run, rec.record)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if res.PRLink != "https://github.example/acme/docs/pull/7" {
		t.Fatalf("prLink = %q", res.PRLink)
	}
	if got := gitT(t, bare, "show", "folio/jobg:index.mdx"); !strings.Contains(got, "title: Welcome to Acme") {
		t.Fatalf("branch that arrived has index.mdx:\n%s", got)
	}
	if len(gh.created) != 1 {
		t.Fatalf("%d pull requests created", len(gh.created))
	}
	c := gh.created[0]
	if c["head"] != "folio/jobg" || c["base"] != "main" || c["draft"] != true || c["title"] != "Retitle the home page" || !strings.Contains(c["body"].(string), "Retitled the home page.") {
		t.Fatalf("pull request requested = %v", c)
	}

	// Follow-up: another commit on the branch, the same pull request updated.
	model.steps = []step{
		{calls: []ToolCall{call("c2", "edit_file", map[string]string{"path": "index.mdx", "old_string": "Read the", "new_string": "Start with the"})}},
		{text: "Reworded the intro."},
	}
	run.PRLink = res.PRLink
	run.History = append(append(run.History, rec.all()...), Message{Role: RoleUser, Content: "Reword the intro"})
	res2, err := a.Run(context.Background(), run, rec.record)
	if err != nil || res2.PRLink != res.PRLink {
		t.Fatalf("follow-up = %+v, %v", res2, err)
	}
	if n := gitT(t, bare, "rev-list", "--count", "main..folio/jobg"); n != "2" {
		t.Fatalf("branch has %s commits over main, want 2", n)
	}
	if len(gh.created) != 1 || len(gh.edited) != 1 || !strings.Contains(gh.edited[0]["body"].(string), "Reword the intro") {
		t.Fatalf("created %d, edited %v; want the one pull request updated", len(gh.created), gh.edited)
	}
	if gh.authBad != 0 {
		t.Fatalf("%d API calls without the token", gh.authBad)
	}
	if strings.Contains(logs.String(), testGitHubToken) || strings.Contains(fmt.Sprint(rec.all()), testGitHubToken) {
		t.Fatal("the token leaked into logs or the conversation")
	}

	// A bad token is a permanent failure that does not print the token.
	cfg.GitHubToken = "ghs_wrong"
	_, err = newTestAgent(t, cfg).Run(context.Background(), run, rec.record)
	if !IsPermanent(err) || !strings.Contains(err.Error(), "Bad credentials") || strings.Contains(err.Error(), "ghs_wrong") {
		t.Fatalf("err = %v; want a permanent error with GitHub's message and no token", err)
	}
}
