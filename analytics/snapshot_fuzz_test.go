package analytics

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"runtime/metrics"
	"strings"
	"testing"
	"time"

	"github.com/RoaringBitmap/roaring/v2"

	"github.com/folio-docs/folio/db"
	"github.com/folio-docs/folio/model"
)

// heapAllocated is the bytes allocated on the heap so far, by the whole
// process (the fuzz worker runs one input at a time).
func heapAllocated() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// withHeader is b with its header's body length and checksum made right
// (b as it is when shorter than a header), so a changed body is read as far
// as its own checks go, not refused for its checksum.
func withHeader(b []byte) []byte {
	if len(b) < snapshotHeader {
		return b
	}
	b = append([]byte(nil), b...)
	binary.LittleEndian.PutUint64(b[16:], uint64(len(b)-snapshotHeader))
	binary.LittleEndian.PutUint64(b[24:], uint64(crc32.Checksum(b[snapshotHeader:], crcTable)))
	return b
}

// snapshotWorld is where FuzzReadSnapshot reads its snapshots: a database
// with one site, whose snapshot the code wrote after the first views, and
// views stored after it (so a snapshot that is used has views appended to
// its arrays, as at a restart), and the answers the views give.
type snapshotWorld struct {
	d       *db.DB
	cls     *Classifier
	project string
	site    int64
	path    string // where the site's snapshot is read from
	good    []byte // the snapshot the code wrote
	views   int64  // views stored
	want    string // every answer, from the views alone
	// rebuildAlloc is what a start from the database alone allocates,
	// its answers included.
	rebuildAlloc uint64
}

// Views in the fuzz world's database: before the snapshot, and after it.
const (
	fuzzSnapViews  = 400
	fuzzLaterViews = 60
)

func newSnapshotWorld(t testing.TB) *snapshotWorld {
	t.Helper()
	s, d, project := newTestService(t)
	ctx := context.Background()
	cfg := GenConfig{Views: fuzzSnapViews, Paths: 12, Visitors: 90, From: snapStart, To: snapStart.AddDate(0, 0, 40), Seed: 27}
	record(t, s, project, cfg)
	saved, err := NewService(d, s.cls).SaveIndex(ctx, project, nil)
	if err != nil || saved.Path == "" {
		t.Fatalf("SaveIndex: %+v, %v", saved, err)
	}
	cfg.Views, cfg.Seed = fuzzLaterViews, 28
	record(t, s, project, cfg)
	good, err := os.ReadFile(saved.Path)
	if err != nil {
		t.Fatal(err)
	}
	site, err := d.AnalyticsSiteID(ctx, project)
	if err != nil {
		t.Fatal(err)
	}
	w := &snapshotWorld{d: d, cls: s.cls, project: project, site: site, path: saved.Path, good: good, views: fuzzSnapViews + fuzzLaterViews}

	// The answers from the views alone, and what that start allocates.
	if err := os.Remove(w.path); err != nil {
		t.Fatal(err)
	}
	_, want, read, alloc, why := w.start(t)
	if read != w.views || why == nil {
		t.Fatalf("without its snapshot the start read %d views of %d (snapshot: %v)", read, w.views, why)
	}
	w.want, w.rebuildAlloc = want, alloc
	// The snapshot the code wrote is used, and gives the same answers.
	if err := os.WriteFile(w.path, good, 0o600); err != nil {
		t.Fatal(err)
	}
	_, got, read, _, why := w.start(t)
	if why != nil || read != fuzzLaterViews {
		t.Fatalf("the snapshot written was not used: %v (read %d views)", why, read)
	}
	if got != w.want {
		t.Fatalf("from the snapshot:\n%s\nfrom the views:\n%s", got, w.want)
	}
	return w
}

