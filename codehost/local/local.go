// Package local is the embedded code host that needs no account: the
// project's repository is a git repository on this machine, the agent's
// branch is pushed to it, and the "pull request" is Folio's own review page
// of the branch, where an admin sees the diff and merges it into the ref.
package local

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/folio-docs/folio/codehost"
	"github.com/folio-docs/folio/internal/git"
	"github.com/folio-docs/folio/model"
)

// Host is one local repository.
type Host struct {
	path    string
	baseURL string
	remote  *codehost.Remote // set when the repository is reached over serve's git HTTP
}

// New serves the repository at path; baseURL is FOLIO_BASE_URL, for links.
func New(path, baseURL string) *Host {
	return &Host{path: path, baseURL: strings.TrimRight(baseURL, "/")}
}

// NewOverHTTP is the local repository of project as a worker on another
// machine reaches it: through serve (serverURL, FOLIO_SERVER_URL) at
// GitURL, with the worker token as the password (in git's environment,
// never in the URL or argv). baseURL is serve's FOLIO_BASE_URL, so links
// are the same as from a worker beside the repository.
func NewOverHTTP(serverURL, projectID, token, baseURL string) *Host {
	basic := base64.StdEncoding.EncodeToString([]byte("folio-worker:" + token))
	return &Host{baseURL: strings.TrimRight(baseURL, "/"), remote: &codehost.Remote{
		URL: GitURL(serverURL, projectID),
		Env: git.AuthEnv("Authorization: Basic " + basic),
	}}
}

// GitURL is where serve offers a project's local repository over git's
// smart HTTP protocol (CONTRACT §7).
func GitURL(baseURL, projectID string) string {
	return strings.TrimRight(baseURL, "/") + "/git/" + url.PathEscape(projectID) + ".git"
}

// Remote is the repository itself, after checking it is one.
func (h *Host) Remote(ctx context.Context) (codehost.Remote, error) {
	if h.remote != nil {
		return *h.remote, nil
	}
	if _, err := git.Run(ctx, h.path, nil, "rev-parse", "--git-dir"); err != nil {
		return codehost.Remote{}, fmt.Errorf("local: %s is not a git repository: %w", h.path, err)
	}
	return codehost.Remote{URL: h.path}, nil
}

// Publish has nothing to open: the branch is already pushed, and its review
// page is the pull request.
func (h *Host) Publish(_ context.Context, pr codehost.PullRequest) (string, error) {
	return codehost.ChangesLink(h.baseURL, pr.ProjectID, pr.JobID), nil
}

// CheckRef says whether the path is a git repository with branch ref.
func (h *Host) CheckRef(ctx context.Context, ref string) error {
	if h.remote != nil {
		return h.checkRemoteRef(ctx, ref)
	}
	if _, err := git.Run(ctx, h.path, nil, "rev-parse", "--git-dir"); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("local: %s is not a git repository: %w", h.path, codehost.ErrRepositoryNotFound)
	}
	if !h.hasBranch(ctx, ref) {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("local: %s has no branch %q: %w", h.path, ref, codehost.ErrRefNotFound)
	}
	return nil
}

// checkRemoteRef is CheckRef for a repository reached through serve: the
// branch is asked of serve's git endpoint. serve answering at all means the
// repository is there (it refuses an unknown one), so a failure to list it
// may pass on a retry; only a missing branch is final.
func (h *Host) checkRemoteRef(ctx context.Context, ref string) error {
	out, err := git.Run(ctx, "", h.remote.Env, "ls-remote", "--heads", h.remote.URL, "refs/heads/"+ref)
	switch {
	case err != nil:
		return fmt.Errorf("local: unable to list the branches of %s: %w", h.remote.URL, err)
	case strings.TrimSpace(out) == "":
		return fmt.Errorf("local: the repository has no branch %q: %w", ref, codehost.ErrRefNotFound)
	}
	return nil
}

func (h *Host) hasBranch(ctx context.Context, name string) bool {
	_, err := git.Run(ctx, h.path, nil, "rev-parse", "--verify", "--quiet", "refs/heads/"+name+"^{commit}")
	return err == nil
}

// Changes is the branch's diff against base; a branch never pushed has none.
func (h *Host) Changes(ctx context.Context, base, branch string) (codehost.Changes, error) {
	c := codehost.Changes{Base: base, Branch: branch, Files: []codehost.FileChange{}}
	if err := h.CheckRef(ctx, base); err != nil {
		return c, err
	}
	if !h.hasBranch(ctx, branch) {
		return c, nil
	}
	diff, err := Diff(ctx, h.path, base, branch)
	if err != nil {
		return c, err
	}
	c.Diff, c.Files = diff, codehost.ParseDiff(diff)
	return c, nil
}

