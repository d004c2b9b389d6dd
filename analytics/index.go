package analytics

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"runtime"
	"runtime/debug"
	"slices"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/RoaringBitmap/roaring/v2"

	"github.com/folio-docs/folio/model"
)

// index holds a site's stored views in memory, column-wise per path and
// class and sorted by time, so a query finds any range of a path with two
// binary searches and counts its distinct visitors from the views' gaps
// (distinct.go; a bitset over dense visitor ids for views not yet sealed).
// Days, weeks and months keep their visitors as bitmaps for the site's
// totals and a chart's buckets, and days their paths' counts (rollup.go).
// It is a cache of the append-only views table: before each query it reads
// the views stored since (by any process), so answers are always exact;
// at start-up it is read from its snapshot (snapshot.go) when one matches. A query that arrives while the index is
// loading waits for the load (or its own context), never reads a part.
type index struct {
	site int64

	// loading is held (a token in a channel, so a waiter can give up with
	// its context) by the one refresh reading from the database.
	loading chan struct{}
	chunk   int64            // view ids a read covers
	merged  func(upto int64) // test hook, called after each merged chunk
	claimed func(i int)      // test hook, called as a worker takes chunk i
	written func()           // test hook, called as rewrite has written the snapshot

	// snapshot is the file the index is saved to and first loaded from
	// ("" for none); savedView is the watermark of the snapshot on disk
	// (the loading token's holder writes it; queries read it to decide
	// whether to save in the background), and an index that
	// has read snapshotMin views beyond it saves again. snapshotErr says
	// why the last snapshot read was not used.
	snapshot    string
	snapshotMin int64
	savedView   atomic.Int64
	snapshotErr error
	saving      atomic.Bool

	// current is the newest view id of a finished refresh: queries check it
	// without the lock, so one arriving during a load waits for the loading
	// token (with its context), never on the lock the load holds. emptied
	// is set while the index holds nothing because rewrite let go of it: a
	// query that got in then reads nothing and asks again (readIndex).
	current atomic.Int64
	emptied atomic.Bool

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
	visitorIDs visitorTable
	nVisitors  int     // dense visitor ids given so far
	unsorted   []int32 // paths whose views arrived out of time order
	// unsealed counts the visitor views appended since the last seal; a
	// refresh seals again once they are sealEvery and a 32nd of the index.
	unsealed      int
	sealEvery     int
	nVisitorViews int
	// days are each UTC day's traffic (key: unix ms / msPerDay), so a
	// chart's buckets are unions of whole days, not sweeps over views.
	days map[int64]*dayTraffic
	// firstDay and endDay bound the days with views: [firstDay, endDay).
	firstDay, endDay int64
	// holding is set while a large load (of holdFrom views or more) holds
	// the days' bitmap additions back (dayTraffic.add), holdMax at most a
	// bitmap, until its merge ends: the scratch they are sorted in, as long
	// as holdMax; nil while none is held.
	holding  []uint32
	holdMax  int
	holdFrom int64
	// sortAlone is how long a path's views out of order are, at least,
	// for sortUnsorted to sort them alone (see there).
	sortAlone int
	// agg are the weeks' and months' visitors, built after the first load.
	agg *aggregates
	// agents are the agents named for the views of every class but
	// Human, referrers where people's views came from (pathViews.origin
	// holds their local ids). When one is lost (more than the index tells
	// apart), the counts of its kind are made in SQL instead.
	agents    dictionary[Agent]
	referrers dictionary[Referral]
	// crawlers maps the visitor ids of crawler views to dense ids plus
	// one, a space of their own (nCrawlers given so far), so the visitors'
	// bitsets stay the size of the visitors.
	crawlers  visitorTable
	nCrawlers int
	// originAgg are the agents' and referrers' days and months
	// (origin_days.go), counted
	// after the first load and kept by merge.
	originAgg *originAggregates
	// mapping holds the snapshot the arrays were read from, if any.
	mapping *snapshotMapping
}

// dayTraffic is one UTC day's distinct visitors (dense ids), human and AI,
// and its page views by class.
type dayTraffic struct {
	visitors [2]*roaring.Bitmap
	views    [numClasses]int
	// paths are the positions (in index.paths) of the paths viewed that
	// day, so a short range looks at those alone, not at every path.
	paths *roaring.Bitmap
	// rollup (see rollup.go) is nil until counted, and after a view of a
	// visitor class is merged into the day until the next seal.
	rollup []pathDay
	// held are the additions to visitors[Human], visitors[AI] and paths
	// that a large load holds back (see add).
	held [3][]uint32
}

