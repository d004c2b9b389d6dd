package main

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptrace"
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
	// A Redis that accepts connections and never answers makes /readyz a
	// slow request: it waits out its two-second check.
	blackhole, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer blackhole.Close()
	dialed := make(chan struct{}, 16)
	go func() {
		for {
			c, err := blackhole.Accept()
			if err != nil {
				return
			}
			defer c.Close()
			select {
			case dialed <- struct{}{}:
			default:
			}
		}
	}()
	te := newTestEnv(t)
	te["FOLIO_WORKER"] = "false"
	te["FOLIO_REDIS_URL"] = "redis://" + blackhole.Addr().String() + "/0"
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
	for len(dialed) > 0 { // connections made before the request are not its
		<-dialed
	}
	select { // the request is in flight once its check reaches Redis
	case <-dialed:
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
