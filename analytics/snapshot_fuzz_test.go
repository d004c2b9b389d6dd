package analytics

import (
	"context"
	"encoding/binary"
	"hash/crc32"
	"os"
	"runtime/metrics"
	"strings"
	"testing"

	"github.com/RoaringBitmap/roaring/v2"

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

// FuzzReadSnapshot: any bytes in a site's snapshot file, as they are and
// with the header's length and checksum made to fit them (so a hostile
// body reaches the arrays), are either refused with a reason of the index
// snapshot's own, or loaded into an index that answers every export and
// takes new views; never a panic, and never an allocation out of
// proportion to the file.
func FuzzReadSnapshot(f *testing.F) {
	ctx := context.Background()
	s, d, project := newTestService(f)
	record(f, s, project, snapTraffic(31, 300))
	if _, err := s.SaveIndex(ctx, project, nil); err != nil {
		f.Fatal(err)
	}
	st, err := s.site(ctx, project, false)
	if err != nil {
		f.Fatal(err)
	}
	path := snapshotPath(d, st.id)
	good, err := os.ReadFile(path)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	f.Add(good[:snapshotHeader])
	f.Add(good[:len(good)/2])
	if old, err := os.ReadFile("testdata/snapshot-v3/folio.db" + snapshotSuffix(1)); err == nil {
		f.Add(old)
	}

	from, to := snapStart.AddDate(0, 0, -1), snapStart.AddDate(0, 0, 12)
	q := Query{From: &from, To: &to, Limit: MaxLimit}
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, data := range [][]byte{b, withHeader(b)} {
			if err := os.WriteFile(path, data, 0o600); err != nil {
				t.Fatal(err)
			}
			x := newIndex(st.id)
			before := heapAllocated()
			err := x.readSnapshot(ctx, d, path)
			if grew := heapAllocated() - before; grew > 8*uint64(len(data))+16<<20 {
				t.Fatalf("reading a snapshot of %d bytes allocated %d", len(data), grew)
			}
			if err != nil {
				if !strings.HasPrefix(err.Error(), "analytics: ") {
					t.Fatalf("refused without a reason of the snapshot's own: %v", err)
				}
				continue
			}
			// Accepted: a service starting from it answers every export
			// and takes a view of each class on its newest path.
			fresh := NewService(d, s.cls)
			fresh.snapshotMin = 1 << 62 // never writes over the file under test
			if _, err := fresh.Visitors(ctx, project, q); err != nil {
				t.Fatal(err)
			}
			fst, err := fresh.site(ctx, project, false)
			if err != nil {
				t.Fatal(err)
			}
			if why := fst.idx.snapshotUsed(); why != nil {
				t.Fatalf("readSnapshot took the file, the service's load did not: %v", why)
			}
			answer(t, fresh, project, q)
			fx := fst.idx
			fx.mu.Lock()
			var v model.PageViewColumns
			for c := range numClasses {
				v.At = append(v.At, to.UnixMilli()-1)
				v.PathID = append(v.PathID, fx.lastPath)
				v.VisitorID = append(v.VisitorID, 1<<40+int64(c))
				v.Class = append(v.Class, uint8(c))
				v.AgentID = append(v.AgentID, 0)
			}
			err = fx.merge(&v, nil, fx.lastView+int64(numClasses))
			if err == nil {
				fx.sealAll()
				fx.aggregate()
			}
			fx.mu.Unlock()
			if err != nil {
				t.Fatalf("a view on the snapshot's newest path: %v", err)
			}
			answer(t, fresh, project, q)
		}
	})
}

// answer asks s every export of project over q's range.
func answer(t *testing.T, s *Service, project string, q Query) {
	t.Helper()
	ctx := context.Background()
	if _, err := s.Visitors(ctx, project, q); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Views(ctx, project, q); err != nil {
		t.Fatal(err)
	}
	for _, u := range []Unit{Day, Week, Month} {
		if _, err := s.VisitorSeries(ctx, project, q, u, true); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Report(ctx, project, q, u, false); err != nil {
			t.Fatal(err)
		}
	}
	agents, err := s.Agents(ctx, project, q, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range agents.Agents {
		for c := AI; c < numClasses; c++ {
			if _, err := s.AgentPages(ctx, project, q, a.Name, c); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// TestHostileSnapshotIsRefusedAndRebuilt: a snapshot written by someone
// else, whole and with a right checksum, whose numbers would make the index
// allocate without bound, probe forever, or index past its arrays, is
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
		{"an agent id the index would make an array of", func(x *index) { x.agentIDs[1] = 1 << 40 }, "agent id 1099511627776"},
		{"more visitors than the file holds", func(x *index) { x.nVisitors = 1 << 31 }, "counts 2147483648 visitors"},
		{"a view of a visitor never counted", func(x *index) { busy(x).vis[Human][0] = uint32(x.nVisitors) }, "dense id"},
		{"a view of an agent never named", func(x *index) { busy(x).agent[AI][0] = uint16(len(x.agents)) }, "of agent"},
		{"a path id at no path", func(x *index) { x.pathOf[1] = int32(len(x.paths) + 5) }, "path id 1 is at position"},
		{"a visitor table with no empty slot", func(x *index) {
			for i := range x.visitorIDs.keys {
				if x.visitorIDs.keys[i] == 0 {
					x.visitorIDs.keys[i], x.visitorIDs.vals[i] = int64(i)<<32|1, 1
					x.visitorIDs.n++
				}
			}
		}, "visitors' table"},
		{"a day no time falls on", func(x *index) {
			x.days[maxDay+1] = &dayTraffic{visitors: [2]*roaring.Bitmap{roaring.New(), roaring.New()}, paths: roaring.New()}
		}, "day 106751991168"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := os.WriteFile(path, good, 0o600); err != nil {
				t.Fatal(err)
			}
			x := newIndex(st.id)
			if err := x.readSnapshot(ctx, d, path); err != nil {
				t.Fatal(err)
			}
			if len(x.agents) < 2 || busy(x) == nil || len(x.visitorIDs.keys) == 0 {
				t.Fatalf("the traffic has %d agents, no path with human and AI views, or a visitor table of %d: too little to change", len(x.agents), len(x.visitorIDs.keys))
			}
			tc.change(x)
			if err := x.writeSnapshot(ctx, d, path); err != nil {
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
		if len(p.vis[Human]) > 0 && len(p.agent[AI]) > 0 {
			return p
		}
	}
	return nil
}
