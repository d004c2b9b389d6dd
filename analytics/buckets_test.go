package analytics

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestSeriesEqualsBruteForceBucketByBucket checks every bucket of a series,
// its export and its previous period against a brute-force count over the
// stored views: each bucket alone, as the export would count it.
func TestSeriesEqualsBruteForceBucketByBucket(t *testing.T) {
	s, d, project := newTestService(t)
	// Traffic from mid-December to mid-April, so ranges cross month, week
	// and day boundaries and their previous periods hold traffic too.
	record(t, s, project, GenConfig{Views: 6000, Paths: 30, Visitors: 400, From: date(t, "2025-12-10"), To: date(t, "2026-04-20"), Seed: 11})
	views := readStored(t, d, project)
	for _, tc := range []struct {
		name     string
		from, to string
		unit     Unit
		buckets  int
	}{
		{"whole days", "2026-02-20", "2026-03-06", Day, 14},
		{"days, edges inside a day", "2026-02-20T13:37:12.345Z", "2026-03-06T06:00:00.0005Z", Day, 15},
		{"whole weeks from a Monday", "2026-01-05", "2026-03-02", Week, 8},
		{"weeks, edges mid-week and mid-day", "2026-01-07T09:30:00Z", "2026-03-04T18:00:00Z", Week, 9},
		{"whole months", "2026-01-01", "2026-04-01", Month, 3},
		{"months, edges mid-month and mid-day", "2026-01-15T12:00:00.250Z", "2026-04-10T23:59:59.999Z", Month, 4},
		{"one instant-bounded bucket", "2026-02-03T10:00:00Z", "2026-02-03T10:30:00Z", Day, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			from, to := date(t, tc.from), date(t, tc.to)
			q := Query{From: &from, To: &to, Limit: 10}
			got, err := s.VisitorSeries(context.Background(), project, q, tc.unit, true)
			if err != nil {
				t.Fatal(err)
			}
			if len(got.Buckets) != tc.buckets {
				t.Fatalf("%d buckets of a %s, want %d", len(got.Buckets), tc.unit, tc.buckets)
			}
			export, err := s.Visitors(context.Background(), project, q)
			if err != nil {
				t.Fatal(err)
			}
			rows, totals, _, viewTotals := views.count(q)
			if vt, err := s.ViewTotals(context.Background(), project, q); err != nil || vt != viewTotals {
				t.Errorf("view totals %+v (%v), brute force %+v", vt, err, viewTotals)
			}
			if got.Visitors.Totals != totals || export.Totals != totals {
				t.Errorf("totals: series %+v, export %+v, brute force %+v", got.Visitors.Totals, export.Totals, totals)
			}
			if len(got.Visitors.Visitors) != min(10, len(rows)) || got.Visitors.HasMore != (len(rows) > 10) {
				t.Errorf("series lists %d rows (hasMore %v) of %d", len(got.Visitors.Visitors), got.Visitors.HasMore, len(rows))
			}
			for i, r := range got.Visitors.Visitors {
				if r != rows[i] {
					t.Errorf("row %d: series %+v, brute force %+v", i, r, rows[i])
				}
			}
			busy := 0
			for i, b := range got.Buckets {
				if i == 0 && !b.From.Equal(from) || i == len(got.Buckets)-1 && !b.To.Equal(to) || i > 0 && !b.From.Equal(got.Buckets[i-1].To) {
					t.Errorf("bucket %d covers [%v, %v): the buckets must tile [%v, %v)", i, b.From, b.To, from, to)
				}
				if b.From != b.Start && i > 0 || tc.unit.start(b.Start) != b.Start {
					t.Errorf("bucket %d starts at %v, not at the start of a %s", i, b.Start, tc.unit)
				}
				_, want, _, _ := views.count(Query{From: &b.From, To: &b.To})
				if b.VisitorCounts != want {
					t.Errorf("bucket %d [%v, %v): %+v, brute force %+v", i, b.From, b.To, b.VisitorCounts, want)
				}
				if want.Human > 0 && want.AI > 0 {
					busy++
				}
			}
			if busy < len(got.Buckets)*3/4 {
				t.Errorf("only %d of %d buckets have both human and AI visitors; the traffic is too thin to test", busy, len(got.Buckets))
			}
			prevFrom := from.Add(-to.Sub(from))
			_, want, _, _ := views.count(Query{From: &prevFrom, To: &from})
			if got.Previous == nil || *got.Previous != want || want.Total == 0 {
				t.Errorf("previous period [%v, %v): %+v, brute force %+v", prevFrom, from, got.Previous, want)
			}
		})
	}
}

