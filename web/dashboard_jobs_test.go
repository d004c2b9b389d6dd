package main

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/folio-docs/folio/internal/testenv"
	"github.com/folio-docs/folio/model"
)

func TestJobLaunchIsRateLimited(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, withLimit(1))
	c := s.signedIn(t)
	base := "/projects/" + s.project.ID + "/jobs"
	res, _ := s.postPage(t, c, base, url.Values{"prompt": {"First."}, "idempotency_key": {"k1"}})
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != base {
		t.Fatalf("first launch: got %d to %q, want 303 to the list", res.StatusCode, res.Header.Get("Location"))
	}
	// A double submit of the same form replays, and does not count.
	if res, _ := s.postPage(t, c, base, url.Values{"prompt": {"First."}, "idempotency_key": {"k1"}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("double submit: got %d, want 303", res.StatusCode)
	}
	res, body := s.postPage(t, c, base, url.Values{"prompt": {"Second."}, "idempotency_key": {"k2"}})
	if res.StatusCode != http.StatusTooManyRequests || !strings.Contains(body, "Rate limit reached: this project may send 1 of these an hour") {
		t.Fatalf("second launch: got %d, want 429 with the limit explained:\n%s", res.StatusCode, body)
	}
	if !strings.Contains(body, ">Second.</textarea>") {
		t.Error("the refused prompt is not kept in the form")
	}
	if list, _, _ := s.app.jobs.List(context.Background(), s.project.ID, "", 10, 0); len(list) != 1 {
		t.Errorf("%d jobs after a launch, a replay and a refused launch; want 1", len(list))
	}
	if res, body := s.postPage(t, c, base, url.Values{"prompt": {"   "}}); res.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(body, "Write a prompt") {
		t.Errorf("empty prompt: got %d", res.StatusCode)
	}
}

func TestJobListPollsWhileAJobIsActive(t *testing.T) {
	t.Parallel()
	s := newTestServer(t) // no runner: a job stays active
	c := s.signedIn(t)
	created, err := s.app.jobs.Create(context.Background(), s.project.ID, "Fix <b>the</b> typo.", "")
	if err != nil {
		t.Fatal(err)
	}
	fragment := func(path, target string) (int, string) {
		req, _ := http.NewRequest(http.MethodGet, s.URL+path, nil)
		req.Header.Set("HX-Request", "true")
		req.Header.Set("HX-Target", target)
		res, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}
	list := "/projects/" + s.project.ID + "/jobs"
	code, body := fragment(list, "job-list")
	if code != http.StatusOK || !strings.HasPrefix(strings.TrimSpace(body), `<div id="job-list" data-polling="true" hx-get="`+list+`" hx-trigger="every 2s"`) {
		t.Fatalf("the list fragment while a job runs: %d\n%s", code, body)
	}
	if strings.Contains(body, "<html") || !strings.Contains(body, "Fix &lt;b&gt;the&lt;/b&gt; typo.") {
		t.Errorf("the fragment is the whole page, or the prompt is not escaped:\n%s", body)
	}
	page := list + "/" + created.Job.ID
	if _, body := fragment(page, "job-live"); !strings.Contains(body, `id="job-live" data-polling="true"`) || strings.Contains(body, "<html") {
		t.Errorf("the job's live part while it runs:\n%s", body)
	}

	res, _ := s.postPage(t, c, page+"/cancel", nil)
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("cancel: got %d", res.StatusCode)
	}
	if _, body = fragment(list, "job-list"); !strings.Contains(body, `data-polling="false"`) || strings.Contains(body, "hx-trigger") || !strings.Contains(body, `data-status="failed"`) {
		t.Errorf("the list still polls once no job runs:\n%s", body)
	}
	_, body = s.get(t, c, page)
	if !strings.Contains(body, "canceled") || !strings.Contains(body, `id="job-live" data-polling="false"`) {
		t.Errorf("the cancelled job's page lacks its error code or still polls")
	}
	// Cancelling again says why it cannot.
	if res, body := s.postPage(t, c, page+"/cancel", nil); res.StatusCode != http.StatusConflict || !strings.Contains(body, "no longer running") {
		t.Errorf("second cancel: got %d", res.StatusCode)
	}
	if res, _ := s.postPage(t, c, page+"/archive", nil); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("archive: got %d", res.StatusCode)
	}
	if j, _ := s.app.jobs.Get(context.Background(), s.project.ID, created.Job.ID); j.Status != model.JobArchived {
		t.Errorf("after archive the job is %s", j.Status)
	}
	if res, body := s.postPage(t, c, page+"/message", url.Values{"prompt": {"More."}}); res.StatusCode != http.StatusConflict || !strings.Contains(body, "archived") {
		t.Errorf("follow-up on an archived job: got %d", res.StatusCode)
	}
}

