package analytics

import (
	"bytes"
	"cmp"
	"compress/gzip"
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/folio-docs/folio/db"
	"github.com/folio-docs/folio/model"
)

// loadFresh starts a new service on d, as a restart does, and returns it
// with how many views its load read from the database and why its site's
// snapshot was not used (nil when it was), as Preload reports them.
func loadFresh(t *testing.T, d *db.DB, cls *Classifier, project string) (*Service, int64, error) {
	t.Helper()
	s := NewService(d, cls)
	s.snapshotMin = 1
	loads, err := s.Preload(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(loads) != 1 || loads[0].Project != project {
		t.Fatalf("Preload reported %+v, want one load, of project %s", loads, project)
	}
	return s, loads[0].Read, loads[0].Snapshot
}

// restartsFromSnapshot starts a new service on d, as a restart does, and
// checks that its load began from the snapshot, read no view from the
// database, and answers exactly. after says what came before, for the
// failure.
func restartsFromSnapshot(t *testing.T, d *db.DB, cls *Classifier, project, after string) {
	t.Helper()
	s, read, why := loadFresh(t, d, cls, project)
	if why != nil || read != 0 {
		t.Fatalf("a restart after %s read %d views from the database (snapshot: %v), want 0", after, read, why)
	}
	checkExact(t, s, project, snapStart)
}

// copyDB copies a database as it is now (VACUUM INTO), as a backup would.
func copyDB(t *testing.T, d *db.DB) *db.DB {
	t.Helper()
	raw, err := sql.Open("sqlite3", d.Path())
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	path := filepath.Join(t.TempDir(), "copy.db")
	if _, err := raw.Exec(`VACUUM INTO ?`, path); err != nil {
		t.Fatal(err)
	}
	c, err := db.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

var snapStart = time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)

func snapTraffic(seed uint64, views int) GenConfig {
	return GenConfig{Views: views, Paths: 200, Visitors: 1500, From: snapStart, To: snapStart.AddDate(0, 0, 9), Seed: seed}
}

// TestSnapshotRestartIsExact: a load writes a snapshot; a restart reads it
// and none of the views from the database, then reads only the views
// stored after it; every answer equals a brute-force count.
func TestSnapshotRestartIsExact(t *testing.T) {
	s, d, project := newTestService(t)
	record(t, s, project, snapTraffic(11, 8000))
	first, read, _ := loadFresh(t, d, s.cls, project)
	if read != 8000 {
		t.Fatalf("the first load read %d views from the database, want all 8000", read)
	}
	checkExact(t, first, project, snapStart)

	restartsFromSnapshot(t, d, s.cls, project, "the first load")

	// An older snapshot is completed from the database (and, being far
	// behind, written again).
	record(t, first, project, snapTraffic(12, 3000))
	third, read, why := loadFresh(t, d, s.cls, project)
	if why != nil || read != 3000 {
		t.Fatalf("a restart after 3000 more views read %d (snapshot: %v), want 3000", read, why)
	}
	checkExact(t, third, project, snapStart)
	if _, read, why = loadFresh(t, d, s.cls, project); read != 0 {
		t.Fatalf("the snapshot was not written again: the next restart read %d views (%v)", read, why)
	}

	// A service that never saves on its own writes at SaveSnapshots (serve
	// calls it as it stops).
	quiet := NewService(d, s.cls)
	quiet.snapshotMin = 0
	record(t, quiet, project, snapTraffic(13, 1000))
	checkExact(t, quiet, project, snapStart)
	if _, read, _ = loadFresh(t, d, s.cls, project); read != 1000 {
		t.Fatalf("before SaveSnapshots a restart read %d views, want 1000", read)
	}
	record(t, quiet, project, snapTraffic(14, 500))
	if _, err := quiet.Visitors(context.Background(), project, Query{Limit: 1}); err != nil {
		t.Fatal(err)
	}
	if err := quiet.SaveSnapshots(context.Background()); err != nil {
		t.Fatal(err)
	}
	restartsFromSnapshot(t, d, s.cls, project, "SaveSnapshots")
}

// TestSnapshotThatDoesNotMatchIsIgnored: a snapshot that is damaged, cut
// short, newer than the database, of a database restored and then written
// to differently, or of another database, is refused, and the full load
// from the views gives exact answers.
func TestSnapshotThatDoesNotMatchIsIgnored(t *testing.T) {
	s, d, project := newTestService(t)
	record(t, s, project, snapTraffic(21, 6000))
	older := copyDB(t, d) // a backup, before the views below
	record(t, s, project, snapTraffic(22, 2000))
	loadFresh(t, d, s.cls, project) // writes the snapshot at 8000 views
	st, err := s.site(context.Background(), project, false)
	if err != nil {
		t.Fatal(err)
	}
	snap := snapshotPath(d, st.id)
	good, err := os.ReadFile(snap)
	if err != nil {
		t.Fatal(err)
	}

	// from copies the good snapshot beside target, changed by edit, and
	// restarts there: the snapshot must be refused, the load exact.
	from := func(name string, target *db.DB, project string, edit func([]byte) []byte, want error) {
		t.Run(name, func(t *testing.T) {
			b := edit(append([]byte(nil), good...))
			if err := os.WriteFile(snapshotPath(target, st.id), b, 0o600); err != nil {
				t.Fatal(err)
			}
			fresh, read, why := loadFresh(t, target, s.cls, project)
			if why == nil || read == 0 {
				t.Fatalf("the snapshot was used (read %d views from the database)", read)
			}
			if want != nil && !errors.Is(why, want) {
				t.Fatalf("refused for %v, want %v", why, want)
			}
			checkExact(t, fresh, project, snapStart)
		})
	}
	same := func(b []byte) []byte { return b }
	from("damaged", d, project, func(b []byte) []byte { b[len(b)/2] ^= 1; return b }, nil)
	from("cut short", d, project, func(b []byte) []byte { return b[:len(b)-8] }, nil)
	from("another version", d, project, func(b []byte) []byte { b[8]++; return b }, nil)
	from("newer than the database", older, project, same, errStaleSnapshot)

	// The backup, restored and then written to: its view ids reach the
	// snapshot's watermark, with other views.
	rewritten := copyDB(t, older)
	rs := NewService(rewritten, s.cls)
	record(t, rs, project, snapTraffic(23, 2500))
	from("a restored database written to since", rewritten, project, same, errStaleSnapshot)

	other, od, op := newTestService(t)
	record(t, other, op, snapTraffic(24, 9000))
	from("another database", od, op, same, errStaleSnapshot)
}

// TestOldSnapshotsAreRefused: a snapshot written by a build of an older
// format, beside the database it was written for, is refused for its
// version, with that reason, never read as this build's; the index is
// rebuilt from the database, every export is exact, and the next start
// reads this build's snapshot. testdata/snapshot-v3 holds a database of
// 1,500 generated views, agents stored, and the snapshot (format version
// 3, from before each view's agent was kept in the index) the build of
// a38c91f wrote beside it; testdata/snapshot-v5 the same with people's
// referrers stored, and the snapshot of version 5 (before the referrers
// were kept in the index) the build of 8cd3f59 wrote.
func TestOldSnapshotsAreRefused(t *testing.T) {
	for _, version := range []uint32{3, 5} {
		t.Run(fmt.Sprintf("version %d", version), func(t *testing.T) {
			dir := t.TempDir()
			fixture := fmt.Sprintf("testdata/snapshot-v%d/", version)
			gz, err := os.Open(fixture + "folio.db.gz")
			if err != nil {
				t.Fatal(err)
			}
			defer gz.Close()
			zr, err := gzip.NewReader(gz)
			if err != nil {
				t.Fatal(err)
			}
			raw, err := io.ReadAll(zr)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "folio.db"), raw, 0o600); err != nil {
				t.Fatal(err)
			}
			old, err := os.ReadFile(fixture + "folio.db" + snapshotSuffix(1))
			if err != nil {
				t.Fatal(err)
			}
			if string(old[:8]) != snapshotMagic || binary.LittleEndian.Uint32(old[8:]) != version {
				t.Fatalf("the test's snapshot starts %q: not one of version %d", old[:12], version)
			}
			if err := os.WriteFile(filepath.Join(dir, "folio.db"+snapshotSuffix(1)), old, 0o600); err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			d, err := db.Open(ctx, filepath.Join(dir, "folio.db"))
			if err != nil {
				t.Fatal(err)
			}
			defer d.Close()
			if _, err := d.Migrate(ctx); err != nil {
				t.Fatal(err)
			}
			sites, err := d.AnalyticsSiteIDs(ctx)
			if err != nil || len(sites) != 1 {
				t.Fatalf("the test's database has sites %v (%v), want one", sites, err)
			}
			var project string
			for p, id := range sites {
				if id != 1 {
					t.Fatalf("the test's database has site %d, its snapshot is site 1's", id)
				}
				project = p
			}
			cls, err := NewClassifier()
			if err != nil {
				t.Fatal(err)
			}
			s, read, why := loadFresh(t, d, cls, project)
			if !errors.Is(why, errSnapshotVersion) || !strings.Contains(why.Error(), fmt.Sprintf("version %d,", version)) || read != 1500 {
				t.Fatalf("the start read %d views from the database, snapshot: %v; want all 1500, refused for version %d", read, why, version)
			}
			checkExact(t, s, project, snapStart)
			a, err := s.Agents(ctx, project, Query{Limit: MaxLimit}, "")
			if err != nil {
				t.Fatal(err)
			}
			names := map[string]bool{}
			for _, r := range a.Agents {
				names[r.Name] = true
			}
			if !names["ChatGPT-User"] || !names["GPTBot"] || !names["Unnamed bot"] {
				t.Fatalf("agents of the rebuilt index: %+v; want ChatGPT-User, GPTBot, Unnamed bot among them", a.Agents)
			}
			sources := checkReferrersAsSQL(t, s, d, project)
			if version == 5 && sources < 20 {
				t.Fatalf("the rebuilt index has %d sources people came from, want the generated traffic's", sources)
			}
			// The next start reads this build's snapshot, the referrers' days
			// and months with it.
			again, read, why := loadFresh(t, d, cls, project)
			if why != nil || read != 0 {
				t.Fatalf("a restart after the rebuild read %d views from the database (snapshot: %v), want 0", read, why)
			}
			checkExact(t, again, project, snapStart)
			checkReferrersAsSQL(t, again, d, project)
		})
	}
}

