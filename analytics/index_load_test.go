package analytics

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/folio-docs/folio/db"
)

// checkExact compares the visitors and views exports of a project with a
// brute-force count over the stored views, and the agents export and each
// agent's pages with the same counted in SQL, for a few ranges.
func checkExact(t *testing.T, s *Service, project string, start time.Time) {
	t.Helper()
	ctx := context.Background()
	views := readStored(t, s.db.(*db.DB), project)
	for _, r := range []struct{ from, to *time.Time }{
		{nil, nil},
		{ptr(start.AddDate(0, 0, 3)), ptr(start.AddDate(0, 0, 4))},
		{ptr(start.Add(30*time.Hour + 123*time.Millisecond)), nil},
	} {
		wantRows, wantTotals, wantViews, wantViewTotals := views.count(Query{From: r.from, To: r.to})
		v, err := s.Visitors(ctx, project, Query{From: r.from, To: r.to, Limit: MaxLimit})
		if err != nil {
			t.Fatal(err)
		}
		if v.Totals != wantTotals || !slices.Equal(v.Visitors, wantRows[:min(MaxLimit, len(wantRows))]) {
			t.Fatalf("visitors %v..%v: totals %+v, brute force %+v (or rows differ)", r.from, r.to, v.Totals, wantTotals)
		}
		w, err := s.Views(ctx, project, Query{From: r.from, To: r.to, Limit: MaxLimit})
		if err != nil {
			t.Fatal(err)
		}
		if w.Totals != wantViewTotals || !slices.Equal(w.Views, wantViews[:min(MaxLimit, len(wantViews))]) {
			t.Fatalf("views %v..%v: totals %+v, brute force %+v (or rows differ)", r.from, r.to, w.Totals, wantViewTotals)
		}
		checkAgents(t, s, project, Query{From: r.from, To: r.to})
	}
}

// checkAgents compares the agents export of a project, and the pages of
// each agent, with the same counted in SQL over the stored views.
func checkAgents(t *testing.T, s *Service, project string, q Query) {
	t.Helper()
	ctx := context.Background()
	site, err := s.db.AnalyticsSiteID(ctx, project)
	if err != nil {
		t.Fatal(err)
	}
	from, to := q.bounds()
	counts, err := s.db.AnalyticsAgentCounts(ctx, site, from, to, "")
	if err != nil {
		t.Fatal(err)
	}
	want := []AgentRow{}
	for _, c := range counts {
		want = append(want, agentRow(Agent(c.Agent), Class(c.Class), c.Views, c.Visitors))
	}
	slices.SortFunc(want, compareAgentRows)
	q.Limit = MaxLimit
	got, err := s.Agents(ctx, project, q, "")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.EqualFunc(got.Agents, want, func(a, b AgentRow) bool { return compareAgentRows(a, b) == 0 && a.Views == b.Views }) {
		t.Fatalf("agents %v..%v: %+v, counted in SQL %+v", q.From, q.To, got.Agents, want)
	}
	for _, a := range want {
		c, _ := ParseClass(a.Class)
		name := a.Name
		if UnnamedAgent(c).Name == name {
			name = ""
		}
		counts, err := s.db.AnalyticsAgentPathCounts(ctx, site, from, to, name, uint8(c))
		if err != nil {
			t.Fatal(err)
		}
		want := []AgentPageRow{}
		for _, n := range counts {
			want = append(want, AgentPageRow{Path: n.Path, Views: n.Views, Visitors: n.Visitors})
		}
		slices.SortFunc(want, func(a, b AgentPageRow) int {
			return cmp.Or(b.Visitors-a.Visitors, b.Views-a.Views, strings.Compare(a.Path, b.Path))
		})
		got, err := s.AgentPages(ctx, project, q, a.Name, c)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got.Pages, want[:min(len(want), MaxLimit)]) || got.HasMore != (len(want) > MaxLimit) {
			t.Fatalf("pages of %s (%s) %v..%v: %+v, counted in SQL %+v", a.Name, a.Class, q.From, q.To, got, want)
		}
	}
}

// TestPreloadInChunksIsExact loads an index in many small chunks read on
// every core, as a large site loads at start-up, then keeps it current;
// once adding to the days' visitor and path bitmaps at once, and once
// holding the additions back as large loads do (a few hundred at a time,
// so most days add theirs several times before the load ends), and
// sorting the paths with 20 views out of order or more alone, as large
// loads sort those with a million.
func TestPreloadInChunksIsExact(t *testing.T) {
	for _, hold := range []int{0, 300} {
		t.Run(fmt.Sprintf("hold %d", hold), func(t *testing.T) { testPreloadInChunks(t, hold) })
	}
}

