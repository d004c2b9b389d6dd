package main

import (
	"context"
	"log/slog"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/folio-docs/folio/jobs"
	"github.com/folio-docs/folio/tasks"
)

// pickupLog keeps the since_enqueue of every "run picked up" line a worker
// logs: pickup latency as an operator measures it, from the logs.
type pickupLog struct {
	mu    sync.Mutex
	times []time.Duration
	seen  chan struct{}
}

func (p *pickupLog) Enabled(context.Context, slog.Level) bool { return true }
func (p *pickupLog) WithAttrs([]slog.Attr) slog.Handler       { return p }
func (p *pickupLog) WithGroup(string) slog.Handler            { return p }
func (p *pickupLog) Handle(_ context.Context, r slog.Record) error {
	if r.Message != "run picked up" {
		return nil
	}
	r.Attrs(func(a slog.Attr) bool {
		if a.Key == "since_enqueue" {
			p.mu.Lock()
			p.times = append(p.times, a.Value.Duration())
			p.mu.Unlock()
			p.seen <- struct{}{}
		}
		return true
	})
	return nil
}

// BenchmarkPickupRemoteVsSameHost is BenchmarkPickupLatency (from sending
// POST /job to the worker calling the agent, one job at a time) through a
// jobs.Worker over the SQLite store in its process (same-host) and one over
// serve's internal API on a real socket (remote: claim, project and history
// are three requests). It also reports since_enqueue as the worker logs it
// (enqueue to claim): pickup latency as an operator reads it.
func BenchmarkPickupRemoteVsSameHost(b *testing.B) {
	const token = "a-benchmark-worker-token-of-40-characters"
	for _, mode := range []string{"same-host", "remote"} {
		b.Run(mode, func(b *testing.B) {
			s := newTestServer(b, withLimit(1_000_000))
			s.app.cfg.WorkerToken = token
			s.Config.Handler = s.app.routes()
			var store jobs.Store = s.app.jobs.LocalStore()
			if mode == "remote" {
				store = jobs.NewRemoteStore(s.URL, token, nil)
			}
			log := &pickupLog{seen: make(chan struct{}, 1)}
			r := pickupRunner{at: make(chan time.Time, 1)}
			w := jobs.NewWorker(store, r, slog.New(log), jobs.Config{})
			srv := tasks.NewWorker(s.app.rdb, slog.New(slog.DiscardHandler), 4, tasks.QueueAgent)
			if err := srv.Start(tasks.NewServeMux(w, nil)); err != nil {
				b.Fatal(err)
			}
			b.Cleanup(srv.Shutdown)
			var lat []time.Duration
			b.ResetTimer()
			for range b.N {
				var j jobJSON
				sent := time.Now()
				s.expect(201, "POST", "/v2/agent/{p}/job", `{"prompt":"pick me up"}`, &j)
				select {
				case at := <-r.at:
					lat = append(lat, at.Sub(sent))
				case <-time.After(10 * time.Second):
					b.Fatal("no pickup within 10s")
				}
				<-log.seen
				for deadline := time.Now().Add(10 * time.Second); ; {
					var got jobJSON
					s.expect(200, "GET", "/v2/agent/{p}/job/"+j.ID, "", &got)
					if got.Status != "active" {
						break
					}
					if time.Now().After(deadline) {
						b.Fatal("the job did not finish")
					}
					time.Sleep(time.Millisecond)
				}
			}
			b.StopTimer()
			log.mu.Lock()
			times := slices.Clone(log.times)
			log.mu.Unlock()
			at := func(ds []time.Duration, q float64) float64 {
				slices.Sort(ds)
				return float64(ds[int(float64(len(ds)-1)*q)].Microseconds()) / 1000
			}
			b.ReportMetric(at(lat, 0.50), "p50-ms")
			b.ReportMetric(at(lat, 0.95), "p95-ms")
			b.ReportMetric(at(times, 0.50), "logged-p50-ms")
			b.ReportMetric(at(times, 0.95), "logged-p95-ms")
		})
	}
}
