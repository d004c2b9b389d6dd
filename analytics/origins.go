package analytics

import (
	"math/bits"
	"runtime"
	"slices"
	"sync"

	"github.com/RoaringBitmap/roaring/v2"
)

// A view's origin is, for a person's, the referrer they came from, and for
// every other class's, its agent (pathViews.origin). The agents and
// referrers exports count them alike: by origin, or by a row several
// origins share (a channel's referrers), with exact distinct visitors.

// originCount is a row's views and distinct visitors.
type originCount struct{ views, visitors int }

// originCounts (x.mu held for reading) counts the views in [from, to) of
// the classes [lo, hi), over every path or the one called path, by row:
// rows names the rows a view of an origin counts in (its own, or a
// channel and an AI assistant's name), and a row's distinct visitors are
// those of all its origins. The whole days of a range come from the
// origins' days and months (origin_days.go); the part-days at either end,
// one path's views and a range within a day from a pass over the views.
func originCounts[R comparable](x *index, from, to int64, path string, lo, hi Class, rows func(originKey) []R) map[R]originCount {
	if path != "" {
		pi := x.pathPosition(path)
		if pi < 0 {
			return map[R]originCount{}
		}
		return tallyRows(x, x.originTallies(from, to, lo, hi, []uint32{uint32(pi)}), lo, hi, rows) // #nosec G115 -- a position in paths, not negative (checked above) and below MaxInt32
	}
	from, to = max(from, x.firstDay*msPerDay), min(to, x.endDay*msPerDay)
	if from >= to {
		return map[R]originCount{}
	}
	first, end := ceilDiv(from, msPerDay), floorDiv(to, msPerDay) // whole days [first, end)
	if x.originAgg == nil || first >= end {
		return tallyRows(x, x.originTallies(from, to, lo, hi, x.pathsIn(from, to)), lo, hi, rows)
	}
	views, visitors := map[originKey]int{}, map[originKey][]*roaring.Bitmap{}
	x.originsOfDays(first, end, lo, hi, views, visitors)
	for _, r := range [][2]int64{{from, first * msPerDay}, {end * msPerDay, to}} {
		if r[0] >= r[1] {
			continue
		}
		t := x.originTallies(r[0], r[1], lo, hi, x.pathsIn(r[0], r[1]))
		for c := lo; c < hi; c++ {
			for a := range t[c] {
				if n := t[c][a].views; n > 0 {
					k := originKey{c, uint16(a)} // #nosec G115 -- a local id: below maxLocalIDs+1
					views[k] += n
					visitors[k] = append(visitors[k], t[c][a].bitmap())
				}
			}
		}
	}
	rowViews, rowVisitors := map[R]int{}, map[R][]*roaring.Bitmap{}
	for k, n := range views {
		for _, r := range rows(k) {
			rowViews[r] += n
			rowVisitors[r] = append(rowVisitors[r], visitors[k]...)
		}
	}
	out := make(map[R]originCount, len(rowViews))
	for r, n := range rowViews {
		bs := rowVisitors[r]
		u := bs[0]
		if len(bs) > 1 {
			u = roaring.FastOr(bs...)
		}
		out[r] = originCount{n, int(u.GetCardinality())} // #nosec G115 -- a count of 32-bit dense ids: at most 2^32
	}
	return out
}

// tallyRows counts tallies of the classes [lo, hi) by row (see
// originCounts).
func tallyRows[R comparable](x *index, t *[numClasses][]tally, lo, hi Class, rows func(originKey) []R) map[R]originCount {
	origins := map[R][]originKey{}
	for c := lo; c < hi; c++ {
		for a := range t[c] {
			if t[c][a].views > 0 {
				k := originKey{c, uint16(a)} // #nosec G115 -- a local id: below maxLocalIDs+1
				for _, r := range rows(k) {
					origins[r] = append(origins[r], k)
				}
			}
		}
	}
	out := make(map[R]originCount, len(origins))
	// The rows of several origins first: count sorts a tally's ids in
	// place, which merge reads.
	for r, ks := range origins {
		if len(ks) > 1 {
			var u tally
			for _, k := range ks {
				u.merge(&t[k.class][k.id], x.spaceOf(k.class))
			}
			out[r] = originCount{u.views, u.count()}
		}
	}
	for r, ks := range origins {
		if len(ks) == 1 {
			o := &t[ks[0].class][ks[0].id]
			out[r] = originCount{o.views, o.count()}
		}
	}
	return out
}

