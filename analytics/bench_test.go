package analytics

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"testing"
	"time"
)

// BenchmarkVisitorsExport measures the visitors export over generated
// traffic (a year of views, views/10 visitors, 50k paths) for a day, a month
// and a year. The dataset has 1M views; FOLIO_BENCH_VIEWS=10000000 runs the
// 10M one (several minutes to build), which the normal test command never does.
func BenchmarkVisitorsExport(b *testing.B) {
	views := 1_000_000
	if v := os.Getenv("FOLIO_BENCH_VIEWS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			b.Fatalf("FOLIO_BENCH_VIEWS: %v", err)
		}
		views = n
	}
	s, d, project := newTestService(b)
	ctx := context.Background()
	start := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	t0 := time.Now()
	n, err := s.Generate(ctx, project, GenConfig{Views: views, Paths: 50_000, Visitors: views / 10, From: start, To: start.AddDate(1, 0, 0), Seed: 42})
	if err != nil || n != views {
		b.Fatalf("generated %d of %d: %v", n, views, err)
	}
	ingest := time.Since(t0)
	// A fresh service loads the index as serve does at start-up; the heap
	// it adds is the index's memory.
	s = NewService(d, s.cls)
	h0 := heapInUse()
	t0 = time.Now()
	if _, err := s.Preload(ctx); err != nil {
		b.Fatal(err)
	}
	load := time.Since(t0)
	mem := heapInUse() - h0
	size := fileSize(d.Path()) + fileSize(d.Path()+"-wal")
	b.Logf("%d views stored in %s (%.0f views/s); index loaded in %s, %.0f MB of heap (%.1f bytes a view); database %.1f MB = %.1f MB per million views",
		views, ingest.Round(time.Millisecond), float64(views)/ingest.Seconds(), load.Round(time.Millisecond),
		float64(mem)/1e6, float64(mem)/float64(views), float64(size)/1e6, float64(size)/1e6/(float64(views)/1e6))

	for _, r := range []struct {
		name     string
		from, to time.Time
	}{
		{"day", start.AddDate(0, 5, 14), start.AddDate(0, 5, 15)},
		{"month", start.AddDate(0, 5, 0), start.AddDate(0, 6, 0)},
		{"year", start, start.AddDate(1, 0, 0)},
	} {
		b.Run(fmt.Sprintf("%dviews/%s", views, r.name), func(b *testing.B) {
			q := Query{From: &r.from, To: &r.to, Limit: 50}
			var times []time.Duration
			var got Visitors
			for b.Loop() {
				t := time.Now()
				got, err = s.Visitors(ctx, project, q)
				if err != nil {
					b.Fatal(err)
				}
				times = append(times, time.Since(t))
			}
			slices.Sort(times)
			b.ReportMetric(float64(times[len(times)/2].Microseconds())/1000, "p50-ms")
			b.ReportMetric(float64(got.Totals.Total), "visitors")
		})
	}
}

func fileSize(path string) int64 {
	info, err := os.Stat(filepath.Clean(path))
	if err != nil {
		return 0
	}
	return info.Size()
}

// BenchmarkIndexLoad measures loading the index of 1M generated views (as
// serve does at start-up) and the heap it holds.
func BenchmarkIndexLoad(b *testing.B) {
	s, d, project := newTestService(b)
	ctx := context.Background()
	start := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	const views = 1_000_000
	if _, err := s.Generate(ctx, project, GenConfig{Views: views, Paths: 50_000, Visitors: views / 10, From: start, To: start.AddDate(1, 0, 0), Seed: 42}); err != nil {
		b.Fatal(err)
	}
	var mem uint64
	for b.Loop() {
		b.StopTimer()
		fresh := NewService(d, s.cls)
		h0 := heapInUse()
		b.StartTimer()
		if _, err := fresh.Preload(ctx); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		mem = heapInUse() - h0
		runtime.KeepAlive(fresh)
		b.StartTimer()
	}
	b.ReportMetric(float64(mem)/views, "heap-B/view")
}

// heapInUse is the live heap after a collection.
func heapInUse() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}
