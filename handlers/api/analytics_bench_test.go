package api_test

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha1"
	"encoding/hex"
	"encoding/json"
	"fmt"
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
		n, _, took, used := postConcurrently(b, batches, func(i int) *http.Request {
			req, _ := http.NewRequest("POST", url, bytes.NewReader(bodies[i]))
			req.Header.Set("Authorization", "Bearer "+s.key)
			req.Header.Set("Content-Type", "application/json")
			return req
		})
		stored.Add(n)
		posting += took
		cpu += used
	}
	b.ReportMetric(float64(stored.Load())/posting.Seconds(), "views/s")
	b.ReportMetric(float64(cpu.Microseconds())/float64(stored.Load()), "cpu-µs/view")
}

// postConcurrently sends req(0) to req(n-1) from two clients, each a batch
// that must be accepted (200), and returns the views the answers accepted
// and say were stored before, the time it took and this process's CPU time
// (server and clients: the machine is shared, and CPU a view is steadier
// than wall time).
func postConcurrently(b *testing.B, n int, req func(i int) *http.Request) (accepted, duplicates int64, took, cpu time.Duration) {
	t0, c0 := time.Now(), processCPU()
	var next, acc, dup atomic.Int64
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := next.Add(1) - 1; i < int64(n); i = next.Add(1) - 1 {
				res, err := http.DefaultClient.Do(req(int(i)))
				if err != nil {
					b.Error(err)
					return
				}
				var out struct{ Accepted, Duplicates int64 }
				json.NewDecoder(res.Body).Decode(&out)
				res.Body.Close()
				if res.StatusCode != http.StatusOK {
					b.Errorf("status %d", res.StatusCode)
					return
				}
				acc.Add(out.Accepted)
				dup.Add(out.Duplicates)
			}
		}()
	}
	wg.Wait()
	return acc.Load(), dup.Load(), time.Since(t0), processCPU() - c0
}

// processCPU is the user and system CPU time this process has used.
func processCPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkEventsAPIVisitors posts batches of 1,000 events over real HTTP
// from two clients, like BenchmarkEventsAPI, in the two cases ingest must
// hold (issue #10): every visitor new (each event another IP, as on the
// first requests of a UTC day, since identity rotates daily), and every
// visitor returning (a population of 20,000 stored before timing).
func BenchmarkEventsAPIVisitors(b *testing.B) {
	uas := []string{
		"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36",
		"Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1",
		"Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0",
		"Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; ChatGPT-User/1.0; +https://openai.com/bot)",
		"Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
	}
	day := time.Now().UTC().Add(-24 * time.Hour).Truncate(24 * time.Hour)
	ip := func(n int) string { return fmt.Sprintf("10.%d.%d.%d", n>>16&255, n>>8&255, n&255) }
	batch := func(first int, visitor func(i int) int) []byte {
		raw := make([]analytics.RawEvent, analytics.MaxBatch)
		for i := range raw {
			n := first + i
			v := visitor(n)
			raw[i] = analytics.RawEvent{Path: fmt.Sprintf("/docs/page-%d", n*7919%5000), Timestamp: day.Add(time.Duration(n%86_400_000) * time.Millisecond).Format(time.RFC3339Nano),
				UserAgent: uas[v%len(uas)], IP: ip(v)}
		}
		body, _ := json.Marshal(map[string]any{"events": raw})
		return body
	}
	const batches = 100
	for _, tc := range []struct {
		name    string
		visitor func(i int) int
		warm    int // events stored before timing
	}{
		{"new", func(i int) int { return i }, 0},
		{"returning", func(i int) int { return i * 7 % 20_000 }, 20_000},
	} {
		b.Run(tc.name, func(b *testing.B) {
			s := newAnalyticsServer(b, "")
			url := s.url + "/v1/analytics/" + s.project + "/events"
			post := func(body []byte) int64 {
				req, _ := http.NewRequest("POST", url, bytes.NewReader(body))
				req.Header.Set("Authorization", "Bearer "+s.key)
				req.Header.Set("Content-Type", "application/json")
				res, err := http.DefaultClient.Do(req)
				if err != nil {
					b.Error(err)
					return 0
				}
				defer res.Body.Close()
				var out struct{ Accepted int64 }
				json.NewDecoder(res.Body).Decode(&out)
				if res.StatusCode != http.StatusOK {
					b.Errorf("status %d", res.StatusCode)
				}
				return out.Accepted
			}
			for i := 0; i < tc.warm; i += analytics.MaxBatch {
				post(batch(i, func(n int) int { return n }))
			}
			next := tc.warm + 1_000_000
			var stored atomic.Int64
			var posting, cpu time.Duration
			for b.Loop() {
				b.StopTimer()
				bodies := make([][]byte, batches)
				for i := range bodies {
					bodies[i] = batch(next, tc.visitor)
					next += analytics.MaxBatch
				}
				b.StartTimer()
				t0, c0 := time.Now(), processCPU()
				var at atomic.Int64
				var wg sync.WaitGroup
				for range 2 {
					wg.Add(1)
					go func() {
						defer wg.Done()
						for i := at.Add(1) - 1; i < batches; i = at.Add(1) - 1 {
							stored.Add(post(bodies[i]))
						}
					}()
				}
				wg.Wait()
				posting += time.Since(t0)
				cpu += processCPU() - c0
			}
			b.ReportMetric(float64(stored.Load())/posting.Seconds(), "views/s")
			b.ReportMetric(float64(cpu.Microseconds())/float64(stored.Load()), "cpu-µs/view")
		})
	}
}

