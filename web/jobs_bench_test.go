package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gorilla/mux"

	"github.com/folio-docs/folio/agent"
	"github.com/folio-docs/folio/handlers/api"
	"github.com/folio-docs/folio/handlers/httpx"
)

// benchClient keeps enough idle connections for parallel benchmarks.
var benchClient = &http.Client{Transport: &http.Transport{MaxIdleConns: 256, MaxIdleConnsPerHost: 256}}

func hammer(b *testing.B, method, url, key, body string, want int) {
	b.Helper()
	b.SetParallelism(4)
	start, cpu0 := time.Now(), cpuTime(b)
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			var rd io.Reader
			if body != "" {
				rd = strings.NewReader(body)
			}
			req, _ := http.NewRequest(method, url, rd)
			if key != "" {
				req.Header.Set("Authorization", "Bearer "+key)
			}
			resp, err := benchClient.Do(req)
			if err != nil {
				b.Error(err)
				return
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != want {
				b.Errorf("%s %s = %d, want %d", method, url, resp.StatusCode, want)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "req/s")
	// CPU time of the process (client and server both) per request: on a
	// machine shared with other work it moves far less than req/s does.
	b.ReportMetric(float64((cpuTime(b)-cpu0).Microseconds())/float64(b.N), "cpu-µs/req")
}

// cpuTime is the user and system CPU time this process has used.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkHelloWorld is the yardstick: a bare net/http handler, same client.
func BenchmarkHelloWorld(b *testing.B) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "hello, world\n")
	}))
	defer srv.Close()
	hammer(b, "GET", srv.URL, "", "", 200)
}

// BenchmarkGetJob is the polling endpoint through the whole stack: router,
// access log, key check (SQLite), job read (SQLite), JSON.
func BenchmarkGetJob(b *testing.B) {
	s := newTestServer(b)
	var j map[string]any
	s.expect(201, "POST", "/v2/agent/{p}/job", `{"prompt":"x"}`, &j)
	hammer(b, "GET", s.URL+"/v2/agent/"+s.project.ID+"/job/"+j["id"].(string), s.key, "", 200)
}

// BenchmarkGetJobServeMux is BenchmarkGetJob with the same middleware and
// handler behind net/http's ServeMux pattern instead of the gorilla/mux
// router, to measure what route matching costs. Not how Folio is served: it
// exists to size that one candidate (BENCHMARKS.md, agent jobs).
func BenchmarkGetJobServeMux(b *testing.B) {
	s := newTestServer(b)
	var j map[string]any
	s.expect(201, "POST", "/v2/agent/{p}/job", `{"prompt":"x"}`, &j)
	chain := httpx.LimitBody(api.RequireAPIKey(s.app.keys)(http.HandlerFunc(api.NewJobs(s.app.jobs, 0).Get)))
	m := http.NewServeMux()
	m.Handle("GET /v2/agent/{projectId}/job/{id}", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// The handlers read path variables the gorilla way.
		chain.ServeHTTP(w, mux.SetURLVars(r, map[string]string{"projectId": r.PathValue("projectId"), "id": r.PathValue("id")}))
	}))
	srv := httptest.NewServer(httpx.Observe(s.app.log)(m))
	defer srv.Close()
	hammer(b, "GET", srv.URL+"/v2/agent/"+s.project.ID+"/job/"+j["id"].(string), s.key, "", 200)
}

// BenchmarkCreateJob: key check, rate limit (Lua), SQLite insert, enqueue.
func BenchmarkCreateJob(b *testing.B) {
	s := newTestServer(b, withLimit(1<<30))
	hammer(b, "POST", s.URL+"/v2/agent/"+s.project.ID+"/job", s.key, `{"prompt":"Fix the typo"}`, 201)
}

// pickupRunner notes when a worker hands it a run.
type pickupRunner struct{ at chan time.Time }

func (p pickupRunner) Run(ctx context.Context, run agent.Run, record agent.Recorder) (agent.Result, error) {
	p.at <- time.Now()
	return agent.Result{}, nil
}

// BenchmarkPickupLatency: from sending POST /job to the worker calling the
// agent, one job at a time, with the in-process worker of folio serve.
func BenchmarkPickupLatency(b *testing.B) {
	r := pickupRunner{at: make(chan time.Time, 1)}
	s := newTestServer(b, withRunner(r), withLimit(1<<30))
	url := s.URL + "/v2/agent/" + s.project.ID + "/job"
	var lat []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		req, _ := http.NewRequest("POST", url, strings.NewReader(fmt.Sprintf(`{"prompt":"p%d"}`, i)))
		req.Header.Set("Authorization", "Bearer "+s.key)
		sent := time.Now()
		resp, err := benchClient.Do(req)
		if err != nil || resp.StatusCode != 201 {
			b.Fatalf("create: %v %v", resp, err)
		}
		resp.Body.Close()
		select {
		case at := <-r.at:
			lat = append(lat, at.Sub(sent))
		case <-time.After(5 * time.Second):
			b.Fatal("the worker did not pick the job up")
		}
	}
	b.StopTimer()
	slices.Sort(lat)
	pct := func(p float64) float64 { return float64(lat[int(float64(len(lat)-1)*p)].Microseconds()) / 1000 }
	b.ReportMetric(pct(0.50), "p50-ms")
	b.ReportMetric(pct(0.95), "p95-ms")
	b.ReportMetric(pct(0.99), "p99-ms")
}