func testPreloadInChunks(t *testing.T, hold int) {
	s, d, project := newTestService(t)
	start := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	cfg := GenConfig{Views: 20000, Paths: 300, Visitors: 2000, From: start, To: start.AddDate(0, 0, 10), Seed: 3}
	record(t, s, project, cfg)

	fresh := NewService(d, s.cls)
	fresh.loadChunk = 777
	fresh.holdMax = hold
	if hold > 0 {
		fresh.sortAlone = 20
	}
	chunks := 0
	fresh.merged = func(int64) { chunks++ }
	if _, err := fresh.Preload(context.Background()); err != nil {
		t.Fatal(err)
	}
	if chunks < 20 {
		t.Fatalf("the load merged %d chunks, want many", chunks)
	}
	checkExact(t, fresh, project, start)
	// Views stored after the load are read by the next query.
	cfg.Seed, cfg.Views = 4, 3000
	record(t, fresh, project, cfg)
	checkExact(t, fresh, project, start)
}

// TestSlowFirstChunkDoesNotStallTheLoad: the worker that takes the first
// chunk is held while the other reads ahead; the load must still finish
// (it once waited forever: the chunks read ahead took every place, and the
// first chunk, which the merge waits for, could not get one).
func TestSlowFirstChunkDoesNotStallTheLoad(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		t.Skip("needs two workers")
	}
	s, d, project := newTestService(t)
	start := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	cfg := GenConfig{Views: 5000, Paths: 100, Visitors: 500, From: start, To: start.AddDate(0, 0, 10), Seed: 6}
	record(t, s, project, cfg)

	fresh := NewService(d, s.cls)
	fresh.loadChunk = 200
	// Chunk 0 is held until the others have read ahead as far as they may:
	// a worker has taken chunk window (2 a worker), which waits for chunk 0.
	window := 2 * min(runtime.GOMAXPROCS(0), int((int64(cfg.Views)+fresh.loadChunk-1)/fresh.loadChunk))
	readAhead := make(chan struct{})
	var once sync.Once
	fresh.claimed = func(i int) {
		switch {
		case i == 0:
			select {
			case <-readAhead:
			case <-time.After(10 * time.Second):
				t.Error("no worker read ahead to chunk", window, "while chunk 0 was held")
			}
		case i >= window:
			once.Do(func() { close(readAhead) })
		}
	}
	loaded := make(chan error, 1)
	go func() { _, err := fresh.Preload(context.Background()); loaded <- err }()
	select {
	case err := <-loaded:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the load stalled behind its slow first chunk")
	}
	checkExact(t, fresh, project, start)
}

// TestQueryDuringLoadWaits holds a load after its first chunk and queries
// meanwhile: the query waits and answers from every view, and a query whose
// context ends first fails rather than answer from part of them.
func TestQueryDuringLoadWaits(t *testing.T) {
	s, d, project := newTestService(t)
	start := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	record(t, s, project, GenConfig{Views: 10000, Paths: 200, Visitors: 1000, From: start, To: start.AddDate(0, 0, 10), Seed: 5})

	fresh := NewService(d, s.cls)
	fresh.loadChunk = 1000
	first, release := make(chan struct{}), make(chan struct{})
	merges := 0
	fresh.merged = func(int64) {
		if merges++; merges == 1 {
			close(first)
			<-release
		}
	}
	loaded := make(chan error, 1)
	go func() { _, err := fresh.Preload(context.Background()); loaded <- err }()
	<-first

	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if _, err := fresh.Visitors(ctx, project, Query{Limit: 10}); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a query whose context ended during the load: %v, want context.DeadlineExceeded", err)
	}
	type answer struct {
		v   Visitors
		err error
	}
	got := make(chan answer, 1)
	go func() {
		v, err := fresh.Visitors(context.Background(), project, Query{Limit: MaxLimit})
		got <- answer{v, err}
	}()
	close(release)
	a := <-got
	if err := <-loaded; err != nil {
		t.Fatal(err)
	}
	if a.err != nil {
		t.Fatal(a.err)
	}
	_, want, _, _ := bruteForce(t, d, project, Query{})
	if a.v.Totals != want {
		t.Fatalf("query during the load: totals %+v, brute force %+v", a.v.Totals, want)
	}
	checkExact(t, fresh, project, start)
}