// originTallies (x.mu held for reading) counts the views in [from, to) of
// each origin of the classes [lo, hi), by class and local id, and their
// visitors, over the paths at the positions given (nil: every path),
// shared among the cores.
func (x *index) originTallies(from, to int64, lo, hi Class, paths []uint32) *[numClasses][]tally {
	n := len(x.paths)
	if paths != nil {
		n = len(paths)
	}
	workers := min(runtime.GOMAXPROCS(0), max(1, n/64))
	tallies := make([]*[numClasses][]tally, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var t [numClasses][]tally
			for c := lo; c < hi; c++ {
				t[c] = make([]tally, x.localIDs(c))
			}
			for i := w; i < n; i += workers {
				pi := i
				if paths != nil {
					pi = int(paths[i])
				}
				p := x.paths[pi]
				for c := lo; c < hi; c++ {
					i, j := span(p.at[c], from, to)
					vis, origin, tc := p.vis[c][i:j], p.origin[c][i:j], t[c]
					size := x.spaceOf(c)
					for k, o := range origin {
						tc[o].add(vis[k], size)
					}
				}
			}
			tallies[w] = &t
		}()
	}
	wg.Wait()
	t := tallies[0]
	for c := lo; c < hi; c++ {
		for a := range t[c] {
			for _, o := range tallies[1:] {
				t[c][a].merge(&o[c][a], x.spaceOf(c))
			}
		}
	}
	return t
}

// spaceOf is how many dense visitor ids class c's views use.
func (x *index) spaceOf(c Class) int {
	if c.IsVisitor() {
		return x.nVisitors
	}
	return x.nCrawlers
}

// tally is one origin's views in a range and their distinct visitors:
// the visitors' dense ids as they come, until they would take more memory
// than a bitset of every visitor, then that bitset. Most agents and
// referrers are seen a few times, so a query over hundreds of them holds
// no bitset for each.
type tally struct {
	views int
	ids   []uint32
	bits  bitset
}

// add counts a view of visitor v among size visitors.
func (t *tally) add(v uint32, size int) {
	t.views++
	if t.bits != nil {
		t.bits.set(v)
		return
	}
	t.ids = append(t.ids, v)
	if len(t.ids) > size/32+64 {
		t.toBits(size)
	}
}

func (t *tally) toBits(size int) {
	t.bits = newBitset(size)
	for _, v := range t.ids {
		t.bits.set(v)
	}
	t.ids = nil
}

// merge adds o's views and visitors to t's, leaving o as it was.
func (t *tally) merge(o *tally, size int) {
	t.views += o.views
	if o.bits != nil && t.bits == nil {
		t.toBits(size)
	}
	if t.bits != nil {
		if o.bits != nil {
			t.bits.or(o.bits)
		}
		for _, v := range o.ids {
			t.bits.set(v)
		}
		return
	}
	t.ids = append(t.ids, o.ids...)
}

// bitmap is the visitors as a bitmap.
func (t *tally) bitmap() *roaring.Bitmap {
	if t.bits == nil {
		ids := slices.Clone(t.ids)
		slices.Sort(ids)
		return roaring.BitmapOf(ids...)
	}
	b := roaring.New()
	var ids []uint32
	for w, word := range t.bits {
		for ; word != 0; word &= word - 1 {
			ids = append(ids, uint32(w*64+bits.TrailingZeros64(word))) // #nosec G115 -- a bit of a bitset of dense ids, which are 32 bits
		}
	}
	b.AddMany(ids)
	return b
}

// count is the distinct visitors.
func (t *tally) count() int {
	if t.bits != nil {
		return t.bits.count()
	}
	slices.Sort(t.ids)
	return len(slices.Compact(t.ids))
}
