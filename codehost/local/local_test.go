package local

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/folio-docs/folio/model"
)

func gitT(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=T", "GIT_AUTHOR_EMAIL=t@x", "GIT_COMMITTER_NAME=T", "GIT_COMMITTER_EMAIL=t@x")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// newTestRepo is a non-bare repository with main checked out and a branch
// folio/j that changed b.md; mainChange, if set, moves main too.
func newTestRepo(t *testing.T, mainFile, mainContent string) string {
	dir := t.TempDir()
	write := func(name, content string) { os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644) }
	gitT(t, dir, "init", "-q", "-b", "main")
	write("a.md", "one\n")
	gitT(t, dir, "add", "-A")
	gitT(t, dir, "commit", "-qm", "init")
	gitT(t, dir, "checkout", "-qb", "folio/j")
	write("b.md", "two\n")
	gitT(t, dir, "add", "-A")
	gitT(t, dir, "commit", "-qm", "agent")
	gitT(t, dir, "checkout", "-q", "main")
	if mainFile != "" {
		write(mainFile, mainContent)
		gitT(t, dir, "add", "-A")
		gitT(t, dir, "commit", "-qm", "meanwhile")
	}
	return dir
}

func TestMerge(t *testing.T) {
	ctx := context.Background()
	t.Run("fast-forward updates the checked-out tree", func(t *testing.T) {
		dir := newTestRepo(t, "", "")
		res, err := Merge(ctx, dir, "main", "folio/j")
		if err != nil || !res.FastForward {
			t.Fatalf("Merge = %+v, %v", res, err)
		}
		if data, _ := os.ReadFile(filepath.Join(dir, "b.md")); string(data) != "two\n" {
			t.Fatal("working tree not updated")
		}
		if again, _ := Merge(ctx, dir, "main", "folio/j"); !again.AlreadyMerged {
			t.Fatalf("second Merge = %+v, want already merged", again)
		}
	})
	t.Run("moved ref gets a merge commit", func(t *testing.T) {
		dir := newTestRepo(t, "c.md", "three\n")
		gitT(t, dir, "checkout", "-q", "--detach")
		diff, err := Diff(ctx, dir, "main", "folio/j")
		if err != nil || !strings.Contains(diff, "+two") || strings.Contains(diff, "three") {
			t.Fatalf("Diff = %v\n%s", err, diff)
		}
		res, err := Merge(ctx, dir, "main", "folio/j")
		if err != nil || res.FastForward {
			t.Fatalf("Merge = %+v, %v; want a merge commit", res, err)
		}
		if parents := gitT(t, dir, "log", "-1", "--format=%P", "main"); len(strings.Fields(parents)) != 2 {
			t.Fatalf("main's head has parents %q", parents)
		}
		if files := gitT(t, dir, "ls-tree", "--name-only", "main"); files != "a.md\nb.md\nc.md" {
			t.Fatalf("main has %q", files)
		}
	})
	t.Run("conflict", func(t *testing.T) {
		dir := newTestRepo(t, "b.md", "other\n")
		if _, err := Merge(ctx, dir, "main", "folio/j"); !errors.Is(err, model.ErrMergeConflict) {
			t.Fatalf("err = %v, want model.ErrMergeConflict", err)
		}
	})
}