// TestReaderNeverSeesHalfMergedIndex reads the index while a refresh of
// new views is between chunks: the reader must see it before or after the
// refresh, never in between (paths half-merged are out of time order).
func TestReaderNeverSeesHalfMergedIndex(t *testing.T) {
	s, _, project := newTestService(t)
	s.loadChunk = 500
	start := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	ctx := context.Background()
	record(t, s, project, GenConfig{Views: 2000, Paths: 50, Visitors: 300, From: start, To: start.AddDate(0, 0, 5), Seed: 6})
	if _, err := s.Visitors(ctx, project, Query{Limit: 1}); err != nil {
		t.Fatal(err)
	}
	st, err := s.site(ctx, project, false)
	if err != nil {
		t.Fatal(err)
	}
	x := st.idx
	record(t, s, project, GenConfig{Views: 4000, Paths: 50, Visitors: 300, From: start, To: start.AddDate(0, 0, 5), Seed: 7})
	var observed chan int64
	x.merged = func(int64) {
		if observed != nil {
			return
		}
		observed = make(chan int64, 1)
		reading := make(chan struct{})
		go func() {
			close(reading)
			x.mu.RLock()
			defer x.mu.RUnlock()
			observed <- x.lastView
		}()
		// The reader is on its way to the lock before the next chunk (it must
		// not get in until the refresh is done).
		<-reading
		runtime.Gosched()
	}
	if _, err := s.Visitors(ctx, project, Query{Limit: 1}); err != nil {
		t.Fatal(err)
	}
	if observed == nil {
		t.Fatal("the refresh merged no chunk")
	}
	if got := <-observed; got != x.lastView {
		t.Fatalf("a reader saw the index up to view %d during a refresh to %d", got, x.lastView)
	}
	checkExact(t, s, project, start)
}

func TestRadixSort(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 2, 255, 256, 1000, 1 << 16} {
		a := make([]uint32, n)
		for i := range a {
			a[i] = r.Uint32() >> (i % 32) // every byte position varies
		}
		want := slices.Clone(a)
		slices.Sort(want)
		radixSort(a, make([]uint32, n))
		if !slices.Equal(a, want) {
			t.Fatalf("radixSort of %d values is out of order", n)
		}
	}
}

// TestSortTail: views in order up to m, then any, come out in time order
// with each view's visitor and agent still beside its time, whatever m,
// with and without agents (a person's views have none), ties at one
// instant included.
func TestSortTail(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{1, 2, 50, 3000} {
		for _, m := range []int{0, 1, n / 2, n - 1, n} {
			at := make([]int64, n)
			vis := make([]uint32, n)
			agent := make([]uint16, n)
			for i := range at {
				at[i] = r.Int64N(int64(n)) // ties
				vis[i] = r.Uint32()
				agent[i] = uint16(r.UintN(5))
			}
			slices.Sort(at[:m])
			views := func(at []int64, vis []uint32, agent []uint16) []timedView {
				p := make([]timedView, n)
				for i := range at {
					p[i] = timedView{at: at[i], vis: vis[i]}
					if agent != nil {
						p[i].agent = agent[i]
					}
				}
				slices.SortFunc(p, func(a, b timedView) int {
					return cmp.Or(cmp.Compare(a.at, b.at), cmp.Compare(a.vis, b.vis), cmp.Compare(a.agent, b.agent))
				})
				return p
			}
			want, wantPeople := views(at, vis, agent), views(at, vis, nil)
			at2, vis2 := slices.Clone(at), slices.Clone(vis)
			var scratch []timedView
			sortTail(at, vis, agent, m, &scratch)
			sortTail(at2, vis2, nil, m, &scratch)
			if !slices.IsSorted(at) || !slices.Equal(views(at, vis, agent), want) {
				t.Fatalf("sortTail of %d views in order up to %d: %v", n, m, at[:min(n, 20)])
			}
			if !slices.IsSorted(at2) || !slices.Equal(views(at2, vis2, nil), wantPeople) {
				t.Fatalf("sortTail of %d views without agents in order up to %d: %v", n, m, at2[:min(n, 20)])
			}
		}
	}
}

// TestLowerGCNests: overlapping large loads lower GOGC once and the last
// to end puts back the process's own; a lower or disabled one is kept.
func TestLowerGCNests(t *testing.T) {
	gogc := func() int { v := debug.SetGCPercent(100); debug.SetGCPercent(v); return v }
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	a := lowerGC()
	b := lowerGC()
	if got := gogc(); got != loadGCPercent {
		t.Fatalf("during two loads GOGC is %d, want %d", got, loadGCPercent)
	}
	a()
	if got := gogc(); got != loadGCPercent {
		t.Fatalf("after the first of two loads GOGC is %d, want %d", got, loadGCPercent)
	}
	b()
	if got := gogc(); got != 100 {
		t.Fatalf("after both loads GOGC is %d, want 100", got)
	}
	for _, own := range []int{-1, 10} {
		debug.SetGCPercent(own)
		restore := lowerGC()
		if got := gogc(); got != own {
			t.Errorf("with GOGC %d a load set it to %d", own, got)
		}
		restore()
	}
}
