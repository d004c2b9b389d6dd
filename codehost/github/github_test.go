package github

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/folio-docs/folio/codehost"
	"github.com/folio-docs/folio/internal/testenv"
	"github.com/folio-docs/folio/model"
)

const page = "---\ntitle: Welcome\n---\n\nHello.\n"

// newTestHost is acme/docs on a fake GitHub, reached through go-github.
func newTestHost(t *testing.T) (*Host, *testenv.FakeGitHub) {
	t.Helper()
	gh := testenv.NewFakeGitHub(t, map[string]string{"index.mdx": page})
	h, err := New(gh.Repo, gh.URL, StaticToken(gh.Token), nil)
	if err != nil {
		t.Fatal(err)
	}
	return h, gh
}

// openPullRequest pushes branch with files and opens its pull request, as
// an agent run does.
func openPullRequest(t *testing.T, h *Host, gh *testenv.FakeGitHub, branch string, files map[string]string) {
	t.Helper()
	gh.Commit(t, branch, files)
	if _, err := h.Publish(context.Background(), codehost.PullRequest{Branch: branch, Base: "main", Title: "Edit", Body: "An edit."}); err != nil {
		t.Fatalf("Publish: %v", err)
	}
}

func TestChanges(t *testing.T) {
	h, gh := newTestHost(t)
	gh.Commit(t, "folio/j1", map[string]string{"guides/new.mdx": "# New\n", "index.mdx": strings.Replace(page, "Hello.", "Hello, world.", 1)})

	c, err := h.Changes(context.Background(), "main", "folio/j1")
	if err != nil {
		t.Fatalf("Changes: %v", err)
	}
	got := map[string]string{}
	for _, f := range c.Files {
		got[f.Path] = f.Status
	}
	if c.Base != "main" || c.Branch != "folio/j1" || len(got) != 2 || got["guides/new.mdx"] != "added" || got["index.mdx"] != "modified" {
		t.Fatalf("changes = %+v, want guides/new.mdx added and index.mdx modified", c)
	}
	if !strings.Contains(c.Diff, "+++ b/guides/new.mdx") || !strings.Contains(c.Diff, "+Hello, world.") {
		t.Fatalf("diff = %q, want the branch's unified diff", c.Diff)
	}
	if reqs := gh.Requests("GET", "/repos/acme/docs/compare/main...folio/j1"); len(reqs) != 1 || !strings.Contains(reqs[0].Accept, "diff") {
		t.Fatalf("compare requests = %+v, want one asking for the diff", reqs)
	}
}

func TestChangesOfABranchGitHubDoesNotKnow(t *testing.T) {
	h, _ := newTestHost(t)
	c, err := h.Changes(context.Background(), "main", "folio/never-pushed")
	if err != nil || c.Files == nil || len(c.Files) != 0 || c.Diff != "" {
		t.Fatalf("Changes = %+v, %v; want no changes (files [])", c, err)
	}
	// A base that is gone is no "no changes": the ref is missing.
	if _, err := h.Changes(context.Background(), "trunk", "folio/never-pushed"); !errors.Is(err, codehost.ErrRefNotFound) {
		t.Fatalf("Changes against a missing base: %v, want ErrRefNotFound", err)
	}
}

func TestMerge(t *testing.T) {
	for _, tc := range []struct {
		name    string
		setup   func(t *testing.T, h *Host, gh *testenv.FakeGitHub)
		wantErr error
	}{
		{"the open pull request merges", func(t *testing.T, h *Host, gh *testenv.FakeGitHub) {
			openPullRequest(t, h, gh, "folio/j1", map[string]string{"guides/new.mdx": "# New\n"})
		}, nil},
		{"a pull request GitHub cannot merge is a conflict", func(t *testing.T, h *Host, gh *testenv.FakeGitHub) {
			openPullRequest(t, h, gh, "folio/j1", map[string]string{"index.mdx": strings.Replace(page, "Hello.", "Hi.", 1)})
			gh.Commit(t, "main", map[string]string{"index.mdx": strings.Replace(page, "Hello.", "Good day.", 1)})
		}, model.ErrMergeConflict},
		{"a draft is not merged", func(t *testing.T, h *Host, gh *testenv.FakeGitHub) {
			gh.Commit(t, "folio/j1", map[string]string{"guides/new.mdx": "# New\n"})
			if _, err := h.Publish(context.Background(), codehost.PullRequest{Branch: "folio/j1", Base: "main", Title: "Edit", Draft: true}); err != nil {
				t.Fatal(err)
			}
		}, model.ErrMergeConflict},
		{"no open pull request is nothing to merge", func(t *testing.T, h *Host, gh *testenv.FakeGitHub) {
			gh.Commit(t, "folio/j1", map[string]string{"guides/new.mdx": "# New\n"})
		}, model.ErrNothingToMerge},
		{"a merged pull request is nothing to merge", func(t *testing.T, h *Host, gh *testenv.FakeGitHub) {
			openPullRequest(t, h, gh, "folio/j1", map[string]string{"guides/new.mdx": "# New\n"})
			gh.MergeOnGitHub(t, 1)
		}, model.ErrNothingToMerge},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h, gh := newTestHost(t)
			tc.setup(t, h, gh)
			head := testenv.Git(t, gh.Bare, "rev-parse", "folio/j1")
			mainBefore := testenv.Git(t, gh.Bare, "rev-parse", "main")

			commit, err := h.Merge(context.Background(), "main", "folio/j1")
			if tc.wantErr != nil {
				if !errors.Is(err, tc.wantErr) || commit != "" {
					t.Fatalf("Merge = %q, %v; want %v", commit, err, tc.wantErr)
				}
				if now := testenv.Git(t, gh.Bare, "rev-parse", "main"); now != mainBefore {
					t.Fatalf("main moved from %s to %s on a refused merge", mainBefore, now)
				}
				return
			}
			if err != nil {
				t.Fatalf("Merge: %v", err)
			}
			pr := gh.Pulls()[0]
			if main := testenv.Git(t, gh.Bare, "rev-parse", "main"); commit != main || commit != pr.MergeCommit || !pr.Merged {
				t.Fatalf("Merge = %q; main is at %s, the pull request %+v", commit, main, pr)
			}
			puts := gh.Requests("PUT", "/repos/acme/docs/pulls/1/merge")
			if len(puts) != 1 || puts[0].Body["sha"] != head || puts[0].Body["merge_method"] != "merge" {
				t.Fatalf("merge requests = %+v, want one with sha %s and a merge commit", puts, head)
			}
		})
	}
}