func TestBucketsStartAtTheUnitsStart(t *testing.T) {
	for _, tc := range []struct {
		unit        Unit
		from, to    string
		first, last string // Start of the first and last bucket
		n           int
	}{
		{Day, "2026-03-01T18:00:00Z", "2026-03-03T06:30:00Z", "2026-03-01", "2026-03-03", 3},
		{Week, "2026-03-04", "2026-03-23", "2026-03-02", "2026-03-16", 3}, // Wednesday to a Monday (excluded)
		{Week, "2026-03-01", "2026-03-02", "2026-02-23", "2026-02-23", 1}, // a Sunday
		{Month, "2025-12-31T23:00:00Z", "2026-02-01", "2025-12-01", "2026-01-01", 2},
		{Month, "2026-01-31", "2026-03-01T00:00:00.001Z", "2026-01-01", "2026-03-01", 3},
	} {
		from, to := date(t, tc.from), date(t, tc.to)
		got := Buckets(from, to, tc.unit)
		if len(got) != tc.n || tc.unit.count(from, to) != tc.n {
			t.Fatalf("%s buckets of [%s, %s): %d listed, %d counted, want %d", tc.unit, tc.from, tc.to, len(got), tc.unit.count(from, to), tc.n)
		}
		if f, l := got[0].Start.Format(time.DateOnly), got[len(got)-1].Start.Format(time.DateOnly); f != tc.first || l != tc.last {
			t.Errorf("%s buckets of [%s, %s) start %s … %s, want %s … %s", tc.unit, tc.from, tc.to, f, l, tc.first, tc.last)
		}
	}
}

func TestUnitForDrawsAtMostMaxBars(t *testing.T) {
	end := date(t, "2026-11-23")
	for _, tc := range []struct {
		days int
		want Unit
	}{{1, Day}, {30, Day}, {60, Day}, {61, Week}, {90, Week}, {365, Week}, {366, Week}, {430, Month}, {3650, Month}} {
		from := end.AddDate(0, 0, -tc.days)
		if got := UnitFor(from, end); got != tc.want {
			t.Errorf("%d days: %s, want %s", tc.days, got, tc.want)
		} else if got != Month && got.count(from, end) > MaxBars {
			t.Errorf("%d days: %d bars of a %s", tc.days, got.count(from, end), got)
		}
	}
}

func TestFirstView(t *testing.T) {
	s, _, project := newTestService(t)
	if _, ok, err := s.FirstView(context.Background(), project); ok || err != nil {
		t.Fatalf("a project without traffic has a first view (%v)", err)
	}
	at := date(t, "2026-02-03T04:05:06.789Z")
	if _, err := s.Record(context.Background(), project, []Event{
		{Path: "/b", At: at.Add(time.Hour), UserAgent: genHumans[0], IP: "203.0.113.1"},
		{Path: "/a", At: at, UserAgent: "curl/8.5.0", IP: "203.0.113.2"},
	}); err != nil {
		t.Fatal(err)
	}
	if got, ok, err := s.FirstView(context.Background(), project); !ok || err != nil || !got.Equal(at) {
		t.Errorf("first view %v (%v, %v), want %v", got, ok, err, at)
	}
}

// A page near the top is chosen by a heap, not a whole sort: it must be
// the same rows as sorting all of them, hasMore included.
func TestPageEqualsSortingEverything(t *testing.T) {
	rnd := rand.New(rand.NewPCG(1, 2))
	cmp := func(a, b VisitorRow) int {
		if a.Total != b.Total {
			return b.Total - a.Total
		}
		return strings.Compare(a.Path, b.Path)
	}
	for _, n := range []int{0, 1, 7, 100, 5000} {
		rows := make([]VisitorRow, n)
		for i := range rows {
			rows[i] = VisitorRow{Path: fmt.Sprintf("/p%d", i), VisitorCounts: VisitorCounts{Total: rnd.IntN(20)}}
		}
		sorted := slices.Clone(rows)
		slices.SortFunc(sorted, cmp)
		for _, q := range []Query{{Limit: 1}, {Limit: 25}, {Limit: 25, Offset: 25}, {Limit: 250, Offset: 10}, {Limit: 50, Offset: 4990}, {Limit: 3, Offset: 9000}} {
			got, more := page(slices.Clone(rows), q, cmp)
			lo := min(q.Offset, n)
			hi := min(lo+q.Limit, n)
			if !slices.Equal(got, sorted[lo:hi]) || more != (q.Offset+q.Limit < n) {
				t.Errorf("%d rows, offset %d, limit %d: got %d rows (more %v), want rows %d–%d", n, q.Offset, q.Limit, len(got), more, lo, hi)
			}
		}
	}
}