// start starts a service on the world's database, as serve does
// (Preload), and asks it every answer: it returns the service, the
// answers, how many views the load read from the database, the bytes the
// load and the answers allocated, and why it did not use the snapshot (nil
// when it did). A start that has not answered after a minute fails
// the test.
func (w *snapshotWorld) start(t testing.TB) (s *Service, answers string, read int64, alloc uint64, why error) {
	t.Helper()
	type result struct {
		answers string
		load    IndexLoad
		err     error
		alloc   uint64
	}
	s = NewService(w.d, w.cls)
	s.snapshotMin = 0 // never writes the snapshot back: every input is read as given
	done := make(chan result, 1)
	go func() {
		var r result
		before := heapAllocated()
		loads, err := s.Preload(context.Background())
		switch {
		case err != nil:
			r.err = fmt.Errorf("the load failed: %w", err)
		case len(loads) != 1:
			r.err = fmt.Errorf("Preload reported %+v, want one load", loads)
		default:
			r.load = loads[0]
			r.answers, r.err = w.answers(s)
		}
		r.alloc = heapAllocated() - before
		done <- r
	}()
	var r result
	select {
	case r = <-done:
	case <-time.After(time.Minute):
		t.Fatal("the start did not answer within a minute")
	}
	if r.err != nil {
		t.Fatal(r.err)
	}
	return s, r.answers, r.load.Read, r.alloc, r.load.Snapshot
}

// answers is every answer the service gives about the world's project
// that the index makes, as JSON: the exports over a few ranges, each
// agent's pages, the chart's series, the daily report, the views' totals
// and the first view.
func (w *snapshotWorld) answers(s *Service) (string, error) {
	ctx := context.Background()
	var out []any
	var errs []error
	add := func(v any, err error) {
		out, errs = append(out, v), append(errs, err)
	}
	day := snapStart.AddDate(0, 0, 3)
	for _, q := range []Query{
		{},
		{From: ptr(day), To: ptr(day.AddDate(0, 0, 1))},
		{From: ptr(snapStart.Add(30*time.Hour + 123*time.Millisecond))},
		{From: ptr(snapStart.AddDate(0, 0, 2)), To: ptr(snapStart.AddDate(0, 0, 33))},
	} {
		q.Limit = MaxLimit
		add(s.Visitors(ctx, w.project, q))
		add(s.Views(ctx, w.project, q))
		agents, err := s.Agents(ctx, w.project, q, "")
		add(agents, err)
		add(s.Agents(ctx, w.project, q, "/"))
		for _, a := range agents.Agents {
			c, _ := ParseClass(a.Class)
			add(s.AgentPages(ctx, w.project, q, a.Name, c))
		}
	}
	from, to := snapStart.AddDate(0, 0, -1), snapStart.AddDate(0, 0, 41)
	for _, u := range []Unit{Day, Week, Month} {
		add(s.VisitorSeries(ctx, w.project, Query{From: &from, To: &to, Limit: 10}, u, true))
		add(s.Report(ctx, w.project, Query{From: &from, To: &to, Limit: 10}, u, false))
	}
	add(s.ViewTotals(ctx, w.project, Query{From: &from, To: &to}))
	first, ok, err := s.FirstView(ctx, w.project)
	add([]any{first, ok}, err)
	if err := errors.Join(errs...); err != nil {
		return "", err
	}
	b, err := json.Marshal(out)
	return string(b), err
}

// snapshotPrefix is the header, the database's fingerprint and the
// watermark: what a snapshot of this database and site must begin with.
const snapshotPrefix = snapshotHeader + 8 + 32 + 8*8

