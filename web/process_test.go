package main

import (
	"net/http"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// childFolio is a folio command running in a child process.
type childFolio struct {
	cmd *exec.Cmd
	out *lockedBuffer // stdout and stderr
}

// startFolio runs "folio args..." in a child process with te as its
// environment; the test's end kills it.
func startFolio(t *testing.T, te testEnv, args ...string) *childFolio {
	t.Helper()
	cmd := folioProcess(t, te, args...)
	p := &childFolio{cmd: cmd, out: &lockedBuffer{}}
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
func (p *childFolio) kill(t *testing.T) {
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