// checkReferrersAsSQL checks that s's referrers export and channels,
// counted from its index, are the SQL counts of the stored views, and
// says how many sources there are.
func checkReferrersAsSQL(t *testing.T, s *Service, d *db.DB, project string) int {
	t.Helper()
	ctx := context.Background()
	site, err := d.AnalyticsSiteID(ctx, project)
	if err != nil {
		t.Fatal(err)
	}
	counts, err := d.AnalyticsReferrerCounts(ctx, site, math.MinInt64, math.MaxInt64, "")
	if err != nil {
		t.Fatal(err)
	}
	want := []ReferrerRow{}
	for _, c := range counts {
		r, err := referralOf(c.Referral)
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, referrerRow(r, c.Views, c.Visitors))
	}
	slices.SortFunc(want, compareReferrerRows)
	got, err := s.Referrers(ctx, project, Query{Limit: MaxLimit}, "")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.EqualFunc(got.Referrers, want, func(a, b ReferrerRow) bool { return compareReferrerRows(a, b) == 0 }) {
		t.Fatalf("referrers %s, in SQL %s", rowsString(got.Referrers), rowsString(want))
	}
	channels, err := d.AnalyticsChannelCounts(ctx, site, math.MinInt64, math.MaxInt64)
	if err != nil {
		t.Fatal(err)
	}
	st, err := s.site(ctx, project, false)
	if err != nil {
		t.Fatal(err)
	}
	st.idx.mu.RLock()
	fromIndex := st.idx.channelCounts(math.MinInt64, math.MaxInt64)
	st.idx.mu.RUnlock()
	byKey := func(a, b model.ChannelCount) int {
		return cmp.Or(strings.Compare(a.Channel, b.Channel), strings.Compare(a.Name, b.Name))
	}
	slices.SortFunc(channels, byKey)
	slices.SortFunc(fromIndex, byKey)
	if !slices.Equal(fromIndex, channels) {
		t.Fatalf("channels %+v, in SQL %+v", fromIndex, channels)
	}
	return len(want)
}

