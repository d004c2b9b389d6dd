package analytics

import (
	"context"
	"runtime"
	"slices"
	"testing"
	"time"
)

// TestRollUpIsEveryPathsDays: each day's rollup, counted by runs of paths
// on several cores into places counted first, is every path's counts of
// that day in path order, as each path counts them alone, and a day
// without views has an empty rollup, not none.
func TestRollUpIsEveryPathsDays(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4)) // several runs of paths even on one core
	s, _, project := newTestService(t)
	start := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	record(t, s, project, GenConfig{Views: 20000, Paths: 400, Visitors: 2000, From: start, To: start.AddDate(0, 0, 12), Seed: 9})
	if _, err := s.Visitors(context.Background(), project, Query{}); err != nil { // loads the index
		t.Fatal(err)
	}
	st, err := s.site(context.Background(), project, false)
	if err != nil || st == nil {
		t.Fatal(st, err)
	}
	x := st.idx
	x.mu.Lock()
	defer x.mu.Unlock()
	x.sealAll()
	want := map[int64][]pathDay{}
	for pi, p := range x.paths {
		p.eachDay(func(day int64, c VisitorCounts) {
			want[day] = append(want[day], pathDay{uint32(pi), uint32(c.Human), uint32(c.AI), uint32(c.Total)}) // #nosec G115 -- small test counts
		})
	}
	if len(x.paths) < 4*64 || len(want) < 10 {
		t.Fatalf("%d paths over %d days: too few for several runs", len(x.paths), len(want))
	}
	// A day with views of crawlers alone has no path's visitor counts.
	empty := x.endDay
	x.days[empty] = &dayTraffic{}
	x.endDay++
	x.rollUp()
	for day, dv := range x.days {
		if dv.rollup == nil {
			t.Fatalf("day %d has no rollup", day)
		}
		if !slices.Equal(dv.rollup, want[day]) && !(len(dv.rollup) == 0 && len(want[day]) == 0) {
			t.Fatalf("day %d: rollup of %d paths, want %d (or counts differ)", day, len(dv.rollup), len(want[day]))
		}
	}
	if len(x.days[empty].rollup) != 0 {
		t.Fatal("an empty day has rollup rows")
	}
}

// TestPreloadCountsRollupsOnce: Preload's load counts the rollups after
// the snapshot is read back, or, when it writes none, after the load:
// either way every day has them, as each path counts its days.
func TestPreloadCountsRollupsOnce(t *testing.T) {
	s, d, project := newTestService(t)
	start := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	record(t, s, project, GenConfig{Views: 5000, Paths: 80, Visitors: 600, From: start, To: start.AddDate(0, 0, 9), Seed: 12})
	for _, min := range []int64{1 << 40, 1} { // not written (there is no snapshot yet); written and read back
		fresh := NewService(d, s.cls)
		fresh.snapshotMin = min
		if _, err := fresh.Preload(context.Background()); err != nil {
			t.Fatal(err)
		}
		st, err := fresh.site(context.Background(), project, false)
		if err != nil || st == nil {
			t.Fatal(st, err)
		}
		x := st.idx
		if x.snapshot == "" {
			t.Fatal("no snapshot")
		}
		want := map[int64][]pathDay{}
		for pi, p := range x.paths {
			p.eachDay(func(day int64, c VisitorCounts) {
				want[day] = append(want[day], pathDay{uint32(pi), uint32(c.Human), uint32(c.AI), uint32(c.Total)}) // #nosec G115 -- small test counts
			})
		}
		if len(want) < 9 {
			t.Fatalf("views on %d days", len(want))
		}
		for day, dv := range x.days {
			if dv.rollup == nil || !slices.Equal(dv.rollup, want[day]) {
				t.Fatalf("snapshotMin %d: day %d has rollup %v (nil: %v), want %d paths", min, day, len(dv.rollup), dv.rollup == nil, len(want[day]))
			}
		}
	}
}
