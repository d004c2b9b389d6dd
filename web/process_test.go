package main

import (
	"context"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestFolioProcess is no test of its own: it is the folio binary, run by
// startFolio in a child process (FOLIO_TEST_PROCESS_ARGS holds the command
// line), so tests can run serve and workers as separate processes and kill
// them.
func TestFolioProcess(t *testing.T) {
	args := os.Getenv("FOLIO_TEST_PROCESS_ARGS")
	if args == "" {
		t.Skip("only run as a child process by startFolio")
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, strings.Fields(args), env{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr, getenv: os.Getenv}))
}

// folioProcess is a folio command running in a child process.
type folioProcess struct {
	cmd *exec.Cmd
	out *lockedBuffer // stdout and stderr
}

// startFolio runs "folio args..." in a child process with te as its
// environment; the test's end kills it.
func startFolio(t *testing.T, te testEnv, args ...string) *folioProcess {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestFolioProcess$")
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"), "FOLIO_TEST_PROCESS_ARGS=" + strings.Join(args, " ")}
	for k, v := range te {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	p := &folioProcess{cmd: cmd, out: &lockedBuffer{}}
	cmd.Stdout, cmd.Stderr = p.out, p.out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		if t.Failed() {
			t.Logf("folio %s said:\n%s", strings.Join(args, " "), p.out)
		}
	})
	return p
}

// kill ends the process at once, as a crash or the OOM killer would.
func (p *folioProcess) kill(t *testing.T) {
	t.Helper()
	if err := p.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	p.cmd.Wait()
}

// waitHTTP waits until url answers anything.
func waitHTTP(t *testing.T, url string) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		res, err := http.Get(url)
		if err == nil {
			res.Body.Close()
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s did not answer within 15s: %v", url, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