// FuzzReadSnapshot: any bytes in a site's snapshot file, as they are, with
// the header's length and checksum made to fit them (so a hostile body
// reaches the arrays), and after the real header, fingerprint and
// watermark, never panic, hang or allocate out of proportion to the file,
// whether read alone or by a start as serve's. A
// file refused is refused with a reason of the index snapshot's own, and
// the start rebuilds the index from the database: every answer as the
// views give it. A file used answers every export within the time, and
// takes new views. The corpus starts from a real snapshot, cut short and
// with bits flipped, and one of version 3.
func FuzzReadSnapshot(f *testing.F) {
	ctx := context.Background()
	w := newSnapshotWorld(f)
	good := w.good
	f.Add(good)
	for _, n := range []int{0, 7, snapshotHeader - 1, snapshotHeader, snapshotHeader + 32, len(good) / 3, len(good) / 2, len(good) - 8, len(good) - 1} {
		f.Add(good[:n])
	}
	for _, at := range []int{0, 8, 12, 16, 24, snapshotHeader + 40, snapshotHeader + 80, snapshotHeader + 128, len(good) / 4, len(good) / 2, 3 * len(good) / 4, len(good) - 1} {
		for _, bit := range []byte{0x01, 0x80} {
			b := append([]byte(nil), good...)
			b[at] ^= bit
			f.Add(b)
		}
	}
	if old, err := os.ReadFile("testdata/snapshot-v3/folio.db" + snapshotSuffix(1)); err == nil {
		f.Add(old)
	}

	to := snapStart.AddDate(0, 0, 41)
	f.Fuzz(func(t *testing.T, b []byte) {
		// Most changes land in the arrays, but one that moves them (a
		// byte put in or taken out) stops at the database's fingerprint or
		// the watermark before them: the third file keeps the real ones,
		// so the rest of b reaches the arrays.
		kept := append(append([]byte(nil), good[:snapshotPrefix]...), b[min(len(b), snapshotPrefix):]...)
		for _, data := range [][]byte{b, withHeader(b), withHeader(kept)} {
			if err := os.WriteFile(w.path, data, 0o600); err != nil {
				t.Fatal(err)
			}
			x := newIndex(w.site)
			before := heapAllocated()
			err := x.readSnapshot(ctx, w.d, w.path)
			if grew := heapAllocated() - before; grew > 8*uint64(len(data))+16<<20 {
				t.Fatalf("reading a snapshot of %d bytes allocated %d", len(data), grew)
			}
			if err != nil && !strings.HasPrefix(err.Error(), "analytics: ") {
				t.Fatalf("refused without a reason of the snapshot's own: %v", err)
			}

			// A start beside it, as serve's: a start from the views alone
			// allocates rebuildAlloc; a snapshot's arrays are used in
			// place, so one adds a few times its size at most.
			fresh, got, read, alloc, why := w.start(t)
			if limit := 2*w.rebuildAlloc + 16*uint64(len(data)) + 4<<20; alloc > limit {
				t.Fatalf("a snapshot of %d bytes (refused: %v): the start and its answers allocated %d bytes, more than %d", len(data), why, alloc, limit)
			}
			if (err == nil) != (why == nil) {
				t.Fatalf("readSnapshot said %v, the start's load %v", err, why)
			}
			if why != nil {
				if read != w.views || got != w.want {
					t.Fatalf("refused (%v), and the index rebuilt from %d views of %d answers:\n%s\nwant:\n%s", why, read, w.views, got, w.want)
				}
				continue
			}
			if read != fuzzLaterViews {
				t.Fatalf("the snapshot was used, and %d views read after it, want %d", read, fuzzLaterViews)
			}
			if string(data) == string(good) && got != w.want {
				t.Fatalf("the snapshot the code wrote gave other answers:\n%s\nwant:\n%s", got, w.want)
			}

			// Used: the index takes a view of each class on its newest
			// path, and answers again.
			st, err := fresh.site(ctx, w.project, false)
			if err != nil {
				t.Fatal(err)
			}
			fx := st.idx
			fx.mu.Lock()
			var v model.PageViewColumns
			for c := range numClasses {
				v.At = append(v.At, to.UnixMilli()-1)
				v.PathID = append(v.PathID, fx.lastPath)
				v.VisitorID = append(v.VisitorID, 1<<40+int64(c))
				v.Class = append(v.Class, uint8(c))
				v.AgentID = append(v.AgentID, 0)
				v.ReferrerID = append(v.ReferrerID, 0)
			}
			err = fx.merge(&v, nil, nil, fx.lastView+int64(numClasses))
			if err == nil {
				fx.sealAll()
				fx.aggregate()
			}
			fx.mu.Unlock()
			if err != nil {
				t.Fatalf("a view on the snapshot's newest path: %v", err)
			}
			if _, err := w.answers(fresh); err != nil {
				t.Fatal(err)
			}
		}
	})
}

