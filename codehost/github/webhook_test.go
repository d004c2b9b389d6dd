package github

import (
	"context"
	"testing"

	"github.com/folio-docs/folio/codehost"
	"github.com/folio-docs/folio/internal/testenv"
)

// A closed pull request's delivery, as GitHub sends it, names the job, the
// pull request and, when merged, its merge commit.
func TestParseWebhookOfAClosedPullRequest(t *testing.T) {
	for _, merged := range []bool{true, false} {
		h, gh := newTestHost(t)
		openPullRequest(t, h, gh, "folio/j1", map[string]string{"guides/new.mdx": "# New\n"})
		var want codehost.ClosedPullRequest
		if merged {
			pr := gh.MergeOnGitHub(t, 1)
			want = codehost.ClosedPullRequest{JobID: "j1", Repository: "acme/docs", Number: 1, Merged: true, MergeCommit: pr.MergeCommit}
		} else {
			gh.CloseOnGitHub(t, 1)
			want = codehost.ClosedPullRequest{JobID: "j1", Repository: "acme/docs", Number: 1}
		}
		body := gh.PullRequestEvent(t, "closed", 1)
		got, err := ParseWebhook(delivery("pull_request", githubSignature("whsec", body), body), "whsec")
		if err != nil || got == nil || *got != want {
			t.Fatalf("merged %v: ParseWebhook = %+v, %v; want %+v", merged, got, err, want)
		}
	}
}

// A merged pull request's diff is the change its merge brought, also once
// the branch is gone from the comparison.
func TestPullRequestDiff(t *testing.T) {
	h, gh := newTestHost(t)
	openPullRequest(t, h, gh, "folio/j1", map[string]string{"guides/new.mdx": "# New\n"})
	before, err := h.PullRequestDiff(context.Background(), 1)
	if err != nil || before != testenv.Git(t, gh.Bare, "diff", "main...folio/j1")+"\n" {
		t.Fatalf("PullRequestDiff of the open pull request = %q, %v", before, err)
	}
	gh.MergeOnGitHub(t, 1)
	if after, err := h.PullRequestDiff(context.Background(), 1); err != nil || after != before {
		t.Fatalf("PullRequestDiff after the merge = %q, %v; want %q", after, err, before)
	}
	if _, err := h.PullRequestDiff(context.Background(), 2); !isStatus(err, 404) {
		t.Fatalf("PullRequestDiff of no pull request: %v, want GitHub's 404", err)
	}
}
