package analytics

import (
	"io"
	"runtime/debug"
	"slices"

	"github.com/RoaringBitmap/roaring/v2"
)

// originBatchDays is how many days countOrigins buckets at a time, at
// most: a quarter's visitors of one class (at 100M views a year, 30 MB of
// the AI agents'; people's, 70 MB, are bucketed fewer days at a time, see
// originBatchViews).
const originBatchDays = 92

// originBatchViews bounds the views a batch buckets, about: 32 MB of
// visitor ids.
const originBatchViews = 1 << 23

// originBuckets bounds the buckets (days × origins) of a batch.
const originBuckets = 1 << 16

// Each UTC day, and each calendar month, keeps every origin's views and
// visitors (a bitmap of dense ids in its class's space): each agent's, and
// each referrer people came from. So the agents or referrers of a long
// range are the unions of a dozen months and a few days per origin, not a
// pass over every view of the range with a set per origin (a year of 100M
// views: 30M agents' views, 70M people's, each a cache miss in a set of
// millions). They are counted from the paths' columns after a load from
// the database, kept by merge, and carried by the snapshot.

// originKey is a view's origin within its class: for Human the local id
// of the referrer the person came from, for the others their agent's.
type originKey struct {
	class Class
	id    uint16
}

// originTraffic is an origin's views in a day or a month, and its
// visitors.
type originTraffic struct {
	views    int
	visitors *roaring.Bitmap
}

// originAggregates are the origins' traffic by day and by month (key: the
// unix day, of the month's first day for months).
type originAggregates struct {
	days, months map[int64]map[originKey]*originTraffic
}

// add (x.mu held) records a view of origin k by visitor v (dense, in k's
// class's space) on day d.
func (a *originAggregates) add(d int64, k originKey, v uint32) {
	for _, m := range []struct {
		set map[int64]map[originKey]*originTraffic
		key int64
	}{{a.days, d}, {a.months, monthOf(d)}} {
		byAgent := m.set[m.key]
		if byAgent == nil {
			byAgent = map[originKey]*originTraffic{}
			m.set[m.key] = byAgent
		}
		t := byAgent[k]
		if t == nil {
			t = &originTraffic{visitors: roaring.New()}
			byAgent[k] = t
		}
		t.views++
		t.visitors.Add(v)
	}
}

// countOrigins (x.mu held) counts the origins' days and months from every
// path's views: the classes shared among the cores, each class read a
// quarter at a time (a cursor per path, so each path is looked at a few
// times, not once a day), its visitors bucketed by day and origin in
// slices, then sorted and made bitmaps.
func (x *index) countOrigins() {
	agg := &originAggregates{days: map[int64]map[originKey]*originTraffic{}, months: map[int64]map[originKey]*originTraffic{}}
	if x.firstDay >= x.endDay { // no views
		x.originAgg = agg
		return
	}
	n := 0
	var views [numClasses]int
	for _, p := range x.paths {
		for c := range numClasses {
			views[c] += len(p.at[c])
		}
	}
	for _, v := range views {
		n += v
	}
	if n >= bigLoad {
		// The buckets' garbage would reach the size of the live heap
		// before a collection at Go's default (+400 MB at 100M views).
		defer lowerGC()()
	}
	classes := []Class{Human, AI, Bot, AITraining, AISearch} // the largest first
	type dayAgent struct {
		day int64
		key originKey
	}
	type dayTraffic struct {
		dayAgent
		*originTraffic
	}
	results := make([][]dayTraffic, len(classes))
	onCores(len(classes), func() []uint32 { return nil }, func(scratch []uint32, i int) {
		c := classes[i]
		nA := x.localIDs(c)
		var out []dayTraffic
		var packed bitmapArena
		cursor := make([]int32, len(x.paths))
		var buckets [][]uint32 // day within the batch × origin
		// A site of many origins buckets fewer days at a time, and a class
		// of many views (people's: 70M of 100M) fewer than a quarter, so
		// its buckets hold at most about originBatchViews.
		batch := int64(max(1, min(originBatchDays, originBuckets/nA, int((x.endDay-x.firstDay)*originBatchViews/int64(max(views[c], 1))))))
		for first := x.firstDay; first < x.endDay; first += batch {
			end := min(first+batch, x.endDay)
			// The buckets keep their room from one batch to the next.
			for len(buckets) < int(end-first)*nA {
				buckets = append(buckets, nil)
			}
			for b := range buckets {
				buckets[b] = buckets[b][:0]
			}
			for pi, p := range x.paths {
				at, vis, origin := p.at[c], p.vis[c], p.origin[c]
				k := int(cursor[pi])
				for ; k < len(at) && at[k] < end*msPerDay; k++ {
					b := int(floorDiv(at[k], msPerDay)-first)*nA + int(origin[k])
					buckets[b] = append(buckets[b], vis[k])
				}
				cursor[pi] = int32(k) // #nosec G115 -- a position in one path's views, which an int32 position in paths bounds as well
			}
			for b, v := range buckets {
				if len(v) == 0 {
					continue
				}
				if len(v) < 256 {
					slices.Sort(v)
				} else {
					if len(scratch) < len(v) {
						scratch = make([]uint32, len(v))
					}
					radixSort(v, scratch[:len(v)])
				}
				out = append(out, dayTraffic{dayAgent{first + int64(b/nA), originKey{c, uint16(b % nA)}}, // #nosec G115 -- b % nA is below nA, the origins' count (at most 65,536)
					&originTraffic{views: len(v), visitors: packed.pack(roaring.BitmapOf(v...))}})
			}
		}
		results[i] = out
	})
	months := map[int64]map[originKey][]*originTraffic{}
	for _, out := range results {
		for _, dt := range out {
			byAgent := agg.days[dt.day]
			if byAgent == nil {
				byAgent = map[originKey]*originTraffic{}
				agg.days[dt.day] = byAgent
			}
			byAgent[dt.key] = dt.originTraffic
			m := monthOf(dt.day)
			if months[m] == nil {
				months[m] = map[originKey][]*originTraffic{}
			}
			months[m][dt.key] = append(months[m][dt.key], dt.originTraffic)
		}
	}
	type monthAgent struct {
		month int64
		key   originKey
	}
	var keys []monthAgent
	for m, byAgent := range months {
		for k := range byAgent {
			keys = append(keys, monthAgent{m, k})
		}
	}
	unions := make([]*originTraffic, len(keys))
	onCores(len(keys), func() *bitmapArena { return &bitmapArena{} }, func(packed *bitmapArena, i int) {
		days := months[keys[i].month][keys[i].key]
		u := &originTraffic{}
		bs := make([]*roaring.Bitmap, len(days))
		for k, t := range days {
			u.views += t.views
			bs[k] = t.visitors
		}
		u.visitors = packed.pack(roaring.FastOr(bs...))
		unions[i] = u
	})
	for i, k := range keys {
		if agg.months[k.month] == nil {
			agg.months[k.month] = map[originKey]*originTraffic{}
		}
		agg.months[k.month][k.key] = unions[i]
	}
	x.originAgg = agg
	if n >= bigLoad {
		// The buckets of millions of views are garbage now: give their
		// memory back (at 100M views, 400 MB resident otherwise).
		debug.FreeOSMemory()
	}
}

