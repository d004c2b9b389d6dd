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
