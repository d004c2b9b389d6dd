// Command folio is the whole of Folio in one binary: the HTTP API and
// dashboard (serve), the background worker (worker), and the operator CLI.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/redis/go-redis/v9"
)

const usage = `folio — documentation agent and analytics

Usage:
  folio serve                 run the HTTP API and dashboard (and a worker unless FOLIO_WORKER=false)
  folio worker                run the background worker only
  folio migrate               apply database migrations
  folio user create --email E --password-stdin
  folio project create --name N --repo REPO [--ref main] [--owner EMAIL]
  folio project update ID [--name N] [--repo REPO] [--ref R] [--model M] [--webhook URL] [--webhook-secret S]
                        [--drain-secret-stdin | --new-drain-secret] [--vercel-verify CODE]
  folio key create --project ID [--name N] [--scope read|ingest|write] [--expires 7d|30d|60d|90d|never]
  folio key list --project ID
  folio key revoke --project ID KEY
  folio invite create --project ID --email E
  folio analytics import --project ID [--format F] [--source NAME] [--follow] FILE...
  folio analytics generate --project ID --views N
  folio backup --to FILE      a consistent copy of the database, while Folio runs
  folio queue [archived | retry TASK_ID]

Every command takes --help. Configuration comes from FOLIO_* environment
variables; see the README.
`

// env is what a command runs with, so tests can run commands in-process.
type env struct {
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
	getenv func(string) string
}

// exitError carries a process exit status; its message, if any, is printed.
type exitError struct {
	code int
	msg  string
}

func (e *exitError) Error() string { return e.msg }

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	e := env{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr, getenv: os.Getenv}
	// go-redis has one process-wide logger; the entry point is the one place to set it.
	redis.SetLogger(redisLogger{slog.New(slog.NewTextHandler(os.Stderr, nil))})
	os.Exit(run(ctx, os.Args[1:], e))
}

// run executes one command line and returns the process exit status.
func run(ctx context.Context, args []string, e env) int {
	err := dispatch(ctx, args, e)
	var ee *exitError
	var ce *configError
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		return 0
	case errors.As(err, &ce):
		fmt.Fprintf(e.stderr, "folio: %v\n", err)
		return 2
	case errors.As(err, &ee):
		if ee.msg != "" {
			fmt.Fprintf(e.stderr, "folio: %s\n", ee.msg)
		}
		return ee.code
	default:
		fmt.Fprintf(e.stderr, "folio: %v\n", err)
		return 1
	}
}

// commands maps a command line's leading words to what runs it.
var commands = map[string]func(ctx context.Context, args []string, e env) error{
	"serve":              cmdServe,
	"worker":             cmdWorker,
	"migrate":            cmdMigrate,
	"user create":        cmdUserCreate,
	"project create":     cmdProjectCreate,
	"project update":     cmdProjectUpdate,
	"key create":         cmdKeyCreate,
	"key list":           cmdKeyList,
	"key revoke":         cmdKeyRevoke,
	"invite create":      cmdInviteCreate,
	"analytics import":   cmdAnalyticsImport,
	"analytics generate": cmdAnalyticsGenerate,
	"backup":             cmdBackup,
	"queue":              cmdQueue,
}

func dispatch(ctx context.Context, args []string, e env) error {
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" || args[0] == "-help" {
		fmt.Fprint(e.stdout, usage)
		if len(args) == 0 {
			return &exitError{code: 2}
		}
		return nil
	}
	if len(args) >= 2 {
		if cmd, ok := commands[args[0]+" "+args[1]]; ok {
			return cmd(ctx, args[2:], e)
		}
	}
	if cmd, ok := commands[args[0]]; ok {
		return cmd(ctx, args[1:], e)
	}
	fmt.Fprint(e.stderr, usage)
	return &exitError{code: 2, msg: fmt.Sprintf("unknown command %q", joinArgs(args, 2))}
}

func joinArgs(args []string, n int) string {
	if len(args) < n {
		n = len(args)
	}
	out := ""
	for i, a := range args[:n] {
		if i > 0 {
			out += " "
		}
		out += a
	}
	return out
}

// newFlags returns a flag set for one command that prints its own usage.
func newFlags(name, synopsis string, e env) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	fs.Usage = func() {
		fmt.Fprintf(e.stderr, "Usage: folio %s\n", synopsis)
		fs.PrintDefaults()
	}
	return fs
}

// parseFlags parses flags wherever they stand among positional arguments,
// so "project update ID --name N" and "key revoke --project P KEY" both
// work, and returns the positional ones. A usage error exits 2.
func parseFlags(fs *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, err
			}
			return nil, &exitError{code: 2}
		}
		if fs.NArg() == 0 {
			return positional, nil
		}
		positional = append(positional, fs.Arg(0))
		args = fs.Args()[1:]
	}
}

// usageError reports a missing or wrong argument and exits 2.
func usageError(fs *flag.FlagSet, format string, args ...any) error {
	fs.Usage()
	return &exitError{code: 2, msg: fmt.Sprintf(format, args...)}
}