// TestSaveIndexLetsTheNextStartReadNoView: SaveIndex (what analytics
// generate and import end with) writes the snapshot, however few views the
// index is behind by, so a start-up after it reads none from the database;
// it reports the views it read and how far its merge had got.
func TestSaveIndexLetsTheNextStartReadNoView(t *testing.T) {
	s, d, project := newTestService(t)
	ctx := context.Background()
	record(t, s, project, snapTraffic(31, 5000))
	var done, total int64
	saved, err := NewService(d, s.cls).SaveIndex(ctx, project, func(d, t int64) { done, total = d, t })
	if err != nil {
		t.Fatal(err)
	}
	if saved.Read != 5000 || done != 5000 || total != 5000 {
		t.Fatalf("SaveIndex read %d views, its progress ended at %d of %d; want 5000 of 5000", saved.Read, done, total)
	}
	if _, err := os.Stat(saved.Path); err != nil {
		t.Fatalf("SaveIndex named %q: %v", saved.Path, err)
	}
	restartsFromSnapshot(t, d, s.cls, project, "SaveIndex")

	// A few views more (far fewer than a background save waits for): the
	// next SaveIndex reads those alone, and writes them.
	record(t, s, project, snapTraffic(32, 40))
	saved, err = NewService(d, s.cls).SaveIndex(ctx, project, nil)
	if err != nil || saved.Read != 40 {
		t.Fatalf("the second SaveIndex read %d views (%v), want 40", saved.Read, err)
	}
	restartsFromSnapshot(t, d, s.cls, project, "the second SaveIndex")

	// A project without traffic has no index to write.
	p, err := d.CreateProject(ctx, model.Project{Name: "quiet", Repository: "/tmp/quiet"})
	if err != nil {
		t.Fatal(err)
	}
	if saved, err := s.SaveIndex(ctx, p.ID, nil); err != nil || saved.Path != "" {
		t.Fatalf("SaveIndex of a project without views: %+v, %v", saved, err)
	}
}