// BenchmarkVercelDrain posts generated traffic to POST
// /v1/analytics/{id}/drains/vercel as Vercel delivers it: JSON arrays of
// request entries (static pages, proxy.userAgent an array), each signed
// with the drain secret (x-vercel-signature), from two clients over real
// HTTP, and reports page views stored a second. Vercel's batches are a
// few MB: 1,000 entries are 0.5 MB, 5,000 are 2.6 MB (the drain takes 8 MiB).
func BenchmarkVercelDrain(b *testing.B) {
	for _, size := range []int{1000, 5000} {
		b.Run(fmt.Sprintf("entries=%d", size), func(b *testing.B) {
			s := newAnalyticsServer(b, "")
			const secret = "bench-drain-secret"
			if err := s.db.SetDrainSecret(context.Background(), s.project, secret); err != nil {
				b.Fatal(err)
			}
			batches := 200_000 / size
			g := analytics.NewGenerator(analytics.GenConfig{Views: 1 << 30, Paths: 5000, Visitors: 100_000,
				From: time.Now().AddDate(0, -1, 0), To: time.Now(), Seed: 7})
			bodies, sigs := make([][]byte, batches), make([]string, batches)
			id := 0
			generate := func() {
				for i := range bodies {
					var buf bytes.Buffer
					buf.WriteByte('[')
					for j := range size {
						e, _ := g.Next()
						id++
						if j > 0 {
							buf.WriteString(",\n")
						}
						ua, _ := json.Marshal([]string{e.UserAgent})
						fmt.Fprintf(&buf, `{"id":"%d","deploymentId":"dpl_bench","source":"static","host":"docs-bench.vercel.app","timestamp":%d,"projectId":"prj_bench","level":"info","proxy":{"timestamp":%d,"method":"GET","host":"docs.example.com","path":%q,"userAgent":%s,"referer":"https://www.google.com/","region":"fra1","statusCode":200,"clientIp":%q,"scheme":"https","vercelCache":"HIT"}}`,
							id, e.At.UnixMilli(), e.At.UnixMilli(), e.Path, ua, e.IP)
					}
					buf.WriteByte(']')
					bodies[i] = buf.Bytes()
					m := hmac.New(sha1.New, []byte(secret))
					m.Write(bodies[i])
					sigs[i] = hex.EncodeToString(m.Sum(nil))
				}
			}
			url := s.url + "/v1/analytics/" + s.project + "/drains/vercel"
			var stored atomic.Int64
			var posting, cpu time.Duration
			var sent int64
			for b.Loop() {
				b.StopTimer()
				generate()
				for _, body := range bodies {
					sent += int64(len(body))
				}
				b.StartTimer()
				n, dup, took, used := postConcurrently(b, batches, func(i int) *http.Request {
					req, _ := http.NewRequest("POST", url, bytes.NewReader(bodies[i]))
					req.Header.Set("Authorization", "Bearer "+s.key)
					req.Header.Set("Content-Type", "application/json")
					req.Header.Set("x-vercel-signature", sigs[i])
					return req
				})
				if dup != 0 {
					b.Errorf("%d views stored before: the batches repeat", dup)
				}
				stored.Add(n)
				posting += took
				cpu += used
			}
			b.ReportMetric(float64(stored.Load())/posting.Seconds(), "views/s")
			b.ReportMetric(float64(cpu.Microseconds())/float64(stored.Load()), "cpu-µs/view")
			b.ReportMetric(float64(sent)/float64(stored.Load()), "bytes/view")
		})
	}
}
