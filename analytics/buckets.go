package analytics

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"time"

	"github.com/RoaringBitmap/roaring/v2"
)

// Unit is the length of a chart's buckets: a UTC day, a week (Monday to
// Sunday, UTC) or a calendar month.
type Unit int

const (
	Day Unit = iota
	Week
	Month
)

func (u Unit) String() string {
	switch u {
	case Week:
		return "week"
	case Month:
		return "month"
	}
	return "day"
}

// MaxBars is how many buckets a chart draws at most when its unit is
// chosen by UnitFor: more days than this draw weeks, more weeks months.
const MaxBars = 60

// UnitFor is the shortest unit that splits [from, to) into at most MaxBars
// buckets, months when even weeks are too many.
func UnitFor(from, to time.Time) Unit {
	for _, u := range []Unit{Day, Week} {
		if u.count(from, to) <= MaxBars {
			return u
		}
	}
	return Month
}

// start is the start of the unit holding t.
func (u Unit) start(t time.Time) time.Time {
	d := startOfDay(t)
	switch u {
	case Week:
		return d.AddDate(0, 0, -(int(d.Weekday())+6)%7)
	case Month:
		return time.Date(d.Year(), d.Month(), 1, 0, 0, 0, 0, time.UTC)
	}
	return d
}

// next is the start of the unit after the one starting at t.
func (u Unit) next(t time.Time) time.Time {
	switch u {
	case Week:
		return t.AddDate(0, 0, 7)
	case Month:
		return t.AddDate(0, 1, 0)
	}
	return t.AddDate(0, 0, 1)
}

// count is how many buckets of u [from, to) touches, without listing them.
func (u Unit) count(from, to time.Time) int {
	if !from.Before(to) {
		return 0
	}
	switch u {
	case Week:
		return (DayCount(u.start(from), to) + 6) / 7
	case Month:
		last := to.Add(-time.Nanosecond).UTC()
		first := from.UTC()
		return (last.Year()-first.Year())*12 + int(last.Month()) - int(first.Month()) + 1
	}
	return DayCount(from, to)
}

// Bucket is one bar of a chart: the distinct visitors of [From, To), the
// part of the unit starting at Start that lies in the range.
type Bucket struct {
	Start, From, To time.Time
	VisitorCounts
}

// Buckets splits [from, to) at the starts of u, the first and last bucket
// clipped to the range.
func Buckets(from, to time.Time, u Unit) []Bucket {
	var out []Bucket
	for start := u.start(from); start.Before(to); start = u.next(start) {
		b := Bucket{Start: start, From: start, To: u.next(start)}
		if b.From.Before(from) {
			b.From = from
		}
		if b.To.After(to) {
			b.To = to
		}
		out = append(out, b)
	}
	return out
}

// maxBuckets bounds one series (a century of months), so no request can
// ask for an unbounded amount of memory.
const maxBuckets = 1200

// Series is a range counted for a chart: the visitors export of the range
// (one pass over its views), the distinct visitors of each bucket and (when
// asked) the totals of the period of the same length just before it, both
// unions of per-day visitor bitmaps.
type Series struct {
	Visitors Visitors
	Unit     Unit
	Buckets  []Bucket
	Previous *VisitorCounts
}

// VisitorSeries counts a bounded range by buckets of u. Each bucket's
// numbers are exactly the visitors export's totals for that bucket alone,
// and Visitors is exactly the export for q; previous adds the totals of
// [From-(To-From), From).
func (s *Service) VisitorSeries(ctx context.Context, projectID string, q Query, u Unit, previous bool) (Series, error) {
	if q.From == nil || q.To == nil || !q.From.Before(*q.To) {
		return Series{}, fmt.Errorf("analytics: a series needs a bounded, non-empty range")
	}
	if n := u.count(*q.From, *q.To); n > maxBuckets {
		return Series{}, fmt.Errorf("analytics: %d buckets of a %s are too many for one series (at most %d)", n, u, maxBuckets)
	}
	out := Series{Visitors: Visitors{Visitors: []VisitorRow{}}, Unit: u, Buckets: Buckets(*q.From, *q.To, u)}
	if previous {
		out.Previous = &VisitorCounts{}
	}
	err := s.readIndex(ctx, projectID, q, func(x *index, from, to int64) {
		out.Visitors = x.visitors(from, to, q)
		// Buckets (and the previous period, last) shared among the cores;
		// bitmaps are only read here.
		n := len(out.Buckets)
		if previous {
			n++
		}
		workers := min(runtime.GOMAXPROCS(0), n)
		var wg sync.WaitGroup
		for w := range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := w; i < n; i += workers {
					if i == len(out.Buckets) {
						*out.Previous = x.between(ceilMillis(q.From.Add(-q.To.Sub(*q.From))), from)
						continue
					}
					b := &out.Buckets[i]
					b.VisitorCounts = x.between(ceilMillis(b.From), ceilMillis(b.To))
				}
			}()
		}
		wg.Wait()
	})
	return out, err
}

