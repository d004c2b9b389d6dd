package analytics

import (
	"runtime"
)

// A day's rollup is its distinct visitors per path, for every path with
// visitor views that day, counted from the gaps once all paths are sealed:
// a range of exactly one UTC day, the commonest after the default, reads
// them instead of searching tens of thousands of paths' views (a binary
// search per path and class, each step a cache miss, cost more than the
// counting). A view merged into a day drops its rollup; the next seal
// counts it again.
type pathDay struct {
	path             uint32
	human, ai, total uint32
}

// eachDay calls fn with each day of the path's sealed views and their
// distinct visitors, in one sequential pass over the views and the lists.
func (p *pathViews) eachDay(fn func(day int64, c VisitorCounts)) {
	var k [2]int // next entry of each other-class list
	p.dayRuns(func(day int64, hlo, i, alo, j int) {
		c := VisitorCounts{Human: firsts(p.gap[Human][hlo:i]), AI: firsts(p.gap[AI][alo:j])}
		both := 0
		for _, s := range [2]struct {
			c               Class
			lo, hi, otherLo int
		}{{Human, hlo, i, alo}, {AI, alo, j, hlo}} {
			o, g := &p.other[s.c], p.gap[s.c]
			for ; k[s.c] < len(o.pos) && int(o.pos[k[s.c]]) < s.hi; k[s.c]++ {
				pos := o.pos[k[s.c]]
				if g[pos]-1 >= pos-uint32(s.lo) && o.prev[k[s.c]] >= uint32(s.otherLo) { // #nosec G115 -- positions in one path's views, which are 32-bit (stored as uint32), never negative
					both++
				}
			}
		}
		c.Total = c.Human + c.AI - both
		fn(day, c)
	})
}

// rollUp (x.mu held, every path sealed) counts every day's rollup, paths
// shared among the cores: each core takes a run of paths (of about as many
// views), first notes how many of its paths have views on each day, so
// each day's rollup is made at its size and each core given its place in
// it, then counts its paths' days into their places. The rollups come out
// ordered by path with nothing to merge and nothing held besides them: a
// list per core and day, merged after, was the rebuild's peak (the size of
// every rollup again, at its end).
func (x *index) rollUp() {
	workers := min(runtime.GOMAXPROCS(0), max(1, len(x.paths)/64))
	nDays := int(max(x.endDay-x.firstDay, 0))
	// The cores' runs of paths: [runs[w], runs[w+1]).
	total := 0
	for _, p := range x.paths {
		total += p.sealed[Human] + p.sealed[AI]
	}
	runs := make([]int, workers+1)
	for w, seen, pi := 1, 0, 0; w < workers; w++ {
		for ; pi < len(x.paths) && seen < total/workers*w; pi++ {
			seen += x.paths[pi].sealed[Human] + x.paths[pi].sealed[AI]
		}
		runs[w] = pi
	}
	runs[workers] = len(x.paths)
	// counts[w][d]: the paths of w's run with views on day firstDay+d.
	counts := make([][]int, workers)
	onCores(workers, func() struct{} { return struct{}{} }, func(_ struct{}, w int) {
		c := make([]int, nDays)
		for _, p := range x.paths[runs[w]:runs[w+1]] {
			p.eachViewDay(func(day int64) {
				if d := day - x.firstDay; d >= 0 && d < int64(nDays) {
					c[d]++
				}
			})
		}
		counts[w] = c
	})
	for d := range nDays {
		dv := x.days[x.firstDay+int64(d)]
		if dv == nil {
			continue
		}
		n := 0
		for w := range workers {
			n, counts[w][d] = n+counts[w][d], n // from here, w's place in the day
		}
		leave(x.mapping, dv.rollup)
		dv.rollup = make([]pathDay, n)
	}
	for day, dv := range x.days {
		if day < x.firstDay || day >= x.endDay {
			leave(x.mapping, dv.rollup)
			dv.rollup = []pathDay{} // no views of it; cannot happen
		}
	}
	onCores(workers, func() struct{} { return struct{}{} }, func(_ struct{}, w int) {
		next := counts[w]
		for pi := runs[w]; pi < runs[w+1]; pi++ {
			x.paths[pi].eachDay(func(day int64, c VisitorCounts) {
				d := day - x.firstDay
				if d < 0 || d >= int64(nDays) {
					return
				}
				dv := x.days[day]
				if dv == nil {
					return
				}
				// #nosec G115 -- a position in paths (below MaxInt32) and counts of one path's views, which 32-bit positions bound
				dv.rollup[next[d]] = pathDay{uint32(pi), uint32(c.Human), uint32(c.AI), uint32(c.Total)}
				next[d]++
			})
		}
	})
}

// eachViewDay calls fn with each day of the path's sealed views, in order,
// as eachDay does, without counting them.
func (p *pathViews) eachViewDay(fn func(day int64)) {
	p.dayRuns(func(day int64, _, _, _, _ int) { fn(day) })
}

// dayRuns calls fn with each day of the path's sealed human and AI views,
// in order, and the positions [hlo, hhi) and [alo, ahi) of that day's
// views of each: one sequential pass over both columns.
func (p *pathViews) dayRuns(fn func(day int64, hlo, hhi, alo, ahi int)) {
	h, a := p.at[Human][:p.sealed[Human]], p.at[AI][:p.sealed[AI]]
	for i, j := 0, 0; i < len(h) || j < len(a); {
		var day int64
		switch {
		case j == len(a) || i < len(h) && h[i] < a[j]:
			day = floorDiv(h[i], msPerDay)
		default:
			day = floorDiv(a[j], msPerDay)
		}
		end := (day + 1) * msPerDay
		hlo, alo := i, j
		for i < len(h) && h[i] < end {
			i++
		}
		for j < len(a) && a[j] < end {
			j++
		}
		fn(day, hlo, i, alo, j)
	}
}

// dayRows are the visitors export's rows of one whole day from its
// rollup, and false when the day has none (views merged since the seal).
func (x *index) dayRows(from, to int64) ([]VisitorRow, bool) {
	if to-from != msPerDay || floorDiv(from, msPerDay)*msPerDay != from {
		return nil, false
	}
	dv := x.days[from/msPerDay]
	if dv == nil || dv.rollup == nil {
		return nil, dv == nil
	}
	rows := make([]VisitorRow, 0, len(dv.rollup))
	for _, r := range dv.rollup {
		if r.total > 0 {
			rows = append(rows, VisitorRow{Path: x.paths[r.path].name, VisitorCounts: VisitorCounts{Human: int(r.human), AI: int(r.ai), Total: int(r.total)}})
		}
	}
	return rows, true
}
