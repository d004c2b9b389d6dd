// Package workspace is an agent run's git checkout: a fresh directory per
// run under the data directory, the job's branch checked out, and the
// commit and push when the run is done.
package workspace

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/folio-docs/folio/internal/git"
)

// Workspace is one run's checkout.
type Workspace struct {
	Dir    string // the checkout
	Branch string
	Base   string // the commit the run started from
	// Continued: the branch existed on the remote (a follow-up), so it may
	// hold earlier runs' commits.
	Continued bool
	// ForkPoint is the commit of ref the branch grew from (Base on a new
	// branch): what the branch as a whole changes is measured against it.
	ForkPoint string
	url       string
	env       []string // extra git environment, e.g. credentials; never logged
	parent    string
}

// Open clones the repository at url (with env, e.g. credentials) at ref into a new directory under root and checks out
// branch: continuing the remote's branch if it exists (a follow-up),
// otherwise starting it at ref. Close removes the directory.
func Open(ctx context.Context, root, url string, env []string, ref, branch string) (*Workspace, error) {
	if err := os.MkdirAll(root, 0o700); err != nil {
		return nil, fmt.Errorf("workspace: unable to create %s: %w", root, err)
	}
	// A directory of its own per run, so concurrent runs of any job never meet.
	parent, err := os.MkdirTemp(root, "run-")
	if err != nil {
		return nil, fmt.Errorf("workspace: unable to create a run directory: %w", err)
	}
	w := &Workspace{Dir: filepath.Join(parent, "repo"), Branch: branch, url: url, env: env, parent: parent}
	if err := w.checkout(ctx, ref); err != nil {
		_ = w.Close() // the checkout's failure is what to report; a run directory left behind is only disk
		return nil, err
	}
	return w, nil
}

func (w *Workspace) checkout(ctx context.Context, ref string) error {
	// Shallow: a docs run needs the tree at one commit only.
	// (Local paths ignore --depth and hard-link instead, which is as fast.)
	if _, err := w.git(ctx, w.parent, "clone", "--quiet", "--depth=1", "--no-tags", "--single-branch", "--branch", ref, w.url, w.Dir); err != nil {
		return fmt.Errorf("workspace: unable to clone the repository at %q: %w", ref, err)
	}
	refTip, err := w.git(ctx, w.Dir, "rev-parse", "HEAD")
	if err != nil {
		return fmt.Errorf("workspace: unable to read %q: %w", ref, err)
	}
	refTip = strings.TrimSpace(refTip)
	_, err = w.git(ctx, w.Dir, "ls-remote", "--exit-code", "--heads", "origin", "refs/heads/"+w.Branch)
	var gerr *git.Error
	switch {
	case err == nil:
		w.Continued = true
		if _, err := w.git(ctx, w.Dir, "fetch", "--quiet", "--depth=1", "--no-tags", "origin", "+refs/heads/"+w.Branch+":refs/remotes/origin/"+w.Branch); err != nil {
			return fmt.Errorf("workspace: unable to fetch branch %s: %w", w.Branch, err)
		}
		if _, err := w.git(ctx, w.Dir, "checkout", "--quiet", "-B", w.Branch, "refs/remotes/origin/"+w.Branch); err != nil {
			return fmt.Errorf("workspace: unable to check out branch %s: %w", w.Branch, err)
		}
	case errors.As(err, &gerr) && gerr.ExitCode() == 2: // no such branch yet
		if _, err := w.git(ctx, w.Dir, "checkout", "--quiet", "-b", w.Branch); err != nil {
			return fmt.Errorf("workspace: unable to create branch %s: %w", w.Branch, err)
		}
	default:
		return fmt.Errorf("workspace: unable to look for branch %s: %w", w.Branch, err)
	}
	head, err := w.git(ctx, w.Dir, "rev-parse", "HEAD")
	if err != nil {
		return fmt.Errorf("workspace: unable to read HEAD: %w", err)
	}
	w.Base = strings.TrimSpace(head)
	w.ForkPoint = w.Base
	if w.Continued {
		w.ForkPoint = w.forkPoint(ctx, ref, refTip)
	}
	return nil
}

