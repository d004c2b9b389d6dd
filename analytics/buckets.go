package analytics

import (
	"context"
	"fmt"
	"time"
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

// Series is a range counted in one pass over its views: the visitors export
// of the range, the distinct visitors of each bucket, and (when asked) the
// totals of the period of the same length just before it.
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
	spec := seriesSpec{edges: make([]int64, 0, len(out.Buckets)+1)}
	for _, b := range out.Buckets {
		spec.edges = append(spec.edges, ceilMillis(b.From))
	}
	spec.edges = append(spec.edges, ceilMillis(*q.To))
	if previous {
		spec.prev = true
		spec.prevFrom = ceilMillis(q.From.Add(-q.To.Sub(*q.From)))
		out.Previous = &VisitorCounts{}
	}
	err := s.readIndex(ctx, projectID, q, func(x *index, from, to int64) {
		var counts []VisitorCounts
		var prev VisitorCounts
		out.Visitors, counts, prev = x.count(from, to, q, spec)
		for i := range out.Buckets {
			out.Buckets[i].VisitorCounts = counts[i]
		}
		if previous {
			*out.Previous = prev
		}
	})
	return out, err
}

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
