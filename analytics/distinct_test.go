package analytics

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// TestGapCountsMatchBruteForce counts, from the gaps, ranges whose ends
// fall inside days, on day and month boundaries and on instants shared by
// many views, over visitors who read the same pages as people and as
// agents (often at the same instant), and compares every row with a
// brute-force count: once with every path sealed, once with views added
// after the seal (sealed prefix, counted tail), and once with views added
// before sealed ones (nothing sealed).
func TestGapCountsMatchBruteForce(t *testing.T) {
	s, d, project := newTestService(t)
	ctx := context.Background()
	// Instants from 30 Jan to 3 Feb, a few hundred, so views share them.
	start := time.Date(2026, 1, 30, 0, 0, 0, 0, time.UTC)
	var instants []time.Time
	for at := start; at.Before(start.AddDate(0, 0, 5)); at = at.Add(17 * time.Minute) {
		instants = append(instants, at)
	}
	rnd := rand.New(rand.NewPCG(1, 2))
	events := func(n int, from, to int) []Event {
		out := make([]Event, n)
		for i := range out {
			e := Event{
				Path:      fmt.Sprintf("/docs/p%d", rnd.IntN(7)),
				At:        instants[from+rnd.IntN(to-from)],
				UserAgent: genHumans[rnd.IntN(2)],
				IP:        "192.0.2.1",
				VisitorID: fmt.Sprintf("v%d", rnd.IntN(60)),
			}
			switch rnd.IntN(5) {
			case 0:
				e.UserAgent = genAgents[0]
			case 1:
				e.Accept = "text/markdown" // the same visitor, as an agent
			}
			out[i] = e
		}
		return out
	}
	store := func(es []Event) {
		for len(es) > 0 {
			n := min(len(es), MaxBatch)
			if _, err := s.Record(ctx, project, es[:n]); err != nil {
				t.Fatal(err)
			}
			es = es[n:]
		}
	}
	ranges := func() []Query {
		qs := []Query{{}}
		for d := start; d.Before(start.AddDate(0, 0, 5)); d = d.AddDate(0, 0, 1) {
			next := d.AddDate(0, 0, 1) // whole days: from the rollups when current
			qs = append(qs, Query{From: &d, To: &next})
		}
		bounds := []time.Time{
			start, start.AddDate(0, 0, 1), time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC), // a month boundary
			start.Add(36*time.Hour + 5*time.Millisecond), start.Add(50 * time.Hour),
		}
		for range 40 {
			at := instants[rnd.IntN(len(instants))]
			bounds = append(bounds, at, at.Add(time.Millisecond), at.Add(-time.Millisecond))
		}
		for range 25 {
			a, b := bounds[rnd.IntN(len(bounds))], bounds[rnd.IntN(len(bounds))]
			if a.Equal(b) {
				continue
			}
			if b.Before(a) {
				a, b = b, a
			}
			qs = append(qs, Query{From: &a, To: &b}, Query{From: &a}, Query{To: &b})
		}
		return qs
	}
	check := func(name string, x *Service, sealed func(p *pathViews) bool) {
		t.Helper()
		st, err := x.site(ctx, project, false)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := x.Visitors(ctx, project, Query{Limit: 1}); err != nil {
			t.Fatal(err)
		}
		st.idx.mu.RLock()
		for _, p := range st.idx.paths {
			if !sealed(p) {
				t.Fatalf("%s: path %s sealed %v of %d, %d views", name, p.name, p.sealed, len(p.at[Human]), len(p.at[AI]))
			}
		}
		st.idx.mu.RUnlock()
		views := readStored(t, d, project)
		for _, q := range ranges() {
			wantRows, wantTotals, _, _ := views.count(q)
			q.Limit = MaxLimit
			v, err := x.Visitors(ctx, project, q)
			if err != nil {
				t.Fatal(err)
			}
			if v.Totals != wantTotals || !slices.Equal(v.Visitors, wantRows) {
				t.Fatalf("%s: %v..%v: got %+v %+v, brute force %+v %+v", name, q.From, q.To, v.Totals, v.Visitors, wantTotals, wantRows)
			}
		}
	}
	half := len(instants) / 2
	// Stored in time order, so a later refresh appends behind the seal.
	first := events(3000, 0, half)
	slices.SortStableFunc(first, func(a, b Event) int { return a.At.Compare(b.At) })
	store(first)
	fresh := NewService(d, s.cls)
	check("all sealed", fresh, func(p *pathViews) bool { return p.sealed == [2]int{len(p.at[Human]), len(p.at[AI])} })

	// Later than every sealed view, but out of order among themselves:
	// sorting them keeps the seal.
	store(events(1500, half, len(instants)))
	check("sealed prefix, appended tail", fresh, func(p *pathViews) bool {
		return p.sealed[Human] > 0 && p.sealed[Human] < len(p.at[Human])
	})

	store(events(500, 0, len(instants)))
	check("out of order: nothing sealed", fresh, func(p *pathViews) bool { return p.sealed == [2]int{} })

	fresh.sites[project].idx.sealEvery = 0
	store(events(10, 0, len(instants)))
	check("sealed again", fresh, func(p *pathViews) bool { return p.sealed == [2]int{len(p.at[Human]), len(p.at[AI])} })
}