// forkPoint finds where the branch left ref: their merge base. A shallow
// clone holds too little history for it, so both are deepened a few times,
// further each time. If none is found (unrelated histories, or a branch
// very far from ref), ref's tip stands in: the branch is then measured
// against ref as it is now.
func (w *Workspace) forkPoint(ctx context.Context, ref, refTip string) string {
	for _, deepen := range []int{0, 64, 1024} {
		if deepen > 0 {
			if shallow, _ := w.git(ctx, w.Dir, "rev-parse", "--is-shallow-repository"); strings.TrimSpace(shallow) != "true" {
				break
			}
			if _, err := w.git(ctx, w.Dir, "fetch", "--quiet", "--no-tags", fmt.Sprintf("--deepen=%d", deepen), "origin", ref, "refs/heads/"+w.Branch); err != nil {
				break
			}
		}
		if out, err := w.git(ctx, w.Dir, "merge-base", "HEAD", refTip); err == nil {
			return strings.TrimSpace(out)
		}
	}
	return refTip
}

func (w *Workspace) git(ctx context.Context, dir string, args ...string) (string, error) {
	return git.Run(ctx, dir, w.env, args...)
}

// Change is a file changed since the run started.
type Change struct {
	Path   string
	Status string // A added, M modified, D deleted (renames show as D and A)
}

// Changes stages everything and lists what differs from the run's start.
func (w *Workspace) Changes(ctx context.Context) ([]Change, error) {
	return w.changesSince(ctx, w.Base)
}

// BranchChanges stages everything and lists what the branch as a whole,
// earlier turns' commits included, changes against ForkPoint.
func (w *Workspace) BranchChanges(ctx context.Context) ([]Change, error) {
	return w.changesSince(ctx, w.ForkPoint)
}

// Diff is the branch's whole diff against ForkPoint, uncommitted changes
// included: a summary of the files, then the patch.
func (w *Workspace) Diff(ctx context.Context) (string, error) {
	if _, err := w.git(ctx, w.Dir, "add", "--all"); err != nil {
		return "", fmt.Errorf("workspace: unable to stage changes: %w", err)
	}
	stat, err := w.git(ctx, w.Dir, "diff", "--cached", "--no-renames", "--stat=100", w.ForkPoint)
	if err != nil {
		return "", fmt.Errorf("workspace: unable to diff the branch: %w", err)
	}
	patch, err := w.git(ctx, w.Dir, "diff", "--cached", "--no-renames", "--no-color", "--no-ext-diff", w.ForkPoint)
	if err != nil {
		return "", fmt.Errorf("workspace: unable to diff the branch: %w", err)
	}
	return stat + "\n" + patch, nil
}

func (w *Workspace) changesSince(ctx context.Context, commit string) ([]Change, error) {
	if _, err := w.git(ctx, w.Dir, "add", "--all"); err != nil {
		return nil, fmt.Errorf("workspace: unable to stage changes: %w", err)
	}
	out, err := w.git(ctx, w.Dir, "diff", "--cached", "--no-renames", "--name-status", "-z", commit)
	if err != nil {
		return nil, fmt.Errorf("workspace: unable to list changes: %w", err)
	}
	var changes []Change
	fields := strings.Split(strings.TrimRight(out, "\x00"), "\x00")
	for i := 0; i+1 < len(fields); i += 2 {
		changes = append(changes, Change{Status: fields[i][:1], Path: fields[i+1]})
	}
	return changes, nil
}

// Commit commits what is staged with message and pushes the branch. It
// reports false, with nothing committed, when nothing changed.
func (w *Workspace) Commit(ctx context.Context, message string) (bool, error) {
	if _, err := w.git(ctx, w.Dir, "add", "--all"); err != nil {
		return false, fmt.Errorf("workspace: unable to stage changes: %w", err)
	}
	if _, err := w.git(ctx, w.Dir, "diff", "--cached", "--quiet"); err == nil {
		return false, nil
	}
	if _, err := w.git(ctx, w.Dir, "commit", "--quiet", "--no-verify", "-m", message); err != nil {
		return false, fmt.Errorf("workspace: unable to commit: %w", err)
	}
	return true, nil
}

// Push sends the branch to the remote.
func (w *Workspace) Push(ctx context.Context) error {
	if _, err := w.git(ctx, w.Dir, "push", "--quiet", "origin", "HEAD:refs/heads/"+w.Branch); err != nil {
		return fmt.Errorf("workspace: unable to push branch %s: %w", w.Branch, err)
	}
	return nil
}

// Close removes the run's directory.
func (w *Workspace) Close() error {
	return os.RemoveAll(w.parent)
}