// between counts the distinct visitors of [from, to) (unix ms) as the
// export would: the union of the whole UTC days inside, from their bitmaps,
// and of the views in the parts of days at either end, found per path.
func (x *index) between(from, to int64) VisitorCounts {
	// Unbounded ends stop at the days with views.
	from, to = max(from, x.firstDay*msPerDay), min(to, x.endDay*msPerDay)
	if from >= to {
		return VisitorCounts{}
	}
	first, end := ceilDiv(from, msPerDay), floorDiv(to, msPerDay) // whole days [first, end)
	var h, a *roaring.Bitmap
	if first < end {
		hs, as := x.cover(first, end, nil, nil)
		if len(hs) == 1 && from == first*msPerDay && to == end*msPerDay {
			// One day, week or month, nothing to add: count it as it is.
			h, a = hs[0], as[0]
		} else {
			h, a = roaring.FastOr(hs...), roaring.FastOr(as...)
			x.addViews(from, first*msPerDay, h, a)
			x.addViews(end*msPerDay, to, h, a)
		}
	} else {
		h, a = roaring.New(), roaring.New()
		x.addViews(from, to, h, a)
	}
	// #nosec G115 -- counts of 32-bit dense ids: at most 2^32
	return VisitorCounts{Human: int(h.GetCardinality()), AI: int(a.GetCardinality()), Total: int(h.OrCardinality(a))}
}

// addViews adds the visitors of every path's views in [from, to) to h and a.
func (x *index) addViews(from, to int64, h, a *roaring.Bitmap) {
	if from >= to {
		return
	}
	x.eachPath(from, to, func(p *pathViews) {
		lo, hi := span(p.at[Human], from, to)
		h.AddMany(p.vis[Human][lo:hi])
		lo, hi = span(p.at[AI], from, to)
		a.AddMany(p.vis[AI][lo:hi])
	})
}

// eachPath calls fn for the paths that may have views in [from, to).
func (x *index) eachPath(from, to int64, fn func(p *pathViews)) {
	cand := x.pathsIn(from, to)
	if cand == nil {
		for _, p := range x.paths {
			fn(p)
		}
		return
	}
	for _, pi := range cand {
		fn(x.paths[pi])
	}
}

// viewsBetween counts the page views of [from, to) (unix ms) by class, as
// the views export's totals: whole days from their counts, the part-days
// at either end per path.
func (x *index) viewsBetween(from, to int64) ViewCounts {
	var n [numClasses]int
	add := func(from, to int64) {
		if from >= to {
			return
		}
		x.eachPath(from, to, func(p *pathViews) {
			for c := range numClasses {
				lo, hi := span(p.at[c], from, to)
				n[c] += hi - lo
			}
		})
	}
	if first, end := ceilDiv(from, msPerDay), floorDiv(to, msPerDay); first < end {
		for d := first; d < end; d++ {
			if dv := x.days[d]; dv != nil {
				for c := range numClasses {
					n[c] += dv.views[c]
				}
			}
		}
		add(from, first*msPerDay)
		add(end*msPerDay, to)
	} else {
		add(from, to)
	}
	v := ViewCounts{Human: n[Human], AI: n[AI], AISearch: n[AISearch], AITraining: n[AITraining], Bots: n[Bot]}
	v.Total = v.Human + v.AI // as the views export: crawlers beside it, not in it
	return v
}

// ViewTotals is the views export's totals for a bounded range, from the
// per-day counts (without listing every path).
func (s *Service) ViewTotals(ctx context.Context, projectID string, q Query) (ViewCounts, error) {
	var out ViewCounts
	if q.From == nil || q.To == nil {
		return out, fmt.Errorf("analytics: view totals need a bounded range")
	}
	err := s.readIndex(ctx, projectID, q, func(x *index, from, to int64) { out = x.viewsBetween(from, to) })
	return out, err
}

// HasTraffic says whether the project has recorded any page view.
func (s *Service) HasTraffic(ctx context.Context, projectID string) (bool, error) {
	has := false
	err := s.readIndex(ctx, projectID, Query{}, func(x *index, _, _ int64) { has = len(x.days) > 0 })
	return has, err
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && a < 0 {
		q--
	}
	return q
}

func ceilDiv(a, b int64) int64 { return -floorDiv(-a, b) }

// FirstView is the time of the project's earliest stored page view of any
// class, and false when it has none.
func (s *Service) FirstView(ctx context.Context, projectID string) (time.Time, bool, error) {
	var first int64
	found := false
	err := s.readIndex(ctx, projectID, Query{}, func(x *index, _, _ int64) {
		for _, p := range x.paths {
			for c := range p.at {
				if len(p.at[c]) > 0 && (!found || p.at[c][0] < first) {
					first, found = p.at[c][0], true
				}
			}
		}
	})
	return time.UnixMilli(first).UTC(), found, err
}
