package analytics

import (
	"runtime/debug"
	"slices"

	"github.com/RoaringBitmap/roaring/v2"
)

// agentBatchDays is how many days countAgents buckets at a time: a
// quarter's visitors of one class (at 100M views a year, 30 MB).
const agentBatchDays = 92

// agentBuckets bounds the buckets (days × agents) of a batch.
const agentBuckets = 1 << 16

// Each UTC day, and each calendar month, keeps every agent's views and
// visitors (a bitmap of dense ids in its class's space), so the agents of
// a long range are the unions of a dozen months and a few days per agent,
// not a pass over every view of the range with a set per agent (a year of
// 100M views: 30M views, each a cache miss in a set of millions). They are
// counted from the paths' columns after a load and kept by merge; the
// snapshot does not hold them.

// agentKey is an agent (its local id) within a class.
type agentKey struct {
	class Class
	agent uint16
}

// agentTraffic is an agent's views in a day or a month, and its visitors.
type agentTraffic struct {
	views    int
	visitors *roaring.Bitmap
}

// agentAggregates are the agents' traffic by day and by month (key: the
// unix day, of the month's first day for months).
type agentAggregates struct {
	days, months map[int64]map[agentKey]*agentTraffic
}

// add (x.mu held) records a view of agent k by visitor v (dense, in k's
// class's space) on day d.
func (a *agentAggregates) add(d int64, k agentKey, v uint32) {
	for _, m := range []struct {
		set map[int64]map[agentKey]*agentTraffic
		key int64
	}{{a.days, d}, {a.months, monthOf(d)}} {
		byAgent := m.set[m.key]
		if byAgent == nil {
			byAgent = map[agentKey]*agentTraffic{}
			m.set[m.key] = byAgent
		}
		t := byAgent[k]
		if t == nil {
			t = &agentTraffic{visitors: roaring.New()}
			byAgent[k] = t
		}
		t.views++
		t.visitors.Add(v)
	}
}

// countAgents (x.mu held) counts the agents' days and months from every
// path's views: the classes shared among the cores, each class read a
// quarter at a time (a cursor per path, so each path is looked at a few
// times, not once a day), its visitors bucketed by day and agent in
// slices, then sorted and made bitmaps.
func (x *index) countAgents() {
	agg := &agentAggregates{days: map[int64]map[agentKey]*agentTraffic{}, months: map[int64]map[agentKey]*agentTraffic{}}
	if len(x.days) == 0 {
		x.agentAgg = agg
		return
	}
	n := 0
	for _, p := range x.paths {
		for c := AI; c < numClasses; c++ {
			n += len(p.at[c])
		}
	}
	if n >= bigLoad {
		// The buckets' garbage would reach the size of the live heap
		// before a collection at Go's default (+400 MB at 100M views).
		defer lowerGC()()
	}
	classes := []Class{AI, Bot, AITraining, AISearch} // the largest first
	type dayAgent struct {
		day int64
		key agentKey
	}
	type dayTraffic struct {
		dayAgent
		*agentTraffic
	}
	nA := len(x.agents)
	results := make([][]dayTraffic, len(classes))
	onCores(len(classes), func() []uint32 { return nil }, func(scratch []uint32, i int) {
		c := classes[i]
		var out []dayTraffic
		cursor := make([]int32, len(x.paths))
		var buckets [][]uint32 // day within the batch × agent
		// A site of many agents buckets fewer days at a time.
		batch := int64(max(1, min(agentBatchDays, agentBuckets/nA)))
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
				at, vis, agent := p.at[c], p.vis[c], p.agent[c]
				k := int(cursor[pi])
				for ; k < len(at) && at[k] < end*msPerDay; k++ {
					b := int(floorDiv(at[k], msPerDay)-first)*nA + int(agent[k])
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
				out = append(out, dayTraffic{dayAgent{first + int64(b/nA), agentKey{c, uint16(b % nA)}}, // #nosec G115 -- b % nA is below nA, the agents' count (at most 65,536)
					&agentTraffic{views: len(v), visitors: roaring.BitmapOf(v...)}})
			}
		}
		results[i] = out
	})
	months := map[int64]map[agentKey][]*agentTraffic{}
	for _, out := range results {
		for _, dt := range out {
			byAgent := agg.days[dt.day]
			if byAgent == nil {
				byAgent = map[agentKey]*agentTraffic{}
				agg.days[dt.day] = byAgent
			}
			byAgent[dt.key] = dt.agentTraffic
			m := monthOf(dt.day)
			if months[m] == nil {
				months[m] = map[agentKey][]*agentTraffic{}
			}
			months[m][dt.key] = append(months[m][dt.key], dt.agentTraffic)
		}
	}
	type monthAgent struct {
		month int64
		key   agentKey
	}
	var keys []monthAgent
	for m, byAgent := range months {
		for k := range byAgent {
			keys = append(keys, monthAgent{m, k})
		}
	}
	unions := make([]*agentTraffic, len(keys))
	onCores(len(keys), func() struct{} { return struct{}{} }, func(_ struct{}, i int) {
		days := months[keys[i].month][keys[i].key]
		u := &agentTraffic{}
		bs := make([]*roaring.Bitmap, len(days))
		for k, t := range days {
			u.views += t.views
			bs[k] = t.visitors
		}
		u.visitors = roaring.FastOr(bs...)
		unions[i] = u
	})
	for i, k := range keys {
		if agg.months[k.month] == nil {
			agg.months[k.month] = map[agentKey]*agentTraffic{}
		}
		agg.months[k.month][k.key] = unions[i]
	}
	x.agentAgg = agg
	if n >= bigLoad {
		// The buckets of millions of views are garbage now: give their
		// memory back (at 100M views, 400 MB resident otherwise).
		debug.FreeOSMemory()
	}
}

// agentsOfDays (x.mu held for reading) adds to views and visitors the
// agents' traffic of the whole days [first, end): months inside it, then
// days.
func (x *index) agentsOfDays(first, end int64, views map[agentKey]int, visitors map[agentKey][]*roaring.Bitmap) {
	for d := first; d < end; {
		byAgent, step := x.agentAgg.days[d], int64(1)
		if m := monthOf(d); m == d && nextMonth(m) <= end {
			byAgent, step = x.agentAgg.months[m], nextMonth(m)-d
		}
		for k, t := range byAgent {
			views[k] += t.views
			visitors[k] = append(visitors[k], t.visitors)
		}
		d += step
	}
}
