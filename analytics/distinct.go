package analytics

import (
	"runtime"
	"sort"
	"sync"
	"sync/atomic"
)

// Distinct visitors of a path over any range, without a set of visitors:
// each view of a visitor class keeps the distance back to the previous
// view of the same visitor in the same path and class (its gap, 0 for the
// first), so the views of [lo, hi) that are their visitor's first in the
// range are those whose gap is 0 or reaches before lo. Counting a range is
// one sequential pass over its gaps, with no random access at all.
//
// A visitor counts in a path's total once, though it may have viewed it
// both as a person and as an agent: total = human + ai − both, where both
// counts the visitors with views of both classes in the range. A view
// whose visitor viewed the path in the other class before it (at the same
// instant or earlier for an agent's view, strictly earlier for a person's)
// is listed with the position of that latest other view. A visitor with
// both classes in [from, to) is counted once: from its first agent view in
// the range when a person's view in the range came at or before it, else
// from its first person's view, whose latest agent view then lies in the
// range. Few visitors are both, so the lists are short.
//
// Gaps are sealed up to a position per class; views appended later (the
// unsealed tail) are counted with bitsets, as before, until the next seal.

// otherViews are the views of one class whose visitor viewed the path in
// the other class before: their positions, and that other view's position.
type otherViews struct {
	pos, prev []uint32
}

// sealedFor says whether the gaps cover the ranges [.., hhi) and [.., ahi).
func (p *pathViews) sealedFor(hhi, ahi int) bool {
	return hhi <= p.sealed[Human] && ahi <= p.sealed[AI]
}

// countSealed counts the distinct visitors of the spans from their gaps.
func (p *pathViews) countSealed(hlo, hhi, alo, ahi int) VisitorCounts {
	h := firsts(p.gap[Human][hlo:hhi])
	a := firsts(p.gap[AI][alo:ahi])
	both := p.other[AI].both(p.gap[AI], alo, ahi, hlo) + p.other[Human].both(p.gap[Human], hlo, hhi, alo)
	return VisitorCounts{Human: h, AI: a, Total: h + a - both}
}

// firsts counts the gaps of a range that reach before its start: the
// views that are their visitor's first in the range.
func firsts(g []uint32) int {
	n := 0
	for k, d := range g {
		// d == 0 (no earlier view) wraps to the largest value; d-1 >= k
		// without a branch (which the data would make unpredictable): the
		// 64-bit difference of two 32-bit numbers is negative, its top
		// bit set, exactly when d-1 < k.
		n += int(1 ^ (uint64(d-1)-uint64(k))>>63) // #nosec G115 -- k is a position, never negative; the result is a bit
	}
	return n
}

// both counts the listed views in [lo, hi) that are their visitor's first
// in the range and whose other-class view lies at or after otherLo.
func (o *otherViews) both(gap []uint32, lo, hi, otherLo int) int {
	k := sort.Search(len(o.pos), func(i int) bool { return o.pos[i] >= uint32(lo) }) // #nosec G115 -- positions in one path's views, which are 32-bit (stored as uint32), never negative
	n := 0
	for ; k < len(o.pos) && o.pos[k] < uint32(hi); k++ { // #nosec G115 -- positions in one path's views, which are 32-bit (stored as uint32), never negative
		pos := o.pos[k]
		if gap[pos]-1 >= pos-uint32(lo) && o.prev[k] >= uint32(otherLo) { // #nosec G115 -- positions in one path's views, which are 32-bit (stored as uint32), never negative
			n++
		}
	}
	return n
}

// sealScratch is what seal works in: last, a slot per dense visitor per
// class, all zero, and left so; and the other-class lists as they grow,
// each path's copied out at its length (grown by appending in each path,
// at 100M views they left 200 MB of garbage at a rebuild's peak). With
// dropPeople, the people's gaps are made in people and not kept.
type sealScratch struct {
	last       [2][]uint32
	other      [2]otherViews
	dropPeople bool
	people     []uint32
}