// TestCatchUpKeepsTheSnapshotRecent: CatchUp (serve's minute tick) reads
// views another process stored, with no query, and writes the snapshot
// once the index is a 32nd beyond it, so a restart reads little.
func TestCatchUpKeepsTheSnapshotRecent(t *testing.T) {
	s, d, project := newTestService(t)
	ctx := context.Background()
	record(t, s, project, snapTraffic(41, 6400))
	srv := NewService(d, s.cls)
	srv.snapshotMin = 1
	if _, err := srv.Preload(ctx); err != nil {
		t.Fatal(err)
	}
	st, err := srv.site(ctx, project, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, step := range []struct {
		views            int
		current, watermk int64
	}{
		{150, 6550, 6400}, // less than a 32nd of the index: read, not saved
		{100, 6650, 6650}, // 250 beyond the snapshot: saved
	} {
		record(t, s, project, snapTraffic(uint64(42+step.views), step.views))
		if err := srv.CatchUp(ctx); err != nil {
			t.Fatal(err)
		}
		if cur, saved := st.idx.current.Load(), st.idx.savedView.Load(); cur != step.current || saved != step.watermk {
			t.Fatalf("after %d more views the index holds views to %d, its snapshot to %d; want %d and %d", step.views, cur, saved, step.current, step.watermk)
		}
	}
	restartsFromSnapshot(t, d, s.cls, project, "CatchUp")
}

// TestRewriteWritesWhatASaveWrites: the snapshot a load writes as it lets
// go of what it has written (rewrite: the people's gaps made again path by
// path, the gaps, tables and days let go of before the origins are
// counted) is byte for byte the one a save writes of the same views held
// whole.
func TestRewriteWritesWhatASaveWrites(t *testing.T) {
	s, d, project := newTestService(t)
	record(t, s, project, snapTraffic(24, 6000))
	ctx := context.Background()
	write := func(min int64) []byte {
		fresh := NewService(d, s.cls)
		fresh.snapshotMin, fresh.loadChunk = min, 700
		st, err := fresh.site(ctx, project, false)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Remove(st.idx.snapshot); err != nil && !errors.Is(err, fs.ErrNotExist) {
			t.Fatal(err)
		}
		if _, err := fresh.Preload(ctx); err != nil {
			t.Fatal(err)
		}
		if min == 0 { // no rewrite: the index is whole; save it
			if err := st.idx.save(ctx, d); err != nil {
				t.Fatal(err)
			}
		}
		raw, err := os.ReadFile(st.idx.snapshot)
		if err != nil {
			t.Fatal(err)
		}
		return raw
	}
	saved, rewritten := write(0), write(1)
	if !bytes.Equal(saved, rewritten) {
		t.Fatalf("the rewritten snapshot (%d bytes) differs from the saved one (%d bytes)", len(rewritten), len(saved))
	}
}

// TestRewriteCutShortCountsAfter: a start from a snapshot with enough
// views after it to write the snapshot again keeps no weeks, months or
// origins while it merges them (it counts them after); cut short half-way,
// the next query's refresh reads the rest, counts them and answers
// exactly.
func TestRewriteCutShortCountsAfter(t *testing.T) {
	s, d, project := newTestService(t)
	record(t, s, project, snapTraffic(22, 4000))
	if _, err := s.SaveIndex(context.Background(), project, nil); err != nil {
		t.Fatal(err)
	}
	record(t, s, project, snapTraffic(23, 4000))
	fresh := NewService(d, s.cls)
	fresh.snapshotMin, fresh.loadChunk = 1, 500
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	merges := 0
	fresh.merged = func(int64) {
		if merges++; merges == 2 {
			cancel()
		}
	}
	if _, err := fresh.Preload(ctx); err == nil {
		t.Fatal("a load cancelled half-way did not fail")
	}
	st, err := fresh.site(context.Background(), project, false)
	if err != nil {
		t.Fatal(err)
	}
	x := st.idx
	if x.agg != nil || x.originAgg != nil || x.current.Load() != 0 || x.lastView == 0 {
		t.Fatalf("after the cut: weeks and months %v, origins %v, current %d, merged to %d", x.agg != nil, x.originAgg != nil, x.current.Load(), x.lastView)
	}
	x.merged = nil
	checkExact(t, fresh, project, snapStart)
	if x.agg == nil || x.originAgg == nil {
		t.Fatal("the refresh after the cut did not count the weeks, months and origins")
	}
}

// TestRewriteThatFailsLeavesNoHalfIndex: a load from the database that
// writes the snapshot lets go of what it read as it writes, and reads the
// snapshot back; when the writing fails (here: its directory is gone) or
// the reading back does (the file damaged in between), the index holds
// nothing, and the next query loads it again and answers exactly.
func TestRewriteThatFailsLeavesNoHalfIndex(t *testing.T) {
	s, d, project := newTestService(t)
	record(t, s, project, snapTraffic(21, 6000))
	for _, fail := range []string{"write", "read back"} {
		t.Run(fail, func(t *testing.T) {
			fresh := NewService(d, s.cls)
			st, err := fresh.site(context.Background(), project, false)
			if err != nil {
				t.Fatal(err)
			}
			x := st.idx
			if fail == "write" {
				x.snapshot = filepath.Join(t.TempDir(), "gone", "site.idx")
			} else {
				x.written = func() {
					raw, err := os.ReadFile(x.snapshot)
					if err != nil {
						t.Fatal(err)
					}
					raw[len(raw)-1] ^= 0xff
					if err := os.WriteFile(x.snapshot, raw, 0o600); err != nil {
						t.Fatal(err)
					}
				}
			}
			if err := x.load(context.Background(), d, loadOptions{rewriteFrom: 1}); err == nil {
				t.Fatalf("the %s did not fail", fail)
			}
			if !x.emptied.Load() || len(x.paths) != 0 || x.current.Load() != 0 || x.days == nil {
				t.Fatalf("after a failed %s the index holds %d paths up to %d (emptied %v, days %v)", fail, len(x.paths), x.current.Load(), x.emptied.Load(), x.days)
			}
			x.written = nil
			checkExact(t, fresh, project, snapStart)
			if x.emptied.Load() {
				t.Fatal("the index is still marked empty after a query loaded it")
			}
		})
	}
}
