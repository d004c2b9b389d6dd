package testenv

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Git runs git in dir with a fixed identity and no system configuration,
// fails the test if git fails, and returns its trimmed output.
func Git(t testing.TB, dir string, args ...string) string {
	t.Helper()
	out, err := gitCommand(dir, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// gitCommand is git in dir with Git's identity and environment.
func gitCommand(dir string, args ...string) *exec.Cmd {
	cmd := exec.Command("git", args...) // #nosec G204 G702 -- tests' own git commands, run without a shell
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=T", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=T", "GIT_COMMITTER_EMAIL=t@example.com", "GIT_CONFIG_NOSYSTEM=1")
	return cmd
}

// WriteFiles writes files (slash-separated paths to contents) under dir.
func WriteFiles(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil { // #nosec G301 -- a test's repository in its temporary folder, as a checkout's would be
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil { // #nosec G306 -- a test's docs page in its temporary folder, as a checkout's would be
			t.Fatal(err)
		}
	}
}

// NewRepo makes dir a git repository whose one commit, on main, holds files.
func NewRepo(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	WriteFiles(t, dir, files)
	Git(t, dir, "init", "--quiet", "--initial-branch=main")
	Git(t, dir, "add", "--all")
	Git(t, dir, "commit", "--quiet", "-m", "initial docs")
}