// seal computes the path's gaps and other-class lists over all its views
// (in time order), in scratch s.
func (p *pathViews) seal(s *sealScratch) {
	h, a := p.at[Human], p.at[AI]
	vh, va := p.vis[Human], p.vis[AI]
	hgap := p.gap[Human]
	if s.dropPeople {
		hgap = s.people
	}
	gap := [2][]uint32{reuse(hgap, len(h)), reuse(p.gap[AI], len(a))}
	last, other := &s.last, &s.other
	for c := range other {
		other[c].pos, other[c].prev = other[c].pos[:0], other[c].prev[:0]
	}
	for i, j := 0, 0; i < len(h) || j < len(a); {
		// A person's view first at the same instant: an agent's view then
		// sees it as earlier, and it does not see the agent's.
		c, k, v := Class(AI), j, uint32(0)
		if j == len(a) || i < len(h) && h[i] <= a[j] {
			c, k, v = Human, i, vh[i]
			i++
		} else {
			v = va[j]
			j++
		}
		if l := last[c][v]; l != 0 {
			gap[c][k] = uint32(k) - (l - 1)
		} else {
			gap[c][k] = 0
		}
		if l := last[1-c][v]; l != 0 {
			other[c].pos = append(other[c].pos, uint32(k))
			other[c].prev = append(other[c].prev, l-1)
		}
		last[c][v] = uint32(k) + 1
	}
	for _, v := range vh {
		last[Human][v] = 0
	}
	for _, v := range va {
		last[AI][v] = 0
	}
	if s.dropPeople {
		s.people, gap[Human] = gap[Human], nil
	}
	p.gap = gap
	for c, o := range other {
		p.other[c] = otherViews{pos: append([]uint32(nil), o.pos...), prev: append([]uint32(nil), o.prev...)}
	}
	p.sealed = [2]int{len(h), len(a)}
}

// gapsOf makes in out (as long as vis) the gaps of the views of one class
// of a path, in time order, whose visitors are vis: as seal makes them.
// last is scratch, a slot per dense visitor, all zero, and left so.
func gapsOf(vis, last, out []uint32) []uint32 {
	for k, v := range vis {
		if l := last[v]; l != 0 {
			out[k] = uint32(k) - (l - 1) // #nosec G115 -- positions in one path's views, which are 32-bit
		} else {
			out[k] = 0
		}
		last[v] = uint32(k) + 1 // #nosec G115 -- as above
	}
	for _, v := range vis {
		last[v] = 0
	}
	return out
}

// reuse is s resliced to n when it has the room, else a new slice.
func reuse(s []uint32, n int) []uint32 {
	if cap(s) >= n {
		return s[:n]
	}
	return make([]uint32, n)
}

// sealAll (x.mu held) seals every path with unsealed views, on every core,
// and counts the days' rollups again.
func (x *index) sealAll() {
	x.sealPaths(runtime.GOMAXPROCS(0), false)
	x.rollUp()
}

// sealPaths (x.mu held) seals every path with unsealed views, on as many
// cores: each takes scratch of 8 bytes a visitor (at 100M views, 80 MB).
// With dropPeople the people's gaps are not kept (rewrite writes them as
// it makes them again, peopleGaps): the paths are not whole after it.
func (x *index) sealPaths(cores int, dropPeople bool) {
	var todo []*pathViews
	for _, p := range x.paths {
		if !p.sealedFor(len(p.at[Human]), len(p.at[AI])) {
			todo = append(todo, p)
		}
	}
	x.unsealed = 0
	if len(todo) == 0 {
		return
	}
	// What seal replaces, from a snapshot's mapping, goes back first.
	for _, p := range todo {
		for c := range p.gap {
			if cap(p.gap[c]) < len(p.at[c]) {
				leave(x.mapping, p.gap[c])
			}
			leave(x.mapping, p.other[c].pos)
			leave(x.mapping, p.other[c].prev)
		}
	}
	if x.mapping != nil {
		x.mapping.release(0)
	}
	onWorkers(cores, len(todo), func() *sealScratch {
		return &sealScratch{last: [2][]uint32{make([]uint32, x.nVisitors), make([]uint32, x.nVisitors)}, dropPeople: dropPeople}
	}, func(s *sealScratch, k int) { todo[k].seal(s) })
}

// onCores calls fn for each i in [0, n), shared among the cores; each
// worker passes fn the state start made for it.
func onCores[S any](n int, start func() S, fn func(state S, i int)) {
	onWorkers(runtime.GOMAXPROCS(0), n, start, fn)
}

// onWorkers is onCores on at most workers cores.
func onWorkers[S any](workers, n int, start func() S, fn func(state S, i int)) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(workers, max(1, n)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			state := start()
			for i := next.Add(1) - 1; i < int64(n); i = next.Add(1) - 1 {
				fn(state, int(i))
			}
		}()
	}
	wg.Wait()
}