// Merge merges branch into base in the repository (see Merge).
func (h *Host) Merge(ctx context.Context, base, branch string) (string, error) {
	if !h.hasBranch(ctx, branch) {
		return "", model.ErrNothingToMerge
	}
	res, err := Merge(ctx, h.path, base, branch)
	switch {
	case err != nil:
		return "", err
	case res.AlreadyMerged:
		return res.Commit, model.ErrNothingToMerge
	}
	return res.Commit, nil
}

// Diff is the branch's change against ref since they parted, as a unified
// diff: what merging the branch would bring.
func Diff(ctx context.Context, repoPath, ref, branch string) (string, error) {
	out, err := git.Run(ctx, repoPath, nil, "diff", "--no-color", "--no-ext-diff", "--no-textconv", "refs/heads/"+ref+"...refs/heads/"+branch, "--")
	if err != nil {
		return "", fmt.Errorf("local: unable to diff %s against %s: %w", branch, ref, err)
	}
	return out, nil
}

// MergeResult is what Merge did.
type MergeResult struct {
	Commit        string // the ref's new head
	FastForward   bool
	AlreadyMerged bool
	Base          string // the ref's head before the merge
	Head          string // the branch's tip that was merged
}

// Merge brings branch into ref: a fast-forward when ref has not moved,
// otherwise a merge commit. The ref is updated only if it still points where
// it did, so a concurrent push is never lost. If ref is checked out in a
// non-bare repository, its working tree is updated too (and git refuses if
// local edits are in the way).
func Merge(ctx context.Context, repoPath, ref, branch string) (MergeResult, error) {
	run := func(args ...string) (string, error) {
		out, err := git.Run(ctx, repoPath, nil, args...)
		return strings.TrimSpace(out), err
	}
	old, err := run("rev-parse", "--verify", "refs/heads/"+ref+"^{commit}")
	if err != nil {
		return MergeResult{}, fmt.Errorf("local: unable to find ref %s: %w", ref, err)
	}
	tip, err := run("rev-parse", "--verify", "refs/heads/"+branch+"^{commit}")
	if err != nil {
		return MergeResult{}, fmt.Errorf("local: unable to find branch %s: %w", branch, err)
	}
	if _, err := run("merge-base", "--is-ancestor", tip, old); err == nil {
		return MergeResult{Commit: old, AlreadyMerged: true, Base: old, Head: tip}, nil
	}
	res := MergeResult{Commit: tip, FastForward: true, Base: old, Head: tip}
	if _, err := run("merge-base", "--is-ancestor", old, tip); err != nil {
		tree, err := run("merge-tree", "--write-tree", "--no-messages", old, tip)
		if err != nil {
			var gerr *git.Error
			if errors.As(err, &gerr) && gerr.ExitCode() == 1 {
				return MergeResult{}, model.ErrMergeConflict
			}
			return MergeResult{}, fmt.Errorf("local: unable to merge %s into %s: %w", branch, ref, err)
		}
		tree = strings.SplitN(tree, "\n", 2)[0]
		commit, err := run("commit-tree", tree, "-p", old, "-p", tip, "-m", fmt.Sprintf("Merge branch '%s' into %s", branch, ref))
		if err != nil {
			return MergeResult{}, fmt.Errorf("local: unable to write the merge commit: %w", err)
		}
		res = MergeResult{Commit: commit, Base: old, Head: tip}
	}
	bare, _ := run("rev-parse", "--is-bare-repository")
	head, _ := run("symbolic-ref", "--quiet", "HEAD")
	if bare != "true" && head == "refs/heads/"+ref {
		// The new head descends from the old one, so this only fast-forwards.
		if _, err := run("merge", "--quiet", "--ff-only", res.Commit); err != nil {
			return MergeResult{}, fmt.Errorf("local: unable to update the checked-out %s: %w", ref, err)
		}
		return res, nil
	}
	if _, err := run("update-ref", "-m", "folio: merge "+branch, "refs/heads/"+ref, res.Commit, old); err != nil {
		return MergeResult{}, fmt.Errorf("local: unable to update %s: %w", ref, err)
	}
	return res, nil
}
