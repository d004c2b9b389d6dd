package analytics_test

import (
	"context"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/folio-docs/folio/analytics"
	"github.com/folio-docs/folio/components"
	"github.com/folio-docs/folio/handlers/dashboard"
	"github.com/folio-docs/folio/internal/benchdata"
)

// BenchmarkScale measures, over the cached dataset benchdata.Size selects
// (10M views by default, FOLIO_BENCH_VIEWS=100000000 for 100M), the issue's
// targets: the index load and its resident memory, the visitors export for
// a day and a year, the agents export for a day and a year and one
// agent's pages for the year, the referrers export and the page's channels
// panel for a day and a year, and the analytics page's server work for 12
// months (counting, its AI agents panel included, and rendering). The load is serve's start after generate,
// which wrote the index snapshot; FOLIO_BENCH_REBUILD=1 deletes the
// snapshot first, to time the rebuild from every view that a lost or
// refused snapshot costs.
func BenchmarkScale(b *testing.B) {
	cfg := benchdata.Size(b)
	d, project := benchdata.Open(b, cfg)
	cls, err := analytics.NewClassifier()
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	s := analytics.NewService(d, cls)
	snapshots, _ := filepath.Glob(d.Path() + ".analytics-*.idx")
	if os.Getenv("FOLIO_BENCH_REBUILD") == "1" {
		for _, f := range snapshots {
			if err := os.Remove(f); err != nil {
				b.Fatal(err)
			}
		}
		snapshots = nil
	}
	b.Logf("index snapshots beside the database before the load: %v", snapshots)
	t0 := time.Now()
	stop := sampleMemory(b, t0)
	loads, err := s.Preload(ctx)
	if err != nil {
		b.Fatal(err)
	}
	load := time.Since(t0)
	stop()
	for _, l := range loads {
		b.Logf("index load: %d views read from the database in %s; snapshot not used: %v", l.Read, l.Took.Round(time.Millisecond), l.Snapshot)
	}
	runtime.GC()
	b.Logf("%d views: index loaded in %s; resident memory %s MB after the load (peak %s MB); load average %s",
		cfg.Views, load.Round(time.Millisecond), memoryMB("VmRSS:"), memoryMB("VmHWM:"), loadAverage())

	end := benchdata.Start.AddDate(1, 0, 0)
	day := benchdata.Start.AddDate(0, 5, 14)
	for _, r := range []struct {
		name     string
		from, to time.Time
	}{{"export-day", day, day.AddDate(0, 0, 1)}, {"export-year", benchdata.Start, end}} {
		b.Run(r.name, func(b *testing.B) {
			q := analytics.Query{From: &r.from, To: &r.to, Limit: 50}
			p50(b, func() {
				if _, err := s.Visitors(ctx, project, q); err != nil {
					b.Fatal(err)
				}
			})
		})
		b.Run("agents-"+strings.TrimPrefix(r.name, "export-"), func(b *testing.B) {
			q := analytics.Query{From: &r.from, To: &r.to, Limit: 50}
			p50(b, func() {
				if a, err := s.Agents(ctx, project, q, ""); err != nil || len(a.Agents) == 0 {
					b.Fatal(a, err)
				}
			})
		})
		// Where people come from: the referrers export and the page's
		// channels panel.
		b.Run("referrers-"+strings.TrimPrefix(r.name, "export-"), func(b *testing.B) {
			q := analytics.Query{From: &r.from, To: &r.to, Limit: 50}
			p50(b, func() {
				if a, err := s.Referrers(ctx, project, q, ""); err != nil || len(a.Referrers) == 0 {
					b.Fatal(a, err)
				}
			})
		})
		b.Run("channels-"+strings.TrimPrefix(r.name, "export-"), func(b *testing.B) {
			q := analytics.Query{From: &r.from, To: &r.to}
			p50(b, func() {
				if c, err := s.Channels(ctx, project, q); err != nil || len(c.Assistants) == 0 {
					b.Fatal(c, err)
				}
			})
		})
	}
	// One agent's pages over the year: the page's table narrowed to it.
	b.Run("agent-pages-year", func(b *testing.B) {
		q := analytics.Query{From: &benchdata.Start, To: &end, Limit: 25}
		p50(b, func() {
			if p, err := s.AgentPages(ctx, project, q, "ChatGPT-User", analytics.AI); err != nil || len(p.Pages) == 0 {
				b.Fatal(p, err)
			}
		})
	})
	b.Run("page-12-months", func(b *testing.B) {
		// The page's 12-month preset on the dataset's last day, as the
		// handler asks for it: weeks, with the previous year's totals.
		now := end.Add(-time.Hour)
		rng, problems, err := analytics.ParsePageRange(url.Values{"from": {end.AddDate(-1, 0, 0).Format(time.DateOnly)}}.Get, now, nil)
		if err != nil || problems != nil {
			b.Fatal(err, problems)
		}
		q := rng.Query
		q.Limit = 25
		p50(b, func() {
			rep, err := s.Report(ctx, project, q, rng.Unit, true)
			if err != nil {
				b.Fatal(err)
			}
			all := rng.Query
			all.Limit = analytics.MaxLimit
			agents, err := s.Agents(ctx, project, all, "")
			if err != nil {
				b.Fatal(err)
			}
			v := dashboard.ShowReport(components.AnalyticsView{ProjectID: project, Limit: 25,
				Range: dashboard.AnalyticsRange(url.Values{}.Get, &rng, now)}, rep)
			v = dashboard.ShowAgents(v, agents, "", analytics.Human)
			if err := components.AnalyticsPage(components.Shell{}, v).Render(ctx, io.Discard); err != nil {
				b.Fatal(err)
			}
		})
	})
	b.Logf("resident memory %s MB at the end (peak %s MB)", memoryMB("VmRSS:"), memoryMB("VmHWM:"))
}