// defaultHoldMax is how many additions to one of a day's bitmaps a large
// load holds back before it adds them. Each day keeps a buffer this long
// for each bitmap through the load: at 1<<16, 230 MB of a 100M load's
// peak; at 1<<14, 60 MB, for the same time.
const defaultHoldMax = 1 << 14

// add adds v to the day's bitmap k (Human, AI: its visitors; 2: its
// paths). A large load holds the additions back and adds them in order,
// as many at a time as its scratch holding is long: roaring's Add of one value, into an array container
// at a random place, cost 95 ns where this costs 21 (sorted by radix, built
// into a bitmap of their own, OR-ed in); it was 24 s of the 55 s merge of
// a load of 100M views. Until flushed the bitmaps lack what is held.
func (dv *dayTraffic) add(k int, v uint32, holding []uint32) {
	if holding == nil {
		dv.bitmap(k).Add(v)
		return
	}
	dv.held[k] = append(dv.held[k], v)
	if len(dv.held[k]) == len(holding) {
		dv.flush(k, holding)
	}
}

func (dv *dayTraffic) bitmap(k int) *roaring.Bitmap {
	if k == 2 {
		return dv.paths
	}
	return dv.visitors[k]
}

// flush adds what the day holds back for bitmap k, with scratch at least
// as long, and keeps the buffer for more.
func (dv *dayTraffic) flush(k int, scratch []uint32) {
	vals := dv.held[k]
	if len(vals) == 0 {
		return
	}
	radixSort(vals, scratch[:len(vals)])
	dv.bitmap(k).Or(roaring.BitmapOf(vals...))
	dv.held[k] = vals[:0]
}

// flushHeld (x.mu held) adds every day's held-back additions, lets go of
// the buffers, and ends the holding.
func (x *index) flushHeld() {
	if x.holding == nil {
		return
	}
	for _, dv := range x.days {
		for k := range dv.held {
			dv.flush(k, x.holding)
			dv.held[k] = nil
		}
	}
	x.holding = nil
}

// radixSort sorts a, by bytes from the lowest, through tmp (as long):
// four passes, so the result ends in a.
func radixSort(a, tmp []uint32) {
	for shift := uint(0); shift < 32; shift += 8 {
		var count [257]int
		for _, v := range a {
			count[(v>>shift)&0xff+1]++
		}
		for i := 1; i < len(count); i++ {
			count[i] += count[i-1]
		}
		for _, v := range a {
			d := (v >> shift) & 0xff
			tmp[count[d]] = v
			count[d]++
		}
		a, tmp = tmp, a
	}
}

const msPerDay = 24 * 60 * 60 * 1000

// pathViews are one path's views: times (unix ms) per class and, aligned
// with them, the dense visitor id of each view and its origin.
type pathViews struct {
	name string
	at   [numClasses][]int64
	// vis are the views' visitors: for Human and AI dense ids among the
	// index's visitors, for the crawler classes among its crawlers.
	vis [numClasses][]uint32
	// origin are the views' origins: for Human where the person came from
	// (local ids of index.referrers), for the others their agents (of
	// index.agents).
	origin [numClasses][]uint16
	// inOrder is, per class, how many of its views are in time order (the
	// ones a refresh began with, and those appended in order) once a view
	// arrived out of order; 0 while all are. A path with any is listed in
	// index.unsorted.
	inOrder [numClasses]int
	// gap and other (see distinct.go) cover the first sealed views of
	// each visitor class.
	gap    [2][]uint32
	other  [2]otherViews
	sealed [2]int
}

func newIndex(site int64) *index {
	return &index{site: site, loading: make(chan struct{}, 1), chunk: loadChunk, sealEvery: sealEvery, days: map[int64]*dayTraffic{},
		holdFrom: bigLoad, holdMax: defaultHoldMax, sortAlone: defaultSortAlone, agents: newDictionary[Agent](maxLocalIDs),
		referrers: newDictionary[Referral](maxLocalIDs)}
}

// loadChunk is how many view ids one read covers: a few MB of packed text.
const loadChunk = 1 << 18

