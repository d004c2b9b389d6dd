package main

import (
	"net/http"
	"syscall"
	"testing"
	"time"
)

// kill ends the process at once, as a crash or the OOM killer would.
func (p *runningFolio) kill(t *testing.T) {
	t.Helper()
	if err := p.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-p.exited
}

// waitHTTP waits until url answers anything, failing at once if the
// process exits first.
func (p *runningFolio) waitHTTP(t *testing.T, url string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		res, err := http.Get(url)
		if err == nil {
			res.Body.Close()
			return
		}
		select {
		case <-p.exited:
			t.Fatalf("the process exited (%d) before %s answered:\n%s", p.code, url, p.stderr.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s did not answer within 20s: %v\n%s", url, err, p.stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}