// TestHostileSnapshotIsRefusedAndRebuilt: a snapshot written by someone
// else, whole and with a right checksum, whose numbers would make the index
// allocate without bound, probe or count days for ever, or index past its
// arrays (a view before its first day, or out of order, put the agents'
// day counts at a negative position; FuzzReadSnapshot's targets), is
// refused with a reason that names what is wrong, and the index is loaded
// from the database instead, exactly.
func TestHostileSnapshotIsRefusedAndRebuilt(t *testing.T) {
	ctx := context.Background()
	s, d, project := newTestService(t)
	record(t, s, project, snapTraffic(41, 1200))
	if _, err := s.SaveIndex(ctx, project, nil); err != nil {
		t.Fatal(err)
	}
	st, err := s.site(ctx, project, false)
	if err != nil {
		t.Fatal(err)
	}
	path := snapshotPath(d, st.id)
	good, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		change func(x *index)
		want   string
	}{
		{"an agent id the index would make an array of", func(x *index) { x.agents.ids[1] = 1 << 40 }, "agent id 1099511627776"},
		{"a referrer id the index would make an array of", func(x *index) { x.referrers.ids[1] = 1 << 40 }, "referrer id 1099511627776"},
		{"a view of a referrer never named", func(x *index) { busy(x).origin[Human][0] = uint16(len(x.referrers.entries)) }, "of referrer"},
		{"a referrer of no channel", func(x *index) { x.referrers.entries[1].Channel = 200 }, "referrers are damaged"},
		{"more visitors than the file holds", func(x *index) { x.nVisitors = 1 << 31 }, "counts 2147483648 visitors"},
		{"a view of a visitor never counted", func(x *index) { busy(x).vis[Human][0] = uint32(x.nVisitors) }, "dense id"},
		{"a view of an agent never named", func(x *index) { busy(x).origin[AI][0] = uint16(len(x.agents.entries)) }, "of agent"},
		{"a path id at no path", func(x *index) { x.pathOf[1] = int32(len(x.paths) + 5) }, "path id 1 is at position"},
		{"a visitor table with no empty slot", func(x *index) {
			for i := range x.visitorIDs.keys {
				if x.visitorIDs.keys[i] == 0 {
					x.visitorIDs.keys[i], x.visitorIDs.vals[i] = int64(i)<<32|1, 1
					x.visitorIDs.n++
				}
			}
		}, "visitors' table"},
		{"a day still to come", func(x *index) {
			// The year 31,000,000: a load counting the agents' days up to
			// it ran past ten minutes.
			x.days[int64(1e15)/86400] = &dayTraffic{visitors: [2]*roaring.Bitmap{roaring.New(), roaring.New()}, paths: roaring.New()}
		}, "day 11574074074 is not one a view can have"},
		{"a view before its first day", func(x *index) { busy(x).at[AI][0] = 0 }, "a view at 0 ms, outside its days"},
		{"an agent's day of an agent never named", func(x *index) {
			for _, byAgent := range x.originAgg.days {
				for k, t := range byAgent {
					byAgent[originKey{k.class, uint16(x.localIDs(k.class))}] = t
					return
				}
			}
		}, "origins' day"},
		{"an agent's month of a visitor never counted", func(x *index) {
			for _, byAgent := range x.originAgg.months {
				for k, t := range byAgent {
					t.visitors.Add(uint32(x.spaceOf(k.class)))
					return
				}
			}
		}, "origins' day"},
		{"views out of time order", func(x *index) {
			at := busy(x).at[AI]
			at[0], at[len(at)-1] = at[len(at)-1], at[0]
		}, "views out of time order"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := os.WriteFile(path, good, 0o600); err != nil {
				t.Fatal(err)
			}
			x := newIndex(st.id)
			if err := x.readSnapshot(ctx, d, path); err != nil {
				t.Fatal(err)
			}
			if len(x.agents.entries) < 2 || len(x.referrers.entries) < 2 || busy(x) == nil || len(x.visitorIDs.keys) == 0 {
				t.Fatalf("the traffic has %d agents, %d referrers, no path with human and AI views, or a visitor table of %d: too little to change",
					len(x.agents.entries), len(x.referrers.entries), len(x.visitorIDs.keys))
			}
			tc.change(x)
			if err := x.writeSnapshot(ctx, d, path, writeHooks{}); err != nil {
				t.Fatal(err)
			}
			fresh, read, why := loadFresh(t, d, s.cls, project)
			if why == nil || !strings.Contains(why.Error(), tc.want) || read != 1200 {
				t.Fatalf("the load read %d views from the database, the snapshot: %v; want all 1200, refused for %q", read, why, tc.want)
			}
			checkExact(t, fresh, project, snapStart)
		})
	}
}

// busy is a path with human and AI views, if any.
func busy(x *index) *pathViews {
	for _, p := range x.paths {
		if len(p.vis[Human]) > 0 && len(p.origin[AI]) > 0 {
			return p
		}
	}
	return nil
}