// sealEvery is how many visitor views a refresh appends, at least, before
// it seals the paths again (a seal reads every view of the paths touched).
const sealEvery = 1 << 16

// refresh brings the index up to date with the database. Views are read
// in id-range chunks on every core and merged in id order as they arrive.
func (x *index) refresh(ctx context.Context, d Storage) error {
	return x.load(ctx, d, loadOptions{})
}

// loadOptions are what Preload and SaveIndex ask of a refresh.
type loadOptions struct {
	// progress, when set, is told how many of the view ids read from the
	// database are merged so far, of how many.
	progress func(done, total int64)
	// rewriteFrom, when the load leaves the index at least this many views
	// beyond its snapshot on disk (0: never), has the load write the
	// snapshot and start again from it (rewrite).
	rewriteFrom int64
}

// load is refresh, with options.
func (x *index) load(ctx context.Context, d Storage, opt loadOptions) error {
	upto, err := d.AnalyticsMaxViewID(ctx, x.site)
	if err != nil {
		return err
	}
	if upto <= x.current.Load() && !x.emptied.Load() {
		return nil
	}
	if err := x.takeToken(ctx); err != nil {
		return err
	}
	defer x.dropToken()
	if x.current.Load() == 0 && x.lastView == 0 && x.snapshot != "" {
		x.mu.Lock()
		x.snapshotErr = x.readSnapshot(ctx, d, x.snapshot)
		x.savedView.Store(x.lastView)
		if x.snapshotErr == nil {
			x.sealRead()
			debug.FreeOSMemory()
		}
		x.mu.Unlock()
	}
	// The token's holder is the only writer, so lastView is stable here.
	after := x.lastView
	if upto <= after {
		if x.agg == nil {
			x.mu.Lock()
			x.aggregate()
			x.mu.Unlock()
		}
		if x.originAgg == nil {
			x.mu.Lock()
			x.countOrigins()
			x.mu.Unlock()
		}
		x.current.Store(after)
		x.emptied.Store(false)
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
		pos := len(x.paths) + 1
		if pos > math.MaxInt32 {
			x.mu.Unlock()
			return fmt.Errorf("analytics: path %d would be the site's path number %d, past the index's %d", id, pos, math.MaxInt32)
		}
		x.pathOf = grow(x.pathOf, id)
		x.pathOf[id] = int32(pos)
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
		views     model.PageViewColumns
		agents    map[int64]Agent    // the agents the views name
		referrers map[int64]Referral // and their referrers
		upto      int64
		err       error
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
				c := chunk{views: v, upto: hi, err: err}
				if c.err == nil {
					c.agents, c.err = readAgents(ctx, d, idsOf(v.AgentID))
				}
				if c.err == nil {
					c.referrers, c.err = readReferrers(ctx, d, idsOf(v.ReferrerID))
				}
				results[i] <- c
			}
		}()
	}
	defer wg.Wait()
	// Readers wait until every chunk is merged and sorted: a half-merged
	// index has paths out of time order, where binary searches go wrong.
	if upto-after >= bigLoad {
		defer lowerGC()()
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	// A load that writes the snapshot next (rewrite) counts the weeks,
	// months and origins after it: it keeps none meanwhile (at 100M views
	// with 3M to read after a snapshot, adding to the origins was 14 s of
	// the load's 89 s of CPU), and queries wait for it, as for a first
	// load. Cut short, it leaves them to the next refresh, which counts them.
	rewrite := x.snapshot != "" && opt.rewriteFrom > 0 && upto-x.savedView.Load() >= opt.rewriteFrom
	if rewrite {
		x.emptied.Store(true)
		x.current.Store(0)
		x.agg, x.originAgg = nil, nil
	}
	if upto-after >= x.holdFrom {
		x.holding = make([]uint32, x.holdMax)
	}
	for i := range n {
		c := <-results[i]
		if i+window < n {
			permits[i+window] <- struct{}{}
		}
		if c.err == nil {
			c.err = x.merge(&c.views, c.agents, c.referrers, c.upto)
		}
		if c.err != nil {
			cancel()
			x.flushHeld()
			x.sortUnsorted()
			return c.err
		}
		if x.merged != nil {
			x.merged(c.upto)
		}
		if x.mapping != nil {
			x.mapping.release(releaseEvery)
		}
		if opt.progress != nil {
			opt.progress(c.upto-after, upto-after)
		}
	}
	x.flushHeld()
	if n > 1 {
		// Before the sort and the seal, so their scratch and the gaps take
		// the room the spare capacity held (little: at 100M views 30 MB,
		// as clip leaves an eighth spare).
		x.trim()
	}
	x.sortUnsorted()
	// The seal before the origins: the seal's scratch is let go of first.
	if rewrite {
		if err := x.rewrite(ctx, d, upto-after >= bigLoad); err != nil {
			return err
		}
	} else if after == 0 || x.unsealed >= max(x.sealEvery, x.nVisitorViews/32) {
		x.sealAll()
	}
	if x.originAgg == nil {
		x.countOrigins()
	}
	if x.agg == nil {
		x.aggregate()
	}
	if x.mapping != nil {
		x.mapping.release(0)
	}
	if upto-after >= bigLoad {
		// A large load leaves as much garbage as index (the packed columns
		// read, the slices outgrown): give it back to the system now.
		debug.FreeOSMemory()
	}
	x.current.Store(x.lastView)
	x.emptied.Store(false)
	return nil
}

