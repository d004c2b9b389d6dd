// Package git runs the git command for the agent's workspace and the code
// hosts. It is the one place that starts git, so every call gets the same
// environment: no prompts, no user or system configuration leaking in.
package git

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
)

// Run runs git with args in dir and returns its standard output. env adds
// variables (for example credentials as GIT_CONFIG_* pairs, which keeps them
// out of the process list); they are never part of the error.
func Run(ctx context.Context, dir string, env []string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", args...) // #nosec G204 -- git itself, no shell; each user value is one argument: a ref refused if it starts with -, or behind refs/heads/ or an option that takes it (--branch, -m)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(),
		"GIT_TERMINAL_PROMPT=0",
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=Folio", "GIT_AUTHOR_EMAIL=folio@localhost",
		"GIT_COMMITTER_NAME=Folio", "GIT_COMMITTER_EMAIL=folio@localhost",
		"LC_ALL=C",
	)
	cmd.Env = append(cmd.Env, env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return "", fmt.Errorf("git %s: %w", args[0], ctx.Err())
		}
		return stdout.String(), &Error{Args: args, Stderr: strings.TrimSpace(stderr.String()), Err: err}
	}
	return stdout.String(), nil
}

// Error is a failed git command with what it printed.
type Error struct {
	Args   []string
	Stderr string
	Err    error
}

func (e *Error) Error() string {
	msg := e.Stderr
	if len(msg) > 500 {
		msg = msg[:500] + "…"
	}
	return fmt.Sprintf("git %s: %v: %s", e.Args[0], e.Err, msg)
}

func (e *Error) Unwrap() error { return e.Err }

// ExitCode is the command's exit status, or -1 if it did not run.
func (e *Error) ExitCode() int {
	if x, ok := e.Err.(*exec.ExitError); ok {
		return x.ExitCode()
	}
	return -1
}

// AuthEnv passes an HTTP header to git through the environment (never argv),
// so a token is neither in the process list nor in any remote URL.
func AuthEnv(header string) []string {
	return []string{"GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=http.extraHeader", "GIT_CONFIG_VALUE_0=" + header}
}
