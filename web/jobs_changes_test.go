package main

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/folio-docs/folio/internal/testenv"
	"github.com/folio-docs/folio/model"
)

type changesJSON struct {
	Base   string `json:"base"`
	Branch string `json:"branch"`
	Files  []struct {
		Path      string `json:"path"`
		Status    string `json:"status"`
		Additions int    `json:"additions"`
		Deletions int    `json:"deletions"`
	} `json:"files"`
	Diff string `json:"diff"`
}

// A client reviews and lands a job's work without the browser: GET
// .../changes, POST .../merge, on a local repository.
func TestChangesAndMergeOverTheAPI(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, withModel(t, testenv.NewModelServer(t, nil)))
	repo := newDocsRepo(t)
	s.useRepository(t, repo)
	var created jobJSON
	s.expect(201, "POST", "/v2/agent/{p}/job", `{"prompt":"Write the first note."}`, &created)
	base := "/v2/agent/{p}/job/" + created.ID

	var c changesJSON
	s.expect(200, "GET", base+"/changes", "", &c) // while active: whatever is pushed so far, maybe nothing
	if c.Files == nil {
		t.Fatal("changes of a job without changes: files is null, want []")
	}
	if done := s.pollJob(created.ID); done.Status != "completed" {
		t.Fatalf("job ended %+v", done)
	}
	s.expect(200, "GET", base+"/changes", "", &c)
	if c.Base != "main" || c.Branch != "folio/"+created.ID || len(c.Files) != 1 || c.Files[0].Path != "notes/1.md" ||
		c.Files[0].Status != "added" || c.Files[0].Additions == 0 || !strings.Contains(c.Diff, "+++ b/notes/1.md") {
		t.Fatalf("changes = %+v", c)
	}
	s.expectMerge(created.ID, c)
	if got := git(t, repo, "show", "main:notes/1.md"); got == "" {
		t.Fatal("main lacks the merged file")
	}
	var e apiError
	for _, path := range []string{"/v2/agent/{p}/job/nope/changes", "/v2/agent/{p}/job/nope/merge"} {
		method := http.MethodGet
		if strings.HasSuffix(path, "merge") {
			method = http.MethodPost
		}
		s.expect(404, method, path, "", &e)
		if e.Code != "not_found" {
			t.Fatalf("%s %s: code %q", method, path, e.Code)
		}
	}
}

// expectMerge merges job id over the API as the contract says: a read key
// reviews but does not merge; the merge archives the job with mergedAt;
// the changes are then what was merged (before); a second merge is 409
// job_archived.
func (s *testServer) expectMerge(id string, before changesJSON) {
	s.t.Helper()
	base := "/v2/agent/{p}/job/" + id
	readKey, _, err := s.app.keys.Issue(context.Background(), s.project.ID, "ro", model.ScopeRead, "never")
	if err != nil {
		s.t.Fatal(err)
	}
	if res := s.do("GET", base+"/changes", "", nil, "Authorization", "Bearer "+readKey); res.StatusCode != 200 {
		s.t.Fatalf("GET changes with a read key = %d", res.StatusCode)
	}
	var e apiError
	if res := s.do("POST", base+"/merge", "", &e, "Authorization", "Bearer "+readKey); res.StatusCode != 403 || e.Code != "forbidden" {
		s.t.Fatalf("merge with a read key = %d %+v, want 403 forbidden", res.StatusCode, e)
	}
	var merged map[string]any
	s.expect(200, "POST", base+"/merge", "", &merged)
	if merged["status"] != "archived" || merged["mergedAt"] == nil || merged["archivedAt"] == nil {
		s.t.Fatalf("merge answered %v, want the job archived with mergedAt", merged)
	}
	var after changesJSON
	s.expect(200, "GET", base+"/changes", "", &after)
	if after.Diff != before.Diff || len(after.Files) != len(before.Files) {
		s.t.Fatalf("changes after the merge = %+v, want the merged diff", after)
	}
	s.expect(409, "POST", base+"/merge", "", &e)
	if e.Code != "job_archived" {
		s.t.Fatalf("second merge code %q, want job_archived", e.Code)
	}
}

// A job whose branch brings nothing has nothing to merge: 409 conflict.
func TestMergeOfNothingIsAConflict(t *testing.T) {
	t.Parallel()
	m := testenv.NewModelServer(t, func([]testenv.ChatMessage) testenv.ModelReply { return testenv.ModelReply{Text: "Nothing to change."} })
	s := newTestServer(t, withModel(t, m))
	s.useRepository(t, newDocsRepo(t))
	var created jobJSON
	s.expect(201, "POST", "/v2/agent/{p}/job", `{"prompt":"Check the docs."}`, &created)
	if done := s.pollJob(created.ID); done.Status != "completed" {
		t.Fatalf("job ended %+v", done)
	}
	var c changesJSON
	s.expect(200, "GET", "/v2/agent/{p}/job/"+created.ID+"/changes", "", &c)
	if len(c.Files) != 0 || c.Diff != "" {
		t.Fatalf("changes of a job that changed nothing = %+v", c)
	}
	var e apiError
	s.expect(409, "POST", "/v2/agent/{p}/job/"+created.ID+"/merge", "", &e)
	if e.Code != "conflict" || !strings.Contains(e.Error, "nothing to merge") {
		t.Fatalf("merge of nothing = %+v", e)
	}
}