// takeToken waits for the loading token (or ctx): its holder alone
// changes the index or writes its snapshot.
func (x *index) takeToken(ctx context.Context) error {
	select {
	case x.loading <- struct{}{}:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("analytics: waiting for the index to load: %w", ctx.Err())
	}
}

func (x *index) dropToken() { <-x.loading }

// releaseEvery is how many bytes of a snapshot's mapping a load's merge
// leaves before it gives their pages back.
const releaseEvery = 64 << 20

// releaseViews is how many views the merge takes between looks at what it
// has left of the mapping.
const releaseViews = 1 << 12

// bigLoad is a refresh that reads enough views to return memory after it.
const bigLoad = 1 << 20

// loadGCPercent is the collector's GOGC while a large load runs. The
// arrays a load grows hold no pointers, so a collection costs it little;
// at Go's default of 100 the garbage of growing them took the heap to
// twice the index (4.9 GB resident at 100M views; 3.2 GB at 20, 3.0 GB at
// 10, the load 53-56 s either way).
const loadGCPercent = 10

// largeLoads counts the large loads running, and keeps the GOGC the first
// of them lowered, so the last puts it back.
var largeLoads struct {
	sync.Mutex
	n    int
	prev int
}

// lowerGC lowers GOGC to loadGCPercent for a large load, unless the
// process's own setting is lower or off (GOGC=off, with GOMEMLIMIT, is an
// operator's choice), and returns what ends it.
func lowerGC() (restore func()) {
	largeLoads.Lock()
	defer largeLoads.Unlock()
	if largeLoads.n == 0 {
		largeLoads.prev = debug.SetGCPercent(loadGCPercent)
		if largeLoads.prev < loadGCPercent {
			debug.SetGCPercent(largeLoads.prev)
		}
	}
	largeLoads.n++
	return func() {
		largeLoads.Lock()
		defer largeLoads.Unlock()
		if largeLoads.n--; largeLoads.n == 0 {
			debug.SetGCPercent(largeLoads.prev)
		}
	}
}

// behind says whether the index holds enough views beyond its snapshot on
// disk to write it again: a start-up would read them all from the database.
func (x *index) behind() bool {
	return x.snapshot != "" && x.snapshotMin > 0 && x.current.Load()-x.savedView.Load() >= x.snapshotMin
}

// save writes the index's snapshot when it is behind. It takes the
// loading token (so no refresh changes the index meanwhile) and reads
// under the read lock, so queries go on while it writes.
func (x *index) save(ctx context.Context, d Storage) error {
	if x.snapshot == "" {
		return nil
	}
	if err := x.takeToken(ctx); err != nil {
		return err
	}
	defer x.dropToken()
	x.mu.RLock()
	defer x.mu.RUnlock()
	if x.lastView <= x.savedView.Load() {
		return nil
	}
	views := 0
	for _, p := range x.paths {
		for c := range p.at {
			views += len(p.at[c])
		}
	}
	if views >= bigLoad {
		// Writing leaves garbage (roaring's headers, each column's
		// offsets) that Go's default lets grow with the heap: at 100M
		// views 151 MB more at the end of a rebuild's load, 8 MB at
		// loadGCPercent.
		defer lowerGC()()
	}
	if err := x.writeSnapshot(ctx, d, x.snapshot, writeHooks{}); err != nil {
		return err
	}
	x.savedView.Store(x.lastView)
	return nil
}