func TestJobPagesAreForMembersOnly(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	created, err := s.app.jobs.Create(context.Background(), s.project.ID, "Fix the typo.", "")
	if err != nil {
		t.Fatal(err)
	}
	c := s.client(t)
	s.signUp(t, c, "stranger@example.com") // not a member of s.project
	page := "/projects/" + s.project.ID + "/jobs/" + created.Job.ID
	for _, path := range []string{"/projects/" + s.project.ID + "/jobs", page, page + "/changes", page + "/events"} {
		if res, body := s.get(t, c, path); res.StatusCode != http.StatusNotFound || !strings.Contains(body, "Page not found") {
			t.Errorf("GET %s as a non-member: got %d, want 404", path, res.StatusCode)
		}
	}
	for _, path := range []string{"/projects/" + s.project.ID + "/jobs", page + "/message", page + "/cancel", page + "/archive", page + "/merge"} {
		if res, _ := s.postPage(t, c, path, url.Values{"prompt": {"x"}}); res.StatusCode != http.StatusNotFound {
			t.Errorf("POST %s as a non-member: got %d, want 404", path, res.StatusCode)
		}
	}
	if j, _ := s.app.jobs.Get(context.Background(), s.project.ID, created.Job.ID); j.Status != model.JobActive || j.Turn != 1 {
		t.Errorf("a non-member changed the job: %+v", j)
	}
	// A member asking for another project's job by id gets 404 too.
	other, _ := s.app.db.CreateProject(context.Background(), model.Project{Name: "mine", Repository: "acme/mine", Ref: "main"})
	u, _ := s.app.db.UserByEmail(context.Background(), "stranger@example.com")
	s.app.db.AddProjectMember(context.Background(), other.ID, u.ID)
	for _, path := range []string{"/projects/" + other.ID + "/jobs/" + created.Job.ID, "/projects/" + other.ID + "/jobs/" + created.Job.ID + "/events"} {
		if res, _ := s.get(t, c, path); res.StatusCode != http.StatusNotFound {
			t.Errorf("another project's job through mine (GET %s): got %d, want 404", path, res.StatusCode)
		}
	}
}

func TestReviewPageRefusesAConflictingMerge(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, withModel(t, testenv.NewModelServer(t, nil)))
	repo := newDocsRepo(t)
	s.useRepository(t, repo)
	var created jobJSON
	s.expect(201, "POST", "/v2/agent/{p}/job", `{"prompt":"Write the first note."}`, &created)
	if done := s.pollJob(created.ID); done.Status != "completed" {
		t.Fatalf("job ended %+v", done)
	}
	// Someone changes main in the same file meanwhile.
	if err := os.WriteFile(filepath.Join(repo, "notes", "1.md"), []byte("a human's note\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	git(t, repo, "add", "notes/1.md")
	git(t, repo, "commit", "--quiet", "-m", "human note")
	before := git(t, repo, "rev-parse", "main")

	c := s.signedIn(t)
	page := "/projects/" + s.project.ID + "/jobs/" + created.ID
	res, body := s.get(t, c, page+"/changes")
	if res.StatusCode != http.StatusOK || !strings.Contains(body, `data-file="notes/1.md"`) || !strings.Contains(body, `id="merge"`) {
		t.Fatalf("review page: %d, lacks the file or the merge button", res.StatusCode)
	}
	res, body = s.postPage(t, c, page+"/merge", nil)
	if res.StatusCode != http.StatusConflict || !strings.Contains(body, "does not merge cleanly into main") {
		t.Fatalf("conflicting merge: got %d, want 409 with the conflict explained", res.StatusCode)
	}
	if git(t, repo, "rev-parse", "main") != before {
		t.Error("a conflicting merge moved main")
	}
	if j, _ := s.app.jobs.Get(context.Background(), s.project.ID, created.ID); j.Status != model.JobCompleted {
		t.Errorf("after a refused merge the job is %s, want completed", j.Status)
	}
}

func TestReviewPageOfAGitHubProjectWithoutAToken(t *testing.T) {
	t.Parallel()
	s := newTestServer(t) // acme/docs: a GitHub repository, and no FOLIO_GITHUB_TOKEN
	created, err := s.app.jobs.Create(context.Background(), s.project.ID, "Fix the typo.", "")
	if err != nil {
		t.Fatal(err)
	}
	c := s.signedIn(t)
	page := "/projects/" + s.project.ID + "/jobs/" + created.Job.ID
	if _, body := s.get(t, c, page+"/changes"); !strings.Contains(body, "could not read this branch") || strings.Contains(body, `id="merge"`) {
		t.Errorf("a GitHub job's review page without a token offers a merge, or does not say it cannot read the branch")
	}
	if res, body := s.postPage(t, c, page+"/merge", nil); res.StatusCode != http.StatusConflict || !strings.Contains(body, "still working") {
		t.Errorf("merge of an active job: got %d", res.StatusCode)
	}
}

// Project admins may connect only local repositories directly inside
// FOLIO_LOCAL_REPOS: not the rest of the disk, nor one nested in another's
// working tree, where files the agent wrote could pose as a repository.
func TestDashboardConfinesLocalRepositories(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	inside := newDocsRepoIn(t, s.app.cfg.LocalRepos)
	c := s.signedIn(t)
	for _, repo := range []string{"/etc", newDocsRepo(t), filepath.Join(inside, "notes"), "file://" + filepath.Dir(s.app.cfg.LocalRepos)} {
		res, body := s.postPage(t, c, "/projects", url.Values{"name": {"Evil"}, "repository": {repo}, "ref": {"main"}})
		if res.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(body, "does not allow that repository") {
			t.Errorf("repository %s: got %d, want 422 refusing it", repo, res.StatusCode)
		}
	}
	if res, _ := s.postPage(t, c, "/projects", url.Values{"name": {"Docs"}, "repository": {inside}, "ref": {"main"}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("a repository inside FOLIO_LOCAL_REPOS: got %d, want 303", res.StatusCode)
	}
}