// p50 runs fn in the benchmark's loop and reports its median time, and
// the process's CPU time per run, steadier than wall time on a shared machine.
func p50(b *testing.B, fn func()) {
	var times []time.Duration
	c0 := processCPU()
	for b.Loop() {
		t := time.Now()
		fn()
		times = append(times, time.Since(t))
	}
	cpu := processCPU() - c0
	slices.Sort(times)
	b.ReportMetric(float64(times[len(times)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(cpu.Microseconds())/1000/float64(len(times)), "cpu-ms/op")
}

// processCPU is the user and system CPU time the process has used.
func processCPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// sampleMemory reads the process's resident memory every 20 ms until the
// function it returns is called, which logs the highest reading: anonymous
// (the heap) and file-backed (a mapped snapshot) pages apart, and when.
func sampleMemory(b *testing.B, t0 time.Time) func() {
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		var peak, anon, file int
		var at time.Duration
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-done:
				b.Logf("resident memory during the load at most %d MB (%d anonymous, %d file-backed), %s into it", peak, anon, file, at.Round(10*time.Millisecond))
				return
			case <-tick.C:
			}
			a, f := statusMB("RssAnon:"), statusMB("RssFile:")
			if a+f > peak {
				peak, anon, file, at = a+f, a, f, time.Since(t0)
			}
		}
	}()
	return func() { close(done); <-finished }
}

func statusMB(field string) int {
	n, _ := strconv.Atoi(memoryMB(field))
	return n
}

// memoryMB is a figure of the process's memory from /proc/self/status, in
// MB: "VmRSS:" (resident now) or "VmHWM:" (resident at the most).
func memoryMB(field string) string {
	raw, _ := os.ReadFile("/proc/self/status")
	for _, l := range strings.Split(string(raw), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == field {
			kb, _ := strconv.Atoi(f[1])
			return strconv.Itoa(kb / 1024)
		}
	}
	return "?"
}

func loadAverage() string {
	raw, _ := os.ReadFile("/proc/loadavg")
	f := strings.Fields(string(raw))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}
