package main

import (
	"strings"
	"testing"

	"github.com/folio-docs/folio/internal/testenv"
)

// newGitHubJob runs a job to completion on the test project, acme/docs on
// a fake GitHub, with the real agent: it clones, writes notes/1.md, pushes
// folio/<id> and opens pull request #1.
func newGitHubJob(t *testing.T) (*testServer, *testenv.FakeGitHub, string) {
	t.Helper()
	gh := testenv.NewFakeGitHub(t, docsSite)
	s := newTestServer(t, withGitHub(t, gh), withModel(t, testenv.NewModelServer(t, nil)))
	var created jobJSON
	s.expect(201, "POST", "/v2/agent/{p}/job", `{"prompt":"Write the first note."}`, &created)
	done := s.pollJob(created.ID)
	if done.Status != "completed" || done.PRLink == nil || *done.PRLink != "https://github.com/acme/docs/pull/1" {
		t.Fatalf("job ended %+v, want completed with pull request #1", done)
	}
	return s, gh, created.ID
}

// A client reviews and lands a GitHub job's work over the API: the changes
// are GitHub's comparison, the merge is GitHub merging the pull request.
func TestGitHubChangesAndMergeOverTheAPI(t *testing.T) {
	t.Parallel()
	s, gh, id := newGitHubJob(t)
	branch := "folio/" + id

	var c changesJSON
	s.expect(200, "GET", "/v2/agent/{p}/job/"+id+"/changes", "", &c)
	if want := git(t, gh.Bare, "diff", "main..."+branch); strings.TrimSpace(c.Diff) != want {
		t.Fatalf("changes diff = %q, want GitHub's %q", c.Diff, want)
	}
	if c.Base != "main" || c.Branch != branch || len(c.Files) != 1 || c.Files[0].Path != "notes/1.md" || c.Files[0].Status != "added" || c.Files[0].Additions == 0 {
		t.Fatalf("changes = %+v", c)
	}

	head := git(t, gh.Bare, "rev-parse", branch)
	s.expectMerge(id, c)
	// GitHub merged pull request #1 at the head Folio saw, once: the read key's attempt and the second merge never reached it.
	puts := gh.Requests("PUT", "")
	if len(puts) != 1 || puts[0].Path != "/repos/acme/docs/pulls/1/merge" || puts[0].Body["sha"] != head {
		t.Fatalf("GitHub received merges %+v, want one of pull request #1 at %s", puts, head)
	}
	if pr := gh.Pulls()[0]; !pr.Merged || git(t, gh.Bare, "rev-parse", "main") != pr.MergeCommit {
		t.Fatalf("pull request after the merge = %+v", pr)
	}
}

// A pull request merged on GitHub is recorded as merged: GitHub's signed
// pull_request webhook archives the job with mergedAt, its changes are
// what GitHub merged, and the job page says Merged; one closed without
// merging is a plain archive.
func TestGitHubWebhookRecordsAMergedPullRequest(t *testing.T) {
	t.Parallel()
	for _, merged := range []bool{true, false} {
		t.Run(map[bool]string{true: "merged", false: "closed"}[merged], func(t *testing.T) {
			s, gh, id := newGitHubJob(t)
			want := git(t, gh.Bare, "diff", "main...folio/"+id)
			if merged {
				gh.MergeOnGitHub(t, 1)
			} else {
				gh.CloseOnGitHub(t, 1)
			}
			res, body := gh.Deliver(t, s.URL+"/webhooks/github", githubWebhookSecret, "pull_request", gh.PullRequestEvent(t, "closed", 1))
			if res.StatusCode != 200 || !strings.Contains(body, `"archived":"`+id+`"`) {
				t.Fatalf("delivery answered %d %s, want the job archived", res.StatusCode, body)
			}

			var j map[string]any
			s.expect(200, "GET", "/v2/agent/{p}/job/"+id, "", &j)
			if j["status"] != "archived" || j["archivedAt"] == nil || (j["mergedAt"] != nil) != merged {
				t.Fatalf("job = %v, want archived with mergedAt only if merged", j)
			}
			c := s.signedIn(t)
			_, page := s.get(t, c, "/projects/"+s.project.ID+"/jobs/"+id)
			if shown := strings.Contains(page, `data-status="merged"`) && strings.Contains(page, "Merged into"); shown != merged {
				t.Fatalf("job page shows Merged: %v, want %v", shown, merged)
			}
			if !merged {
				return
			}
			if diffs := gh.Requests("GET", "/repos/acme/docs/pulls/1"); len(diffs) != 1 || !strings.Contains(diffs[0].Accept, "diff") {
				t.Fatalf("asked GitHub %+v, want the pull request's diff once", diffs)
			}
			var ch changesJSON
			s.expect(200, "GET", "/v2/agent/{p}/job/"+id+"/changes", "", &ch)
			if strings.TrimSpace(ch.Diff) != want || len(ch.Files) != 1 || ch.Files[0].Path != "notes/1.md" {
				t.Fatalf("changes after the merge on GitHub = %+v, want the merged diff %q", ch, want)
			}
			if _, review := s.get(t, c, "/projects/"+s.project.ID+"/jobs/"+id+"/changes"); !strings.Contains(review, `data-file="notes/1.md"`) {
				t.Fatal("the review page lacks the merged file")
			}
		})
	}
}
