package analytics

import (
	"runtime"
	"sync"
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
	h, a := p.at[Human][:p.sealed[Human]], p.at[AI][:p.sealed[AI]]
	var k [2]int // next entry of each other-class list
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
	}
}

// rollUp (x.mu held, every path sealed) counts every day's rollup, paths
// shared among the cores.
func (x *index) rollUp() {
	workers := min(runtime.GOMAXPROCS(0), max(1, len(x.paths)/64))
	parts := make([]map[int64][]pathDay, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			days := map[int64][]pathDay{}
			for pi := w; pi < len(x.paths); pi += workers {
				x.paths[pi].eachDay(func(day int64, c VisitorCounts) {
					// #nosec G115 -- a position in paths (below MaxInt32) and counts of one path's views, which 32-bit positions bound
					days[day] = append(days[day], pathDay{uint32(pi), uint32(c.Human), uint32(c.AI), uint32(c.Total)})
				})
			}
			parts[w] = days
		}()
	}
	wg.Wait()
	for d, dv := range x.days {
		var lists [][]pathDay
		n := 0
		for _, part := range parts {
			lists = append(lists, part[d])
			n += len(part[d])
		}
		leave(x.mapping, dv.rollup)
		dv.rollup = mergeByPath(lists, n)
		for _, part := range parts {
			delete(part, d) // the worker's list is garbage from here
		}
	}
}

// mergeByPath merges lists each sorted by path into one.
func mergeByPath(lists [][]pathDay, n int) []pathDay {
	out := make([]pathDay, 0, n)
	for len(out) < n {
		best := -1
		for i, l := range lists {
			if len(l) > 0 && (best < 0 || l[0].path < lists[best][0].path) {
				best = i
			}
		}
		out = append(out, lists[best][0])
		lists[best] = lists[best][1:]
	}
	return out
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
