package main

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// serveMemory is what a serve process holds, read from outside it.
type serveMemory struct {
	rss, heap, stack, goroutines, streams, cpu float64
}

// measureServe reads pid's resident memory from /proc and its Go runtime's
// figures from its /metrics, over a few seconds: the heap is the lowest
// seen (the nearest to what is live, short of forcing a collection), the
// rest the last.
func measureServe(b testing.TB, pid int, metricsURL string) serveMemory {
	b.Helper()
	var m serveMemory
	for i := 0; i < 8; i++ {
		s := scrapeMetrics(b, metricsURL)
		if h := s.value("go_memstats_heap_inuse_bytes"); i == 0 || h < m.heap {
			m.heap = h
		}
		m.stack, m.goroutines, m.streams = s.value("go_memstats_stack_inuse_bytes"), s.value("go_goroutines"), s.value("folio_job_event_streams")
		m.cpu = s.value("process_cpu_seconds_total")
		time.Sleep(500 * time.Millisecond)
	}
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		b.Fatal(err)
	}
	sc := bufio.NewScanner(strings.NewReader(string(status)))
	for sc.Scan() {
		if f := strings.Fields(sc.Text()); len(f) >= 2 && f[0] == "VmRSS:" {
			kb, _ := strconv.ParseFloat(f[1], 64)
			m.rss = kb * 1024
		}
	}
	return m
}

// BenchmarkJobEventStreams opens FOLIO_BENCH_STREAMS (1,000) job event
// streams, spread over ten jobs, against one `folio serve` process of its
// own, and reports what they cost that process per stream once they have
// been open 30 s: resident memory, heap in use, goroutine stacks and
// goroutines, and the CPU their keep-alives take beyond an idle serve's.
// Then a follow-up on each job, and how long its message takes to reach
// all the streams.
// It is a measurement, not a timed loop: run it once,
//
//	go test ./web -run '^$' -bench BenchmarkJobEventStreams -benchtime 1x
func BenchmarkJobEventStreams(b *testing.B) {
	n := 1000
	if v, err := strconv.Atoi(os.Getenv("FOLIO_BENCH_STREAMS")); err == nil && v > 0 {
		n = v
	}
	const jobCount = 10
	const settle = 30 * time.Second
	te := newTestEnv(b)
	te["FOLIO_ADDR"], te["FOLIO_METRICS_ADDR"], te["FOLIO_WORKER"] = freeAddr(b), freeAddr(b), "false"
	project := te.must(b, "", "project", "create", "--name", "docs", "--repo", "acme/docs")
	key := te.must(b, "", "key", "create", "--project", project)
	serve := startFolio(b, te, "serve")
	serve.waitLog(b, "folio serving", 30*time.Second)
	base, metricsURL := "http://"+te["FOLIO_ADDR"], "http://"+te["FOLIO_METRICS_ADDR"]+"/metrics"
	ids := make([]string, jobCount)
	for i := range ids {
		var j struct{ ID string }
		if code := apiCall(b, "POST", base+"/v2/agent/"+project+"/job", key, map[string]string{"prompt": fmt.Sprintf("Job %d", i)}, &j); code != 201 {
			b.Fatalf("create: %d", code)
		}
		ids[i] = j.ID
	}
	pid := serve.cmd.Process.Pid
	idle := measureServe(b, pid, metricsURL)
	time.Sleep(settle / 3)
	before := measureServe(b, pid, metricsURL)
	baseCPU := (before.cpu - idle.cpu) / (settle/3 + 4*time.Second).Seconds() // the sweep, Asynq's heartbeats

	b.ResetTimer()
	start := time.Now()
	streams := make([]*eventStream, n)
	for i := range streams {
		job := ids[i%jobCount]
		streams[i] = openEvents(b, base+"/v2/agent/"+project+"/job/"+job+"/events", key, "")
		streams[i].expectEvents("job:active", "message:user:1:*")
	}
	opened := time.Since(start)
	after := measureServe(b, pid, metricsURL)
	if after.streams != float64(n) {
		b.Fatalf("serve counts %v open streams, want %d", after.streams, n)
	}
	// Held open, doing nothing but keep-alives (each reads its job again),
	// through a few of the collections those reads cause.
	time.Sleep(settle)
	settled := measureServe(b, pid, metricsURL)
	idleCPU := (settled.cpu - after.cpu) / (settle + 4*time.Second).Seconds()

	start = time.Now()
	for _, id := range ids {
		if code := apiCall(b, "POST", base+"/v2/agent/"+project+"/job/"+id+"/message", key, map[string]string{"prompt": "And more."}, nil); code != 200 {
			b.Fatalf("follow-up: %d", code)
		}
	}
	for _, s := range streams {
		s.expectEvents("message:user:2:And more.")
	}
	fanOut := time.Since(start)
	b.StopTimer()

	per := func(x, y float64) float64 { return (x - y) / float64(n) }
	b.ReportMetric(per(settled.rss, before.rss), "RSS-B/stream")
	b.ReportMetric(per(settled.heap, before.heap), "heap-B/stream")
	b.ReportMetric(per(settled.stack, before.stack), "stack-B/stream")
	b.ReportMetric(per(settled.goroutines, before.goroutines), "goroutines/stream")
	b.ReportMetric(opened.Seconds()*1e3/float64(n), "ms-to-open/stream")
	b.ReportMetric(fanOut.Seconds()*1e3, "ms-fan-out")
	b.ReportMetric((idleCPU-baseCPU)*100, "idle-CPU-%")
	load, _ := os.ReadFile("/proc/loadavg")
	mib := func(m serveMemory) string {
		return fmt.Sprintf("RSS %.1f MiB, heap in use %.1f MiB, stacks %.1f MiB, %.0f goroutines", m.rss/(1<<20), m.heap/(1<<20), m.stack/(1<<20), m.goroutines)
	}
	b.Logf("%d streams on %d jobs, serve: before %s (%.1f %% of a core); just opened %s; after %s open %s (%.1f %% of a core meanwhile). "+
		"Opened in %s; a follow-up on each job reached all %d streams in %s. Load average %s",
		n, jobCount, mib(before), baseCPU*100, mib(after), settle, mib(settled), idleCPU*100,
		opened.Round(time.Millisecond), n, fanOut.Round(time.Millisecond), strings.TrimSpace(string(load)))
	for _, s := range streams {
		s.close()
	}
}