// rewrite (x.mu held, the loading token held) writes the snapshot of an
// index just loaded from the database and starts again from it, as a
// restart does: each column of every path in one block of the mapping,
// where a load leaves them scattered over the heap by appends (a year's
// export then cost half as much again). The writing lets go of what it
// has written once counting the origins, the file's last part, needs the
// room (letGoOfWritten), and the index read from the database is let go of
// before the snapshot is read back: a rebuild's peak holds the columns
// with the gaps, or with the origins, never both, nor two indexes (holding
// both indexes was 6.0 GB resident at 100M views, the columns, gaps and
// origins together 3.8 GB). large says the load was large (bigLoad).
// Queries find the index empty meanwhile, and wait; if the writing or the
// reading back fails it stays empty, and the next refresh loads it again.
func (x *index) rewrite(ctx context.Context, d Storage, large bool) error {
	x.emptied.Store(true)
	x.current.Store(0)
	cores := runtime.GOMAXPROCS(0)
	if large {
		// The memory the load and the sort let go of is scattered in runs
		// too short for the gaps' arrays: give it back before the seal
		// takes more (at 100M views, 460 MB resident otherwise). The seal,
		// the peak, takes one core's scratch, not each core's.
		debug.FreeOSMemory()
		cores = 1
	}
	// The people's gaps (at 100M views 280 MB) are made again path by path
	// as they are written, not held with the rest.
	x.sealPaths(cores, true)
	last, gaps := make([]uint32, x.nVisitors), []uint32(nil)
	err := x.writeSnapshot(ctx, d, x.snapshot, writeHooks{
		peopleGaps: func(p *pathViews) []uint32 {
			gaps = gapsOf(p.vis[Human], last, reuse(gaps, len(p.vis[Human])))
			return gaps
		},
		beforeOrigins: func() { x.letGoOfWritten(large) },
	})
	lastView := x.lastView
	x.empty()
	debug.FreeOSMemory()
	if err != nil {
		return err
	}
	x.savedView.Store(lastView)
	if x.written != nil {
		x.written()
	}
	if err := x.readSnapshot(ctx, d, x.snapshot); err != nil {
		return fmt.Errorf("analytics: unable to read back the index snapshot just written: %w", err)
	}
	x.sealRead()
	return nil
}

// letGoOfWritten (x.mu held) lets go of what a snapshot's writing has
// written and counting the origins does not need: the gaps, the visitor
// tables, the days' bitmaps; then counts the origins, after a large load
// (large) with that memory given back first. The index is not whole after
// it: only rewrite calls it, which empties the index next.
func (x *index) letGoOfWritten(large bool) {
	for _, p := range x.paths {
		p.gap, p.other, p.sealed = [2][]uint32{}, [2]otherViews{}, [2]int{}
	}
	x.pathOf, x.visitorOf, x.visitorIDs, x.crawlers = nil, nil, visitorTable{}, visitorTable{}
	x.days = nil
	if large {
		debug.FreeOSMemory()
	}
	x.countOrigins()
}

// sealRead (x.mu held) seals the tails of an index just read from its
// snapshot (one saved between seals has them) and counts the days'
// rollups, which a snapshot does not hold; then gives back the mapping's
// pages they read, as readSnapshot gives back those its checks read,
// while none is written. The rollups read the visitors' columns and gaps
// (at 100M views 1 GB resident after a start otherwise), and a start with
// views to read after the snapshot held them beside the copies its merge
// makes of the arrays it appends to.
func (x *index) sealRead() {
	x.sealAll()
	if x.mapping != nil {
		releasePages(x.mapping.data)
	}
}

// empty (x.mu held, the loading token held) lets go of every view and
// path the index holds, keeping its settings and its snapshot's watermark.
func (x *index) empty() {
	x.lastView, x.lastPath = 0, 0
	x.paths, x.pathOf, x.visitorOf, x.visitorIDs, x.nVisitors = nil, nil, nil, visitorTable{}, 0
	x.unsorted, x.unsealed, x.nVisitorViews = nil, 0, 0
	x.days, x.firstDay, x.endDay = map[int64]*dayTraffic{}, 0, 0
	x.agg, x.mapping = nil, nil
	x.agents, x.referrers = newDictionary[Agent](x.agents.max), newDictionary[Referral](x.referrers.max)
	x.crawlers, x.nCrawlers, x.originAgg = visitorTable{}, 0, nil
}

