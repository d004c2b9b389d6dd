// Package codehost is where an agent run's branch goes and where its pull
// request lives: GitHub (package codehost/github) or a local git repository
// reviewed in Folio itself (package codehost/local).
package codehost

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
)

// Host is a project's code host.
type Host interface {
	// Remote is the repository to clone from and push to.
	Remote(ctx context.Context) (Remote, error)
	// Publish opens the branch's pull request, or updates the one that
	// exists, and returns its link. An update that could not turn a pull
	// request ready for review back into a draft (BackToDraft) returns the
	// link and a *StillReadyError: everything else was done.
	Publish(ctx context.Context, pr PullRequest) (string, error)
	// CheckRef says whether the repository and its branch ref exist:
	// nil, ErrRepositoryNotFound, ErrRefNotFound, or an error saying the
	// host could not be asked (which may pass on a retry).
	CheckRef(ctx context.Context, ref string) error
	// Changes is what branch brings to base since they parted; a branch
	// that does not exist (yet) brings nothing.
	Changes(ctx context.Context, base, branch string) (Changes, error)
	// Merge lands branch into base: in the repository itself (local) or
	// by merging the branch's pull request (GitHub). It returns the new
	// head of base, model.ErrNothingToMerge or model.ErrMergeConflict.
	Merge(ctx context.Context, base, branch string) (string, error)
}

// Errors a Host answers with, matched with errors.Is.
var (
	ErrRepositoryNotFound = errors.New("codehost: the repository does not exist or cannot be reached with Folio's credentials")
	ErrRefNotFound        = errors.New("codehost: the branch does not exist in the repository")
)

// ErrNoGitHubToken means a GitHub repository was asked for on a server
// without FOLIO_GITHUB_TOKEN (or a GitHub App).
var ErrNoGitHubToken = errors.New("FOLIO_GITHUB_TOKEN is not set; the project's repository is on GitHub")

// StillReadyError is a pull request that was updated but stays ready for
// review: the host would not turn it back into a draft, for Reason.
type StillReadyError struct {
	Number int
	Reason string // the host's words
}

func (e *StillReadyError) Error() string {
	return fmt.Sprintf("codehost: pull request #%d stays ready for review: %s", e.Number, e.Reason)
}

// ClosedPullRequest is a pull request of a Folio job that was merged or
// closed on its code host (GitHub's webhook reports it).
type ClosedPullRequest struct {
	JobID       string
	Repository  string // owner/name
	Number      int
	Merged      bool
	MergeCommit string // merge_commit_sha, when merged
}

// ChangesLink is the review page of a job's branch in Folio's dashboard
// (CONTRACT §7): a local job's pull request.
func ChangesLink(baseURL, projectID, jobID string) string {
	return strings.TrimRight(baseURL, "/") + "/projects/" + url.PathEscape(projectID) + "/jobs/" + url.PathEscape(jobID) + "/changes"
}

// Remote is a git URL and the environment git needs to reach it (for
// example credentials as GIT_CONFIG_* pairs). Env is secret: never log it.
type Remote struct {
	URL string
	Env []string
}

// PullRequest is what an agent run asks the host to open or update.
type PullRequest struct {
	ProjectID string
	JobID     string
	Branch    string // folio/<job id>
	Base      string // the project's ref
	Title     string
	Body      string
	Draft     bool // a new pull request opens as a draft
	// BackToDraft: the change is not ready to merge (it would break the
	// site, or the agent stopped before it finished), so a pull request
	// someone already marked ready for review goes back to draft.
	BackToDraft bool
}

// Repository kinds.
const (
	KindGitHub = "github"
	KindLocal  = "local"
)

var ownerName = regexp.MustCompile(`^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})/[A-Za-z0-9._-]{1,100}$`)

// ParseRepository tells a project's REPO apart (CONTRACT §7): owner/name on
// GitHub, or a local repository as an absolute path or a file:// URL, in which
// case location is the path.
func ParseRepository(repo string) (kind, location string, err error) {
	switch {
	case strings.HasPrefix(repo, "file://"):
		u, err := url.Parse(repo)
		if err != nil || u.Path == "" || (u.Host != "" && u.Host != "localhost") {
			return "", "", fmt.Errorf("repository %q is not a valid file:// URL", repo)
		}
		return KindLocal, filepath.Clean(u.Path), nil
	case filepath.IsAbs(repo):
		return KindLocal, filepath.Clean(repo), nil
	case ownerName.MatchString(repo) && !strings.HasSuffix(repo, "/.") && !strings.HasSuffix(repo, "/.."):
		return KindGitHub, strings.TrimSuffix(repo, ".git"), nil
	}
	return "", "", fmt.Errorf("repository %q is neither owner/name on GitHub nor an absolute path or file:// URL", repo)
}
