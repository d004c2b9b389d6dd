package jobs_test

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/folio-docs/folio/agent"
	"github.com/folio-docs/folio/codehost"
	"github.com/folio-docs/folio/codehost/github"
	"github.com/folio-docs/folio/codehost/hosts"
	"github.com/folio-docs/folio/internal/testenv"
	"github.com/folio-docs/folio/jobs"
	"github.com/folio-docs/folio/model"
)

// newGitHubWorld is a world whose project, acme/docs, is on a fake GitHub.
func newGitHubWorld(t *testing.T) (*world, *testenv.FakeGitHub) {
	t.Helper()
	gh := testenv.NewFakeGitHub(t, nil)
	w := newWorld(t, jobs.Config{Hosts: hosts.Config{GitHubAPIURL: gh.URL, GitHubTokens: github.StaticToken(gh.Token)}})
	return w, gh
}

// openPullRequest pushes j's branch with a new page and opens its pull
// request on GitHub, as the job's run does; it returns the branch's diff.
func openPullRequest(t *testing.T, gh *testenv.FakeGitHub, j model.Job) string {
	t.Helper()
	branch := "folio/" + j.ID
	gh.Commit(t, branch, map[string]string{"guides/" + j.ID + ".mdx": "# A new page\n"})
	h, err := github.New(gh.Repo, gh.URL, github.StaticToken(gh.Token), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.Publish(context.Background(), codehost.PullRequest{Branch: branch, Base: "main", Title: "A new page"}); err != nil {
		t.Fatal(err)
	}
	c, err := h.Changes(context.Background(), "main", branch)
	if err != nil || c.Diff == "" {
		t.Fatalf("changes of %s: %+v, %v", branch, c, err)
	}
	return c.Diff
}

// closed is the webhook's report of pull request pr of job j.
func closed(j model.Job, pr testenv.FakePullRequest) codehost.ClosedPullRequest {
	return codehost.ClosedPullRequest{JobID: j.ID, Repository: "acme/docs", Number: pr.Number, Merged: pr.Merged, MergeCommit: pr.MergeCommit}
}

// A pull request merged on GitHub is recorded as Folio's own merge is, and
// archives the job as Archive does: a run under way stops, queued
// follow-ups are dropped.
func TestPullRequestMergedOnGitHubWhileTheJobRuns(t *testing.T) {
	w, gh := newGitHubWorld(t)
	w.startWorker()
	ctx := context.Background()
	j := w.create("add a page")
	w.runner.waitRun(t)
	stopped := make(chan struct{})
	w.runner.then(func(ctx context.Context, run agent.Run, record agent.Recorder) (agent.Result, error) {
		<-ctx.Done()
		close(stopped)
		return agent.Result{}, ctx.Err()
	})
	diff := openPullRequest(t, gh, j)
	if _, err := w.svc.Message(ctx, w.project.ID, j.ID, "queued"); err != nil {
		t.Fatal(err)
	}
	pr := gh.MergeOnGitHub(t, 1)

	if err := w.svc.ArchiveForPullRequest(ctx, closed(j, pr)); err != nil {
		t.Fatalf("ArchiveForPullRequest: %v", err)
	}
	got := w.get(j.ID)
	if got.Status != model.JobArchived || got.ArchivedAt == nil || got.MergedAt == nil || got.MergeCommit != pr.MergeCommit || got.LeaseOwner != "" {
		t.Fatalf("job = %+v, want archived and merged at %s with no lease", got, pr.MergeCommit)
	}
	if stored, err := w.db.MergedDiff(ctx, j.ID); err != nil || stored != diff {
		t.Fatalf("merged diff = %q, %v; want GitHub's %q", stored, err, diff)
	}
	select {
	case <-stopped:
	case <-time.After(5 * time.Second):
		t.Fatal("the run was not stopped")
	}
	ms, _ := w.svc.Messages(ctx, w.project.ID, j.ID)
	if last := ms[len(ms)-1]; last.Content != "queued" || !last.Dropped {
		t.Fatalf("messages = %+v, want the queued follow-up dropped", ms)
	}
	// A redelivery changes nothing.
	if err := w.svc.ArchiveForPullRequest(ctx, closed(j, pr)); err != nil {
		t.Fatalf("redelivery: %v", err)
	}
	if again := w.get(j.ID); !again.MergedAt.Equal(*got.MergedAt) {
		t.Fatalf("a redelivery moved mergedAt from %s to %s", got.MergedAt, again.MergedAt)
	}
}

func TestPullRequestClosedOnGitHub(t *testing.T) {
	ctx := context.Background()
	t.Run("closed without merging is a plain archive", func(t *testing.T) {
		w, gh := newGitHubWorld(t)
		j := w.create("add a page")
		openPullRequest(t, gh, j)
		if err := w.svc.ArchiveForPullRequest(ctx, closed(j, gh.CloseOnGitHub(t, 1))); err != nil {
			t.Fatal(err)
		}
		if got := w.get(j.ID); got.Status != model.JobArchived || got.MergedAt != nil {
			t.Fatalf("job = %+v, want archived, not merged", got)
		}
	})
	t.Run("merged after the job was archived", func(t *testing.T) {
		w, gh := newGitHubWorld(t)
		j := w.create("add a page")
		diff := openPullRequest(t, gh, j)
		archived, err := w.svc.Archive(ctx, w.project.ID, j.ID)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.svc.ArchiveForPullRequest(ctx, closed(j, gh.MergeOnGitHub(t, 1))); err != nil {
			t.Fatal(err)
		}
		got := w.get(j.ID)
		if got.MergedAt == nil || !got.ArchivedAt.Equal(*archived.ArchivedAt) {
			t.Fatalf("job = %+v, want the merge recorded and archivedAt kept at %s", got, archived.ArchivedAt)
		}
		if stored, _ := w.db.MergedDiff(ctx, j.ID); stored != diff {
			t.Fatalf("merged diff = %q, want %q", stored, diff)
		}
	})
	t.Run("GitHub unreachable: merged without the diff", func(t *testing.T) {
		w, gh := newGitHubWorld(t)
		var logs testenv.LogBuffer
		w.svc = jobs.New(w.db, w.rdb, w.queue, w.runner, slog.New(slog.NewTextHandler(&logs, nil)),
			jobs.Config{Hosts: hosts.Config{GitHubAPIURL: gh.URL, GitHubTokens: github.StaticToken(gh.Token)}})
		j := w.create("add a page")
		openPullRequest(t, gh, j)
		pr := gh.MergeOnGitHub(t, 1)
		gh.Close()
		if err := w.svc.ArchiveForPullRequest(ctx, closed(j, pr)); err != nil {
			t.Fatal(err)
		}
		if got := w.get(j.ID); got.Status != model.JobArchived || got.MergedAt == nil || got.MergeCommit != pr.MergeCommit {
			t.Fatalf("job = %+v, want archived and merged", got)
		}
		if stored, _ := w.db.MergedDiff(ctx, j.ID); stored != "" {
			t.Fatalf("merged diff = %q, want none", stored)
		}
		if !strings.Contains(logs.String(), "recorded without its diff") || !strings.Contains(logs.String(), "level=WARN") {
			t.Fatalf("logs = %s, want a warning", logs.String())
		}
	})
	t.Run("a delivery of another repository archives nothing", func(t *testing.T) {
		w, gh := newGitHubWorld(t)
		j := w.create("add a page")
		openPullRequest(t, gh, j)
		report := closed(j, gh.MergeOnGitHub(t, 1))
		report.Repository = "mallory/docs"
		if err := w.svc.ArchiveForPullRequest(ctx, report); !errors.Is(err, model.ErrNotFound) {
			t.Fatalf("err = %v, want ErrNotFound", err)
		}
		if got := w.get(j.ID); got.Status != model.JobActive {
			t.Fatalf("job = %+v, want it untouched", got)
		}
	})
}