// saveDue says whether the index is far enough beyond its snapshot on disk
// (by snapshotMin views and a 32nd of the index) to write it again: a
// server killed then restarts from it with that much at most to read from
// the database (100M views: a 32nd is ≈ 3M, a few seconds; an eighth
// took 18.5 s).
func (x *index) saveDue() bool {
	cur := x.current.Load()
	return x.behind() && cur-x.savedView.Load() >= cur/32
}

// saveIfDue writes the snapshot when it is due and no other save runs.
func (x *index) saveIfDue(ctx context.Context, d Storage) error {
	if !x.saveDue() || !x.saving.CompareAndSwap(false, true) {
		return nil
	}
	defer x.saving.Store(false)
	return x.save(ctx, d)
}

// saveInBackground starts saveIfDue when a save is due (queries call it),
// so a long-running server restarts from a recent snapshot.
func (x *index) saveInBackground(d Storage) {
	if x.saveDue() {
		go x.saveIfDue(context.Background(), d)
	}
}

// trim (x.mu held) gives back the spare capacity appending left, after a large load:
// a quarter of the index's memory, on average.
func (x *index) trim() {
	for _, p := range x.paths {
		for c := range p.at {
			p.at[c] = clip(p.at[c])
			p.vis[c] = clip(p.vis[c])
			p.origin[c] = clip(p.origin[c])
		}
		for c := range p.gap {
			p.gap[c] = clip(p.gap[c])
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

// readAgents reads the agents of database ids ids.
func readAgents(ctx context.Context, d Storage, ids []int64) (map[int64]Agent, error) {
	named, err := d.AnalyticsAgentsByID(ctx, ids)
	out := make(map[int64]Agent, len(named))
	for id, a := range named {
		out[id] = Agent(a)
	}
	return out, err
}

// readReferrers reads the referrers of database ids ids.
func readReferrers(ctx context.Context, d Storage, ids []int64) (map[int64]Referral, error) {
	named, err := d.AnalyticsReferrersByID(ctx, ids)
	if err != nil {
		return nil, err
	}
	out := make(map[int64]Referral, len(named))
	for id, r := range named {
		ch, ok := ChannelByName(r.Channel)
		if !ok || ch == Direct {
			return nil, fmt.Errorf("analytics: stored referrer %d has the channel %q", id, r.Channel)
		}
		out[id] = Referral{Source: r.Source, Channel: ch, Name: r.Name}
	}
	return out, nil
}

// merge (x.mu held) appends views, read from the database in id order up
// to upto; agents and referrers hold the agents and referrers they name.
func (x *index) merge(v *model.PageViewColumns, agents map[int64]Agent, referrers map[int64]Referral, upto int64) error {
	for i := range v.Len() {
		if x.mapping != nil && i%releaseViews == releaseViews-1 {
			// A chunk of views spread over a year copies most arrays out.
			x.mapping.release(releaseEvery)
		}
		pid, c := v.PathID[i], v.Class[i]
		if pid <= 0 || pid >= int64(len(x.pathOf)) || x.pathOf[pid] == 0 || c >= uint8(numClasses) {
			return fmt.Errorf("analytics: a page view names an unknown path (%d) or class (%d)", pid, c)
		}
		pi := x.pathOf[pid] - 1
		p := x.paths[pi]
		at := v.At[i]
		if n := len(p.at[c]); n > 0 && p.at[c][n-1] > at {
			if p.inOrder == [numClasses]int{} {
				x.unsorted = append(x.unsorted, pi)
			}
			if p.inOrder[c] == 0 {
				p.inOrder[c] = n
			}
			// Sorting the views after the sealed ones keeps the gaps; a
			// view that goes before a sealed one moves them: they are void.
			if Class(c).IsVisitor() && p.sealed[c] > 0 && at < p.at[c][p.sealed[c]-1] {
				x.unsealed += p.sealed[Human] + p.sealed[AI]
				for _, o := range p.other {
					leave(x.mapping, o.pos)
					leave(x.mapping, o.prev)
				}
				p.sealed, p.other = [2]int{}, [2]otherViews{}
			}
		}
		p.at[c] = push(x.mapping, p.at[c], at)
		day := floorDiv(at, msPerDay)
		dv := x.days[day]
		if dv == nil {
			dv = &dayTraffic{visitors: [2]*roaring.Bitmap{roaring.New(), roaring.New()}, paths: roaring.New()}
			x.addDay(day, dv)
		}
		dv.views[c]++
		dv.add(2, uint32(pi), x.holding) // #nosec G115 -- a position in paths: 0 to MaxInt32-1
		var origin uint16
		var err error
		if Class(c) == Human {
			origin, err = x.referrers.local(v.ReferrerID[i], referrers, "referrer")
		} else {
			origin, err = x.agents.local(v.AgentID[i], agents, "agent")
		}
		if err != nil {
			return err
		}
		p.origin[c] = push(x.mapping, p.origin[c], origin)
		if !Class(c).IsVisitor() {
			vid := v.VisitorID[i]
			if vid <= 0 {
				return fmt.Errorf("analytics: a page view names visitor %d", vid)
			}
			dense := x.crawlers.get(vid)
			if dense == 0 {
				var err error
				if dense, err = nextDense(&x.nCrawlers, "crawler visitors"); err != nil {
					return err
				}
				x.crawlers.put(vid, dense)
			}
			p.vis[c] = push(x.mapping, p.vis[c], dense-1)
			if x.originAgg != nil {
				x.originAgg.add(day, originKey{Class(c), origin}, dense-1)
			}
		} else {
			vid := v.VisitorID[i]
			if vid <= 0 {
				return fmt.Errorf("analytics: a page view names visitor %d", vid)
			}
			var dense uint32
			var err error
			if vid < smallVisitorIDs {
				x.visitorOf = grow(x.visitorOf, vid)
				if dense = x.visitorOf[vid]; dense == 0 {
					if dense, err = nextDense(&x.nVisitors, "visitors"); err != nil {
						return err
					}
					x.visitorOf[vid] = dense
				}
			} else if dense = x.visitorIDs.get(vid); dense == 0 {
				if dense, err = nextDense(&x.nVisitors, "visitors"); err != nil {
					return err
				}
				x.visitorIDs.put(vid, dense)
			}
			p.vis[c] = push(x.mapping, p.vis[c], dense-1)
			dv.add(int(c), dense-1, x.holding)
			leave(x.mapping, dv.rollup)
			dv.rollup = nil
			if x.agg != nil {
				x.agg.add(day, Class(c), dense-1)
			}
			if x.originAgg != nil {
				x.originAgg.add(day, originKey{Class(c), origin}, dense-1)
			}
			x.unsealed++
			x.nVisitorViews++
		}
	}
	x.lastView = upto
	return nil
}

// nextDense gives the next dense id (plus one) of a space that has given n:
// dense ids are 32 bits, so the 4,294,967,296th is refused.
func nextDense(n *int, what string) (uint32, error) {
	next := *n + 1
	if next <= 0 || next > math.MaxUint32 {
		return 0, fmt.Errorf("analytics: the site has more than %d %s, the index's most", math.MaxUint32, what)
	}
	*n = next
	return uint32(next), nil
}

// addDay (x.mu held) adds a day's traffic.
func (x *index) addDay(day int64, dv *dayTraffic) {
	if len(x.days) == 0 {
		x.firstDay, x.endDay = day, day+1
	}
	x.days[day] = dv
	x.firstDay, x.endDay = min(x.firstDay, day), max(x.endDay, day+1)
}

// pathsIn is the positions of the paths with views in [from, to), when
// the range spans few days; nil (look at every path) otherwise.
func (x *index) pathsIn(from, to int64) []uint32 {
	from, to = max(from, x.firstDay*msPerDay), min(to, x.endDay*msPerDay)
	if from >= to {
		return []uint32{}
	}
	first, end := floorDiv(from, msPerDay), ceilDiv(to, msPerDay)
	if end-first > maxDaysByPath {
		return nil
	}
	var days []*roaring.Bitmap
	for d := first; d < end; d++ {
		if dv := x.days[d]; dv != nil {
			days = append(days, dv.paths)
		}
	}
	if len(days) == 1 {
		return days[0].ToArray() // no union (FastOr would copy it)
	}
	return roaring.FastOr(days...).ToArray()
}

// maxDaysByPath: beyond a month most paths have views in the range.
const maxDaysByPath = 31

// sortUnsorted (x.mu held) puts the views of paths that arrived out of
// order in order. A sort takes scratch of 16 bytes a view out of order:
// the paths with sortAlone such views or more are sorted one at a time,
// the longest first, on one scratch of its size; the rest shared among the
// cores, each core's scratch grown as it needs. At 100M views the longest
// are millions of views: sorted on two cores at once, each scratch grown
// by appending, they took 770 MB more resident for a moment.
func (x *index) sortUnsorted() {
	type unsorted struct {
		pi   int32
		tail int
	}
	paths := make([]unsorted, len(x.unsorted))
	for i, pi := range x.unsorted {
		paths[i] = unsorted{pi, x.paths[pi].tail()}
	}
	slices.SortFunc(paths, func(a, b unsorted) int { return cmp.Compare(b.tail, a.tail) })
	alone := 0
	for alone < len(paths) && paths[alone].tail >= x.sortAlone {
		alone++
	}
	if alone > 0 {
		scratch := make([]timedView, 0, paths[0].tail)
		for _, u := range paths[:alone] {
			x.paths[u.pi].sort(&scratch)
		}
	}
	rest := paths[alone:]
	onCores(len(rest), func() *[]timedView { return new([]timedView) }, func(scratch *[]timedView, i int) {
		x.paths[rest[i].pi].sort(scratch)
	})
	x.unsorted = x.unsorted[:0]
}

// defaultSortAlone: a million views out of order take 16 MB of scratch.
const defaultSortAlone = 1 << 20

// tail is how many views the longest of the path's classes has from the
// first out of order: how much scratch sorting it takes.
func (p *pathViews) tail() int {
	n := 0
	for c := range numClasses {
		if m := p.inOrder[c]; m > 0 {
			n = max(n, len(p.at[c])-m)
		}
	}
	return n
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

// sort puts each class's views in time order, keeping visitor ids
// aligned, with scratch to sort in: only the views from the first that
// arrived out of order are sorted, then merged with those before them.
func (p *pathViews) sort(scratch *[]timedView) {
	for c := range numClasses {
		m := p.inOrder[c]
		p.inOrder[c] = 0
		if m == 0 {
			continue
		}
		sortTail(p.at[c], p.vis[c], p.origin[c], m, scratch)
	}
}

// timedView is a view as sortTail sorts it.
type timedView struct {
	at    int64
	vis   uint32
	agent uint16
}

// sortTail puts at in time order, keeping vis and agent aligned (agent
// nil for Human), when at[:m] already is: the views from m are sorted as
// (time, visitor) pairs in scratch (through sort.Interface, swapping two
// slices, this cost 11 s of a load of 100M views), then merged in from the
// end, so the views in order move only past those that go before them. A
// server restarted on a snapshot with 3M views to read after it, each
// going somewhere in a year, re-sorted every path whole: 7.8 s.
func sortTail(at []int64, vis []uint32, agent []uint16, m int, scratch *[]timedView) {
	s := (*scratch)[:0]
	for i := m; i < len(at); i++ {
		v := timedView{at: at[i], vis: vis[i]}
		if agent != nil {
			v.agent = agent[i]
		}
		s = append(s, v)
	}
	slices.SortFunc(s, func(a, b timedView) int { return cmp.Compare(a.at, b.at) })
	i, k := m-1, len(at)-1
	for j := len(s) - 1; j >= 0; k-- {
		if i >= 0 && at[i] > s[j].at {
			at[k], vis[k] = at[i], vis[i]
			if agent != nil {
				agent[k] = agent[i]
			}
			i--
			continue
		}
		at[k], vis[k] = s[j].at, s[j].vis
		if agent != nil {
			agent[k] = s[j].agent
		}
		j--
	}
	*scratch = s
}

// span is the positions [lo, hi) of the times in [from, to).
func span(at []int64, from, to int64) (int, int) {
	if n := len(at); n == 0 || at[0] >= from && at[n-1] < to {
		return 0, n // every view (a year's range over a year's views)
	}
	lo := sort.Search(len(at), func(i int) bool { return at[i] >= from })
	hi := lo + sort.Search(len(at)-lo, func(i int) bool { return at[lo+i] >= to })
	return lo, hi
}
