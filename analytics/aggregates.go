package analytics

import (
	"time"

	"github.com/RoaringBitmap/roaring/v2"
)

// Weeks (Monday to Sunday, UTC) and calendar months keep the union of
// their days' visitor bitmaps, so a long range is the union of a dozen
// months and a few weeks and days, not of hundreds of days (each day's
// bitmap is arrays of a few hundred ids per container, whose unions cost
// far more than those of the dense bitmaps of a month).
type aggregates struct {
	weeks, months map[int64]*[2]*roaring.Bitmap // key: first day (unix days)
}

// weekOf is the Monday starting the week of day d (1 Jan 1970 was a Thursday).
func weekOf(d int64) int64 { return d - (d + 3 - floorDiv(d+3, 7)*7) }

// monthOf is the first day of the calendar month of day d.
func monthOf(d int64) int64 {
	y, m, _ := time.Unix(d*86400, 0).UTC().Date()
	return time.Date(y, m, 1, 0, 0, 0, 0, time.UTC).Unix() / 86400
}

// nextMonth is the first day of the month after the one starting at day m.
func nextMonth(m int64) int64 {
	return time.Unix(m*86400, 0).UTC().AddDate(0, 1, 0).Unix() / 86400
}

// aggregate (x.mu held) builds the weeks and months from the days, on
// every core; merge keeps them from then on.
func (x *index) aggregate() {
	groups := map[[2]int64][]*dayTraffic{} // {0: week, 1: month; first day}
	for d, dv := range x.days {
		groups[[2]int64{0, weekOf(d)}] = append(groups[[2]int64{0, weekOf(d)}], dv)
		groups[[2]int64{1, monthOf(d)}] = append(groups[[2]int64{1, monthOf(d)}], dv)
	}
	keys := make([][2]int64, 0, len(groups))
	for k := range groups {
		keys = append(keys, k)
	}
	unions := make([]*[2]*roaring.Bitmap, len(keys))
	onCores(len(keys), func() struct{} { return struct{}{} }, func(_ struct{}, i int) {
		u := &[2]*roaring.Bitmap{}
		for c := range u {
			bs := make([]*roaring.Bitmap, 0, 31)
			for _, dv := range groups[keys[i]] {
				bs = append(bs, dv.visitors[c])
			}
			u[c] = roaring.FastOr(bs...)
		}
		unions[i] = u
	})
	x.agg = &aggregates{weeks: map[int64]*[2]*roaring.Bitmap{}, months: map[int64]*[2]*roaring.Bitmap{}}
	for i, k := range keys {
		if k[0] == 0 {
			x.agg.weeks[k[1]] = unions[i]
		} else {
			x.agg.months[k[1]] = unions[i]
		}
	}
}

// add (x.mu held) records a visitor of class c on day d.
func (a *aggregates) add(d int64, c Class, v uint32) {
	for _, m := range []struct {
		set map[int64]*[2]*roaring.Bitmap
		key int64
	}{{a.weeks, weekOf(d)}, {a.months, monthOf(d)}} {
		u := m.set[m.key]
		if u == nil {
			u = &[2]*roaring.Bitmap{roaring.New(), roaring.New()}
			m.set[m.key] = u
		}
		u[c].Add(v)
	}
}

// cover appends to hs and as the bitmaps whose union is the visitors of
// the whole days [first, end): months inside it, then weeks, then days.
func (x *index) cover(first, end int64, hs, as []*roaring.Bitmap) ([]*roaring.Bitmap, []*roaring.Bitmap) {
	for d := first; d < end; {
		var u *[2]*roaring.Bitmap
		step := int64(1)
		if m := monthOf(d); x.agg != nil && m == d && nextMonth(m) <= end {
			u, step = x.agg.months[m], nextMonth(m)-d
		} else if x.agg != nil && weekOf(d) == d && d+7 <= end {
			u, step = x.agg.weeks[d], 7
		} else if dv := x.days[d]; dv != nil {
			u = &dv.visitors
		}
		if u != nil {
			hs, as = append(hs, u[Human]), append(as, u[AI])
		}
		d += step
	}
	return hs, as
}
