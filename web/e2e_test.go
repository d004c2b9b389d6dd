package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/folio-docs/folio/codehost/local"
	"github.com/folio-docs/folio/internal/testenv"
)

// useRepository points the test server's project at repo.
func (s *testServer) useRepository(t testing.TB, repo string) {
	t.Helper()
	p := s.project
	p.Repository = repo
	if _, err := s.app.db.UpdateProject(context.Background(), p); err != nil {
		t.Fatal(err)
	}
}

// pollJob polls the job the way the seed's clients do, until it leaves active.
func (s *testServer) pollJob(id string) jobJSON {
	s.t.Helper()
	var j jobJSON
	ended := s.awaitJob(id, 30*time.Second, func() bool {
		j = jobJSON{}
		s.expect(200, "GET", "/v2/agent/{p}/job/"+id, "", &j)
		if j.Status == "active" && j.PRLink != nil {
			s.t.Fatalf("prLink %q while active", *j.PRLink)
		}
		return j.Status != "active"
	})
	if !ended {
		s.t.Fatalf("job %s still active after 30s", id)
	}
	return j
}

type jobJSON struct {
	ID     string  `json:"id"`
	Status string  `json:"status"`
	PRLink *string `json:"prLink"`
	Branch string  `json:"branch"`
	Usage  struct {
		Steps  int   `json:"steps"`
		Tokens int64 `json:"tokens"`
	} `json:"usage"`
	Error *struct {
		Code, Message string
	} `json:"error"`
	Summary  *string          `json:"summary"`
	Problems []map[string]any `json:"problems"`
	Source   struct {
		Repository, Ref string
	} `json:"source"`
}

func TestJobEndToEndOnALocalRepository(t *testing.T) {
	t.Parallel()
	model := testenv.NewModelServer(t, nil)
	s := newTestServer(t, withModel(t, model))
	repo := newDocsRepo(t)
	s.useRepository(t, repo)

	var created jobJSON
	s.expect(201, "POST", "/v2/agent/{p}/job", `{"prompt":"Explain how to rotate API keys."}`, &created)
	if created.Status != "active" || created.PRLink != nil {
		t.Fatalf("create answered %+v, want active with prLink null", created)
	}
	// source.repository is Folio's own clone URL of the local repository,
	// which the project's key clones (the user name is anything).
	cloneURL := s.app.cfg.BaseURL + "/git/" + s.project.ID + ".git"
	if created.Source.Repository != cloneURL || created.Source.Ref != "main" {
		t.Fatalf("source = %+v, want repository %s, ref main", created.Source, cloneURL)
	}
	clone := filepath.Join(t.TempDir(), "clone")
	git(t, "", "clone", "--quiet", strings.Replace(cloneURL, s.app.cfg.BaseURL, strings.Replace(s.URL, "http://", "http://anyone:"+s.key+"@", 1), 1), clone)
	if git(t, clone, "rev-parse", "HEAD") != git(t, repo, "rev-parse", "main") {
		t.Fatal("the clone of source.repository is not the project's repository")
	}
	done := s.pollJob(created.ID)
	wantLink := s.app.cfg.BaseURL + "/projects/" + s.project.ID + "/jobs/" + created.ID + "/changes"
	if done.Status != "completed" || done.PRLink == nil || *done.PRLink != wantLink {
		t.Fatalf("job ended %+v, want completed with prLink %s", done, wantLink)
	}
	// The scripted model answers a turn in three calls of 120 tokens each:
	// the write, its summary, and its summary again after Folio's review.
	if done.Usage.Steps != 3 || done.Usage.Tokens != 360 {
		t.Fatalf("usage after one turn %+v, want 3 steps and 360 tokens", done.Usage)
	}
	branch := "folio/" + created.ID
	if got := git(t, repo, "show", branch+":notes/1.md"); !strings.Contains(got, "rotate API keys") {
		t.Fatalf("notes/1.md on %s is %q", branch, got)
	}
	if git(t, repo, "rev-parse", "main") == git(t, repo, "rev-parse", branch) {
		t.Fatal("the agent's change landed on main")
	}

	var conv struct {
		Messages []struct{ Role, Content string } `json:"messages"`
	}
	s.expect(200, "GET", "/v2/agent/{p}/job/"+created.ID+"/messages", "", &conv)
	var roles []string
	for _, m := range conv.Messages {
		roles = append(roles, m.Role)
	}
	if strings.Join(roles, ",") != "user,assistant,tool,assistant,user,assistant" {
		t.Fatalf("conversation roles %v, want user,assistant,tool,assistant and Folio's review (user,assistant)", roles)
	}

	// A follow-up continues on the same branch and keeps the same link.
	var again jobJSON
	s.expect(200, "POST", "/v2/agent/{p}/job/"+created.ID+"/message", `{"prompt":"Also cover expiry."}`, &again)
	if again.Status != "active" || again.PRLink != nil {
		t.Fatalf("follow-up answered %+v, want active with prLink null (the seed: null while active)", again)
	}
	done = s.pollJob(created.ID)
	if done.Status != "completed" || done.PRLink == nil || *done.PRLink != wantLink {
		t.Fatalf("after the follow-up: %+v", done)
	}
	if done.Usage.Steps != 6 || done.Usage.Tokens != 720 {
		t.Fatalf("usage after two turns %+v, want 6 steps and 720 tokens", done.Usage)
	}
	if got := git(t, repo, "show", branch+":notes/2.md"); !strings.Contains(got, "Also cover expiry.") {
		t.Fatalf("notes/2.md on %s is %q", branch, got)
	}
	if n := git(t, repo, "rev-list", "--count", "main.."+branch); n != "2" {
		t.Fatalf("%s commits on %s past main, want 2 (one a turn)", n, branch)
	}

	// The review page's merge puts the change on main.
	diff, err := local.Diff(context.Background(), repo, "main", branch)
	if err != nil || !strings.Contains(diff, "notes/2.md") {
		t.Fatalf("diff: %v\n%s", err, diff)
	}
	if _, err := local.Merge(context.Background(), repo, "main", branch); err != nil {
		t.Fatal(err)
	}
	if got := git(t, repo, "show", "main:notes/1.md"); !strings.Contains(got, "rotate API keys") {
		t.Fatal("merge did not bring the change to main")
	}
}

func TestJobFailsWhenTheModelRefusesTheKey(t *testing.T) {
	t.Parallel()
	model := testenv.NewModelServer(t, nil)
	s := newTestServer(t, withModel(t, &testenv.ModelServer{URL: model.URL, APIKey: "sk-wrong"}))
	s.useRepository(t, newDocsRepo(t))

	var created jobJSON
	s.expect(201, "POST", "/v2/agent/{p}/job", `{"prompt":"Anything."}`, &created)
	done := s.pollJob(created.ID)
	if done.Status != "failed" || done.Error == nil || !strings.Contains(done.Error.Message, "Incorrect API key") {
		t.Fatalf("job ended %+v, want failed with the provider's message", done)
	}
}
