package analytics

import (
	"context"
	"fmt"
	"runtime"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/folio-docs/folio/db"
)

// index holds a site's stored views in memory, column-wise per path and
// class and sorted by time, so a query finds any range of a path with two
// binary searches and counts distinct visitors with a bitset over
// dictionary-encoded visitor ids. It is a cache of the append-only views
// table: before each query it reads the views stored since (by any process),
// so answers are always exact. A query that arrives while the index is
// loading waits for the load (or its own context), never reads a part.
type index struct {
	site int64

	// loading is held (a token in a channel, so a waiter can give up with
	// its context) by the one refresh reading from the database.
	loading chan struct{}
	chunk   int64            // view ids a read covers
	merged  func(upto int64) // test hook, called after each merged chunk
	claimed func(i int)      // test hook, called as a worker takes chunk i

	// current is the newest view id of a finished refresh: queries check it
	// without the lock, so one arriving during a load waits for the loading
	// token (with its context), never on the lock the load holds.
	current atomic.Int64

	mu       sync.RWMutex
	lastView int64 // newest view merged (the load's progress)
	lastPath int64
	paths    []*pathViews
	// pathOf and visitorOf map database ids to positions in paths and to
	// dense visitor ids, each stored plus one (0: not seen); slices indexed
	// by database id cost a fraction of maps when loading millions of views.
	pathOf    []int32
	visitorOf []uint32
	// visitorIDs maps the visitor ids too large for visitorOf: views store
	// a visitor's 63-bit hash as its id (older views, small ids from a
	// dictionary table, stay in the slice).
	visitorIDs map[int64]uint32
	nVisitors  int     // dense visitor ids given so far
	unsorted   []int32 // paths whose views arrived out of time order
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
	return &index{site: site, loading: make(chan struct{}, 1), chunk: loadChunk}
}

// loadChunk is how many view ids one read covers: a few MB of packed text.
const loadChunk = 1 << 18

// refresh brings the index up to date with the database. Views are read
// in id-range chunks on every core and merged in id order as they arrive.
func (x *index) refresh(ctx context.Context, d *db.DB) error {
	upto, err := d.AnalyticsMaxViewID(ctx, x.site)
	if err != nil {
		return err
	}
	if upto <= x.current.Load() {
		return nil
	}
	select {
	case x.loading <- struct{}{}:
	case <-ctx.Done():
		return fmt.Errorf("analytics: waiting for the index to load: %w", ctx.Err())
	}
	defer func() { <-x.loading }()
	// The token's holder is the only writer, so lastView is stable here.
	after := x.lastView
	if upto <= after {
		x.current.Store(after)
		return nil
	}
	// Paths are stored before the views naming them, so reading paths after
	// the newest view id is known finds every path those views use.
	var names []string
	var ids []int64
	err = d.AnalyticsPaths(ctx, x.site, x.lastPath, func(id int64, path string) {
		ids = append(ids, id)
		names = append(names, path)
	})
	if err != nil {
		return err
	}
	x.mu.Lock()
	for i, id := range ids {
		x.pathOf = grow(x.pathOf, id)
		x.pathOf[id] = int32(len(x.paths)) + 1
		x.paths = append(x.paths, &pathViews{name: names[i]})
		x.lastPath = id
	}
	x.mu.Unlock()

	// Workers read chunks ahead of the merge, at most 2 a worker: chunk i
	// may be read once chunk i-window is merged. (A count of chunks in
	// flight is not enough: while a worker that has taken chunk i waits for
	// a place, the chunks after it can take every place, and the merge,
	// waiting for chunk i, frees none.)
	type chunk struct {
		views db.PageViewColumns
		upto  int64
		err   error
	}
	n := int((upto - after + x.chunk - 1) / x.chunk)
	workers := min(runtime.GOMAXPROCS(0), n)
	results := make([]chan chunk, n)
	for i := range results {
		results[i] = make(chan chunk, 1)
	}
	window := 2 * workers
	permits := make([]chan struct{}, n)
	for i := range permits {
		permits[i] = make(chan struct{}, 1)
		if i < window {
			permits[i] <- struct{}{}
		}
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
				if x.claimed != nil {
					x.claimed(i)
				}
				select {
				case <-permits[i]:
				case <-ctx.Done():
					results[i] <- chunk{err: ctx.Err()}
					continue
				}
				lo := after + int64(i)*x.chunk
				hi := min(lo+x.chunk, upto)
				v, err := d.AnalyticsViewColumns(ctx, x.site, lo, hi)
				results[i] <- chunk{views: v, upto: hi, err: err}
			}
		}()
	}
	defer wg.Wait()
	// Readers wait until every chunk is merged and sorted: a half-merged
	// index has paths out of time order, where binary searches go wrong.
	x.mu.Lock()
	defer x.mu.Unlock()
	for i := range n {
		c := <-results[i]
		if i+window < n {
			permits[i+window] <- struct{}{}
		}
		if c.err == nil {
			c.err = x.merge(&c.views, c.upto)
		}
		if c.err != nil {
			cancel()
			x.sortUnsorted()
			return c.err
		}
		if x.merged != nil {
			x.merged(c.upto)
		}
	}
	x.sortUnsorted()
	if n > 1 {
		x.trim()
	}
	x.current.Store(x.lastView)
	return nil
}

