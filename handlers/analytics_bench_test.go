package handlers_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/folio-docs/folio/analytics"
)

// BenchmarkEventsAPI posts generated traffic (100k visitors, 5k paths) to
// POST /v1/analytics/{id}/events in batches of 1,000 from two clients over
// real HTTP and reports page views stored a second. Every iteration posts
// 200 fresh batches from one continuing generator, so later iterations mix
// returning visitors with new ones as real traffic does, never a replay.
func BenchmarkEventsAPI(b *testing.B) {
	s := newAnalyticsServer(b, "")
	const batches = 200
	g := analytics.NewGenerator(analytics.GenConfig{Views: 1 << 30, Paths: 5000, Visitors: 100_000,
		From: time.Now().AddDate(0, -1, 0), To: time.Now(), Seed: 7})
	bodies := make([][]byte, batches)
	generate := func() {
		for i := range bodies {
			raw := make([]analytics.RawEvent, 0, analytics.MaxBatch)
			for range analytics.MaxBatch {
				e, _ := g.Next()
				raw = append(raw, e.Raw())
			}
			bodies[i], _ = json.Marshal(map[string]any{"events": raw})
		}
	}
	url := s.url + "/v1/analytics/" + s.project + "/events"
	var stored atomic.Int64
	// CPU time a view (server and clients, this process) is reported too:
	// the machine is shared, and CPU per view is steadier than wall time.
	var posting, cpu time.Duration
	for b.Loop() {
		b.StopTimer()
		generate()
		b.StartTimer()
		t0, c0 := time.Now(), processCPU()
		var next atomic.Int64
		var wg sync.WaitGroup
		for range 2 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := next.Add(1) - 1; i < batches; i = next.Add(1) - 1 {
					req, _ := http.NewRequest("POST", url, bytes.NewReader(bodies[i]))
					req.Header.Set("Authorization", "Bearer "+s.key)
					req.Header.Set("Content-Type", "application/json")
					res, err := http.DefaultClient.Do(req)
					if err != nil {
						b.Error(err)
						return
					}
					var out struct{ Accepted int64 }
					json.NewDecoder(res.Body).Decode(&out)
					res.Body.Close()
					if res.StatusCode != http.StatusOK {
						b.Errorf("status %d", res.StatusCode)
						return
					}
					stored.Add(out.Accepted)
				}
			}()
		}
		wg.Wait()
		posting += time.Since(t0)
		cpu += processCPU() - c0
	}
	b.ReportMetric(float64(stored.Load())/posting.Seconds(), "views/s")
	b.ReportMetric(float64(cpu.Microseconds())/float64(stored.Load()), "cpu-µs/view")
}

// processCPU is the user and system CPU time this process has used.
func processCPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
