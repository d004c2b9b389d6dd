package analytics

import (
	"context"
	"fmt"
	"sort"
	"sync"

	"github.com/folio-docs/folio/db"
)

// index holds a site's stored views in memory, column-wise per path and
// class and sorted by time, so a query finds any range of a path with two
// binary searches and counts distinct visitors with a bitset over
// dictionary-encoded visitor ids. It is a cache of the append-only views
// table: before each query it reads the views stored since (by any process),
// so answers are always exact.
type index struct {
	site int64

	mu       sync.RWMutex
	lastView int64
	lastPath int64
	pathOf   map[int64]int32 // path id in the database → position in paths
	paths    []*pathViews
	visitor  map[int64]uint32 // visitor id in the database → dense id
	unsorted []int32          // paths whose views arrived out of time order
}

// pathViews are one path's views: times (unix ms) per class and, for the
// visitor classes, the dense visitor id of each view.
type pathViews struct {
	name     string
	at       [numClasses][]int64
	vis      [2][]uint32 // Human, AI; aligned with at[Human], at[AI]
	unsorted bool
}

func newIndex(site int64) *index {
	return &index{site: site, pathOf: map[int64]int32{}, visitor: map[int64]uint32{}}
}

// refresh brings the index up to date with the database.
func (x *index) refresh(ctx context.Context, d *db.DB) error {
	upto, err := d.AnalyticsMaxViewID(ctx, x.site)
	if err != nil {
		return err
	}
	x.mu.RLock()
	current := upto <= x.lastView
	x.mu.RUnlock()
	if current {
		return nil
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if upto <= x.lastView {
		return nil
	}
	// Paths are stored before the views naming them, so reading paths after
	// the newest view id is known finds every path those views use.
	err = d.AnalyticsPaths(ctx, x.site, x.lastPath, func(id int64, path string) {
		x.pathOf[id] = int32(len(x.paths))
		x.paths = append(x.paths, &pathViews{name: path})
		x.lastPath = id
	})
	if err != nil {
		return err
	}
	var missing int64
	err = d.AnalyticsViews(ctx, x.site, x.lastView, upto, func(v db.PageView) {
		pi, ok := x.pathOf[v.PathID]
		if !ok || v.Class >= uint8(numClasses) {
			missing = v.ID
			return
		}
		p := x.paths[pi]
		c := v.Class
		if n := len(p.at[c]); n > 0 && p.at[c][n-1] > v.At && !p.unsorted {
			p.unsorted = true
			x.unsorted = append(x.unsorted, pi)
		}
		p.at[c] = append(p.at[c], v.At)
		if Class(c).IsVisitor() {
			id, ok := x.visitor[v.VisitorID]
			if !ok {
				id = uint32(len(x.visitor))
				x.visitor[v.VisitorID] = id
			}
			p.vis[c] = append(p.vis[c], id)
		}
	})
	if err != nil {
		return err
	}
	if missing != 0 {
		return fmt.Errorf("analytics: page view %d names an unknown path or class", missing)
	}
	x.lastView = upto
	for _, pi := range x.unsorted {
		x.paths[pi].sort()
	}
	x.unsorted = x.unsorted[:0]
	return nil
}

// sort puts each class's views in time order, keeping visitor ids aligned.
func (p *pathViews) sort() {
	for c := range numClasses {
		if c.IsVisitor() {
			sort.Sort(byTime{p.at[c], p.vis[c]})
		} else {
			sort.Slice(p.at[c], func(i, j int) bool { return p.at[c][i] < p.at[c][j] })
		}
	}
	p.unsorted = false
}

type byTime struct {
	at  []int64
	vis []uint32
}

func (b byTime) Len() int           { return len(b.at) }
func (b byTime) Less(i, j int) bool { return b.at[i] < b.at[j] }
func (b byTime) Swap(i, j int) {
	b.at[i], b.at[j] = b.at[j], b.at[i]
	b.vis[i], b.vis[j] = b.vis[j], b.vis[i]
}

// span is the positions [lo, hi) of the times in [from, to).
func span(at []int64, from, to int64) (int, int) {
	lo := sort.Search(len(at), func(i int) bool { return at[i] >= from })
	hi := lo + sort.Search(len(at)-lo, func(i int) bool { return at[lo+i] >= to })
	return lo, hi
}