// trim (x.mu held) gives back the spare capacity appending left, after a large load:
// a quarter of the index's memory, on average.
func (x *index) trim() {
	for _, p := range x.paths {
		for c := range p.at {
			p.at[c] = clip(p.at[c])
		}
		for c := range p.vis {
			p.vis[c] = clip(p.vis[c])
		}
	}
	x.visitorOf = clip(x.visitorOf)
	x.pathOf = clip(x.pathOf)
}

// clip copies s to a slice of its length when it has much spare capacity.
func clip[T any](s []T) []T {
	if cap(s)-len(s) <= len(s)/8+8 {
		return s
	}
	return append([]T(nil), s...)
}

// merge (x.mu held) appends views, read from the database in id order up to upto.
func (x *index) merge(v *db.PageViewColumns, upto int64) error {
	for i := range v.Len() {
		pid, c := v.PathID[i], v.Class[i]
		if pid <= 0 || pid >= int64(len(x.pathOf)) || x.pathOf[pid] == 0 || c >= uint8(numClasses) {
			return fmt.Errorf("analytics: a page view names an unknown path (%d) or class (%d)", pid, c)
		}
		pi := x.pathOf[pid] - 1
		p := x.paths[pi]
		at := v.At[i]
		if n := len(p.at[c]); n > 0 && p.at[c][n-1] > at && !p.unsorted {
			p.unsorted = true
			x.unsorted = append(x.unsorted, pi)
		}
		p.at[c] = append(p.at[c], at)
		if Class(c).IsVisitor() {
			vid := v.VisitorID[i]
			if vid <= 0 {
				return fmt.Errorf("analytics: a page view names visitor %d", vid)
			}
			var dense uint32
			if vid < smallVisitorIDs {
				x.visitorOf = grow(x.visitorOf, vid)
				if dense = x.visitorOf[vid]; dense == 0 {
					x.nVisitors++
					dense = uint32(x.nVisitors)
					x.visitorOf[vid] = dense
				}
			} else {
				if x.visitorIDs == nil {
					x.visitorIDs = map[int64]uint32{}
				}
				if dense = x.visitorIDs[vid]; dense == 0 {
					x.nVisitors++
					dense = uint32(x.nVisitors)
					x.visitorIDs[vid] = dense
				}
			}
			p.vis[c] = append(p.vis[c], dense-1)
		}
	}
	x.lastView = upto
	return nil
}

// sortUnsorted (x.mu held) puts the views of paths that arrived out of
// order in order, paths shared among the cores.
func (x *index) sortUnsorted() {
	workers := min(runtime.GOMAXPROCS(0), max(1, len(x.unsorted)/64))
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < len(x.unsorted); i += workers {
				x.paths[x.unsorted[i]].sort()
			}
		}()
	}
	wg.Wait()
	x.unsorted = x.unsorted[:0]
}

// smallVisitorIDs bounds the visitor ids kept in a slice (ids of the former
// visitors dictionary); hashes are far above it.
const smallVisitorIDs = 1 << 26

// grow makes s long enough to hold index i, doubling so growth is cheap.
func grow[T any](s []T, i int64) []T {
	if i < int64(len(s)) {
		return s
	}
	return append(s, make([]T, max(i+1, int64(2*len(s)))-int64(len(s)))...)
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