// bitmapArena packs bitmaps into large blocks, each in its serialized
// form, which a bitmap read from it shares (as a snapshot's are read from
// its mapping): a bitmap built by adding keeps its containers' slack and
// a heap object for each container's values; packed, the values of
// thousands of containers share one block. At 100M views the origins'
// days and months, 3.1M containers of 24 visitors on average, took 417 MB
// of heap built, 366 MB packed (145 MB of it the serialized form, the rest
// the containers' headers). Bitmaps read from it copy a container before
// changing it.
type bitmapArena struct {
	block []byte
}

// bitmapArenaBlock is the size of an arena's blocks, but for a bitmap
// larger than it, which has one of its own.
const bitmapArenaBlock = 1 << 20

// pack returns a bitmap of b's values sharing the arena's memory; b is
// left to the collector.
func (a *bitmapArena) pack(b *roaring.Bitmap) *roaring.Bitmap {
	size := int(b.GetSerializedSizeInBytes()) // #nosec G115 -- the size of a bitmap in memory
	if size > bitmapArenaBlock/4 {
		a.block = make([]byte, 0, size)
	} else if cap(a.block)-len(a.block) < size {
		a.block = make([]byte, 0, bitmapArenaBlock)
	}
	start := len(a.block)
	w := sliceWriter{a.block[start : start+size]}
	if _, err := b.WriteTo(&w); err != nil || len(w.b) != 0 {
		return b // cannot happen: the size is roaring's own; b is good as it is
	}
	// Each bitmap starts 8-aligned, as its 64-bit words are read in place.
	a.block = a.block[:min(cap(a.block), (start+size+7)&^7)]
	p := roaring.New()
	if _, err := p.FromUnsafeBytes(a.block[start : start+size]); err != nil {
		return b
	}
	return p
}

// sliceWriter writes into a slice of the length to write, advancing it.
type sliceWriter struct{ b []byte }

func (w *sliceWriter) Write(p []byte) (int, error) {
	if len(p) > len(w.b) {
		return 0, io.ErrShortWrite
	}
	n := copy(w.b, p)
	w.b = w.b[n:]
	return n, nil
}

// originsOfDays (x.mu held for reading) adds to views and visitors the
// traffic of the origins of the classes [lo, hi) in the whole days [first,
// end): months inside it, then days.
func (x *index) originsOfDays(first, end int64, lo, hi Class, views map[originKey]int, visitors map[originKey][]*roaring.Bitmap) {
	for d := first; d < end; {
		byAgent, step := x.originAgg.days[d], int64(1)
		if m := monthOf(d); m == d && nextMonth(m) <= end {
			byAgent, step = x.originAgg.months[m], nextMonth(m)-d
		}
		for k, t := range byAgent {
			if k.class < lo || k.class >= hi {
				continue
			}
			views[k] += t.views
			visitors[k] = append(visitors[k], t.visitors)
		}
		d += step
	}
}
