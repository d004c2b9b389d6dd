package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestServeHealthAndReadiness(t *testing.T) {
	t.Parallel()
	te := newTestEnv(t)
	base, stop := startServe(t, te)

	for _, path := range []string{"/healthz", "/readyz"} {
		res, err := http.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		var body map[string]any
		json.NewDecoder(res.Body).Decode(&body)
		res.Body.Close()
		if res.StatusCode != 200 || body["status"] != "ok" || res.Header.Get("X-Request-Id") == "" {
			t.Fatalf("GET %s: %d %v", path, res.StatusCode, body)
		}
	}
	if code := stop(); code != 0 {
		t.Fatalf("serve exited %d after SIGTERM-equivalent, want 0", code)
	}
}

func TestReadyzWithoutRedisIs503(t *testing.T) {
	t.Parallel()
	te := newTestEnv(t)
	te["FOLIO_WORKER"] = "false" // a worker needs Redis to start
	te["FOLIO_REDIS_URL"] = "redis://" + freeAddr(t) + "/0"
	base, _ := startServe(t, te)
	res, err := http.Get(base + "/readyz")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var body struct {
		Code   string            `json:"code"`
		Checks map[string]string `json:"checks"`
	}
	json.NewDecoder(res.Body).Decode(&body)
	if res.StatusCode != 503 || body.Code != "unavailable" || body.Checks["redis"] != "unavailable" || body.Checks["database"] != "ok" {
		t.Fatalf("readyz without Redis: %d %+v", res.StatusCode, body)
	}
}

func TestServeWithWorkerNeedsRedis(t *testing.T) {
	t.Parallel()
	te := newTestEnv(t)
	te["FOLIO_ADDR"] = freeAddr(t)
	te["FOLIO_REDIS_URL"] = "redis://" + freeAddr(t) + "/0"
	code, _, errs := te.folio(t, "", "serve")
	if code != 1 || !strings.Contains(errs, "FOLIO_REDIS_URL") || strings.Count(strings.TrimSpace(errs), "\n") > 0 {
		t.Fatalf("exit %d, stderr %q: want 1 and one line naming FOLIO_REDIS_URL", code, errs)
	}
}

func TestGracefulShutdownFinishesInFlightRequests(t *testing.T) {
	t.Parallel()
	// A Redis that never answers a PING makes /readyz a slow request: it
	// waits out its two-second check. Only that check sends PING in serve
	// (the queue's worker runs other commands, refused here), so a PING
	// received is the request itself in its handler, wherever the other
	// connections come from.
	pinged := make(chan struct{}, 16)
	redisAddr := pingHole(t, pinged)
	te := newTestEnv(t)
	te["FOLIO_WORKER"] = "false"
	te["FOLIO_REDIS_URL"] = "redis://" + redisAddr + "/0"
	base, stop := startServe(t, te)

	answered := make(chan int, 1)
	wrote := make(chan struct{})
	go func() {
		trace := &httptrace.ClientTrace{WroteRequest: func(httptrace.WroteRequestInfo) { close(wrote) }}
		req, _ := http.NewRequestWithContext(httptrace.WithClientTrace(context.Background(), trace), http.MethodGet, base+"/readyz", nil)
		res, err := (&http.Client{Transport: &http.Transport{}}).Do(req) // on a connection of its own
		if err != nil {
			answered <- -1
			return
		}
		res.Body.Close()
		answered <- res.StatusCode
	}()
	select {
	case <-wrote:
	case <-time.After(10 * time.Second):
		t.Fatal("/readyz was not sent within 10s")
	}
	select { // the request is in flight once its check reaches Redis
	case <-pinged:
	case <-time.After(10 * time.Second):
		t.Fatal("/readyz did not reach Redis within 10s")
	}
	start := time.Now()
	if code := stop(); code != 0 {
		t.Fatalf("serve exited %d", code)
	}
	if got := <-answered; got != http.StatusServiceUnavailable {
		t.Fatalf("in-flight request got %d, want its 503 answer", got)
	}
	if waited := time.Since(start); waited < time.Second {
		t.Fatalf("serve stopped after %v, before the in-flight request finished", waited)
	}
	if _, err := http.Get(base + "/healthz"); err == nil {
		t.Fatal("serve still answers after shutdown")
	}
}

// pingHole listens as a Redis that refuses every command with an error but
// never answers a PING, and says on pinged (when it has room) each time
// one comes; it returns its address.
func pingHole(t *testing.T, pinged chan<- struct{}) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	t.Cleanup(func() { close(done); ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() { <-done; c.Close() }()
			go func() {
				r := bufio.NewReader(c)
				for {
					cmd, err := readRESPCommand(r)
					if err != nil {
						return
					}
					if strings.EqualFold(cmd[0], "ping") {
						select {
						case pinged <- struct{}{}:
						default:
						}
						continue
					}
					if _, err := fmt.Fprintf(c, "-ERR unknown command '%s'\r\n", cmd[0]); err != nil {
						return
					}
				}
			}()
		}
	}()
	return ln.Addr().String()
}

// readRESPCommand reads one command as a Redis client sends it: an array
// of bulk strings ("*1\r\n$4\r\nPING\r\n").
func readRESPCommand(r *bufio.Reader) ([]string, error) {
	n, err := readRESPLength(r, '*')
	if err != nil || n < 1 {
		return nil, fmt.Errorf("not a command: %d, %v", n, err)
	}
	cmd := make([]string, n)
	for i := range cmd {
		size, err := readRESPLength(r, '$')
		if err != nil || size < 0 {
			return nil, fmt.Errorf("not a bulk string: %d, %v", size, err)
		}
		b := make([]byte, size+2)
		if _, err := io.ReadFull(r, b); err != nil {
			return nil, err
		}
		cmd[i] = string(b[:size])
	}
	return cmd, nil
}

// readRESPLength reads a line "<kind><n>\r\n" and returns n.
func readRESPLength(r *bufio.Reader, kind byte) (int, error) {
	line, err := r.ReadString('\n')
	if err != nil {
		return 0, err
	}
	if line[0] != kind {
		return 0, fmt.Errorf("want %c, got %q", kind, line)
	}
	return strconv.Atoi(strings.TrimRight(line[1:], "\r\n"))
}