// A pull request someone marked ready for review goes back to draft when
// the change is not ready to merge (BackToDraft), through GraphQL's
// convertPullRequestToDraft, REST having no way; a plain update leaves it
// ready. A token GitHub refuses the mutation still updates the pull
// request, and says it stays ready.
func TestPublishTurnsAReadyPullRequestBackIntoADraft(t *testing.T) {
	update := codehost.PullRequest{Branch: "folio/j1", Base: "main", Title: "Edit", Body: "An update.", Draft: true}
	t.Run("converted", func(t *testing.T) {
		h, gh := newTestHost(t)
		openPullRequest(t, h, gh, "folio/j1", map[string]string{"guides/new.mdx": "# New\n"})
		if _, err := h.Publish(context.Background(), update); err != nil || gh.Pulls()[0].Draft || len(gh.Requests("POST", "/graphql")) != 0 {
			t.Fatalf("Publish = %v, pulls %+v; want the ready pull request left ready without BackToDraft", err, gh.Pulls())
		}
		update := update
		update.BackToDraft = true
		link, err := h.Publish(context.Background(), update)
		if err != nil || link != "https://github.com/acme/docs/pull/1" {
			t.Fatalf("Publish = %q, %v", link, err)
		}
		if p := gh.Pulls(); len(p) != 1 || !p[0].Draft || p[0].Body != "An update." {
			t.Fatalf("pulls = %+v, want #1 updated and a draft again", p)
		}
		reqs := gh.Requests("POST", "/graphql")
		if len(reqs) != 1 || reqs[0].Body["variables"].(map[string]any)["id"] != "PR_kwDOfake0001" {
			t.Fatalf("GraphQL requests = %+v, want one naming #1's node id", reqs)
		}
		// A draft already is left alone.
		if _, err := h.Publish(context.Background(), update); err != nil || len(gh.Requests("POST", "/graphql")) != 1 {
			t.Fatalf("Publish = %v after %d GraphQL requests; want none more for a draft", err, len(gh.Requests("POST", "/graphql")))
		}
	})
	t.Run("refused", func(t *testing.T) {
		h, gh := newTestHost(t)
		openPullRequest(t, h, gh, "folio/j1", map[string]string{"guides/new.mdx": "# New\n"})
		gh.RefuseDraftConversion()
		update := update
		update.BackToDraft = true
		link, err := h.Publish(context.Background(), update)
		var still *codehost.StillReadyError
		if !errors.As(err, &still) || still.Number != 1 || still.Reason != "GitHub's GraphQL API refused: Resource not accessible by integration" || link != "https://github.com/acme/docs/pull/1" {
			t.Fatalf("Publish = %q, %v; want the link and a StillReadyError with GitHub's reason", link, err)
		}
		if p := gh.Pulls(); p[0].Draft || p[0].Body != "An update." {
			t.Fatalf("pulls = %+v, want #1 updated and still ready", p)
		}
	})
}

func TestGraphQLURL(t *testing.T) {
	for api, want := range map[string]string{
		"https://api.github.com/":         "https://api.github.com/graphql",
		"https://ghe.example.com/api/v3/": "https://ghe.example.com/api/graphql",
		"https://api.acme.ghe.com/":       "https://api.acme.ghe.com/graphql",
		"http://127.0.0.1:8080/prefix/":   "http://127.0.0.1:8080/prefix/graphql",
	} {
		u, err := parseAPIURL(api)
		if err != nil {
			t.Fatal(err)
		}
		if got := graphQLURL(u); got != want {
			t.Errorf("graphQLURL(%s) = %s, want %s", api, got, want)
		}
	}
}
