package analytics

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unsafe"

	"github.com/RoaringBitmap/roaring/v2"

	"github.com/folio-docs/folio/model"
)

// An index snapshot is the in-memory index of one site written to a file
// beside the database, so a start-up reads one file instead of every view
// through SQLite: the arrays as they are in memory (little-endian, each
// 8-byte aligned), used in place after one read and a checksum. It ends at
// a watermark, the last view it holds; the views after it are read from
// the database as any refresh reads them. A snapshot that is corrupt, of
// another format, another database or site, or that does not match the
// database at its watermark (a database restored from an older backup, or
// rewritten) is ignored, and the index is loaded from the views.
const (
	snapshotMagic = "FOLIOIDX"
	// snapshotVersion 4 carried each view's agent and the crawlers'
	// visitors, 5 the agents' days and months too, 6 the referrer of each
	// person's view, the referrers and their days and months; a snapshot
	// of an earlier version lacks them, and is refused.
	snapshotVersion = 6
	// snapshotHeader: magic, version, byte-order mark, body length, CRC-32C.
	snapshotHeader = 8 + 4 + 4 + 8 + 8
	byteOrderMark  = 0x01020304
)

var crcTable = crc32.MakeTable(crc32.Castagnoli)

// errStaleSnapshot is a snapshot that does not describe this database.
var errStaleSnapshot = errors.New("analytics: the index snapshot does not match the database")

// errSnapshotVersion is a snapshot written by a build of another format
// (one from before each view kept its agent, say): the index is rebuilt
// from the database, and the next save writes this build's.
var errSnapshotVersion = errors.New("analytics: the index snapshot is of another version")

// snapshotPath is where a site's snapshot lives: beside the database.
func snapshotPath(d Storage, site int64) string {
	if d.Path() == "" || d.Path() == ":memory:" {
		return ""
	}
	return d.Path() + snapshotSuffix(site)
}

// snapshotSuffix is what a snapshot's name adds to its database's name.
func snapshotSuffix(site int64) string { return fmt.Sprintf(".analytics-%d.idx", site) }

// isSnapshotSuffix says whether s is snapshotSuffix of some site.
func isSnapshotSuffix(s string) bool {
	n, ok := strings.CutPrefix(s, ".analytics-")
	n, ok2 := strings.CutSuffix(n, ".idx")
	site, err := strconv.ParseInt(n, 10, 64)
	return ok && ok2 && err == nil && s == snapshotSuffix(site)
}

// SnapshotFiles are the index snapshots beside a database, opened: a backup
// opens them before it copies the database, so each ends at a view the
// copy holds (a snapshot newer than its database would be refused), and a
// snapshot replaced meanwhile stays readable through its open file.
type SnapshotFiles struct {
	files    []*os.File
	suffixes []string
}

// OpenSnapshots opens the index snapshots beside the database at dbPath.
func OpenSnapshots(dbPath string) (*SnapshotFiles, error) {
	dir, base := filepath.Split(dbPath)
	entries, err := os.ReadDir(filepath.Clean(dir + "."))
	if err != nil {
		return nil, fmt.Errorf("analytics: unable to list the index snapshots: %w", err)
	}
	sf := &SnapshotFiles{}
	for _, e := range entries {
		suffix, ok := strings.CutPrefix(e.Name(), base)
		if !ok || !e.Type().IsRegular() || !isSnapshotSuffix(suffix) {
			continue
		}
		f, err := os.Open(filepath.Join(dir, e.Name())) // #nosec G304 -- a snapshot listed beside the database: its name and a site's suffix
		if errors.Is(err, fs.ErrNotExist) {
			continue // replaced by a rename in between: its successor is newer than the copy
		}
		if err != nil {
			sf.Close()
			return nil, fmt.Errorf("analytics: unable to open the index snapshot: %w", err)
		}
		sf.files, sf.suffixes = append(sf.files, f), append(sf.suffixes, suffix)
	}
	return sf, nil
}

// CopiedSnapshot is one snapshot written beside a backup.
type CopiedSnapshot struct {
	Path  string
	Bytes int64
}

// CopyBeside writes each snapshot beside the database file at dbPath, under
// the name a database there looks for, never over an existing file.
func (sf *SnapshotFiles) CopyBeside(dbPath string) ([]CopiedSnapshot, error) {
	var out []CopiedSnapshot
	for i, f := range sf.files {
		to := dbPath + sf.suffixes[i]
		n, err := copyNew(f, to)
		if err != nil {
			return out, fmt.Errorf("analytics: unable to copy the index snapshot to %s: %w", to, err)
		}
		out = append(out, CopiedSnapshot{Path: to, Bytes: n})
	}
	return out, nil
}

// Close closes the files.
func (sf *SnapshotFiles) Close() {
	for _, f := range sf.files {
		_ = f.Close() // opened for reading: nothing to flush
	}
}

// copyNew copies r to a new file at path: written beside it, synced, then
// linked into place, so path never holds half a copy, and an existing path
// is fs.ErrExist, not overwritten.
func copyNew(r io.Reader, path string) (int64, error) {
	tmp, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".partial-*")
	if err != nil {
		return 0, err
	}
	defer os.Remove(tmp.Name())
	defer tmp.Close()
	n, err := io.Copy(tmp, r)
	if err == nil {
		err = tmp.Sync()
	}
	if err == nil {
		err = tmp.Close()
	}
	if err == nil {
		err = os.Link(tmp.Name(), path)
	}
	return n, err
}

// dbFingerprint names the database install (its visitor-identity secret,
// hashed so the file does not reveal it), so a snapshot of another
// database, even with the same site and view ids, is refused.
func dbFingerprint(ctx context.Context, d Storage) ([32]byte, error) {
	secret, err := d.AnalyticsSecret(ctx)
	if err != nil {
		return [32]byte{}, err
	}
	return sha256.Sum256(append([]byte("folio analytics index\x00"), secret...)), nil
}

// snapshotUsed says why the index's first load did not begin from its
// snapshot: nil when it did.
func (x *index) snapshotUsed() error {
	x.mu.RLock()
	defer x.mu.RUnlock()
	switch {
	case x.snapshot == "":
		return errors.New("analytics: a database in memory has no index snapshot")
	case x.lastView == 0:
		return errors.New("analytics: the index holds no views")
	}
	return x.snapshotErr
}

// writeSnapshot (x.mu held for reading, the loading token held) writes the
// index to path, atomically: a temporary file renamed over the old one.
// hooks are rewrite's (none for a save).
func (x *index) writeSnapshot(ctx context.Context, d Storage, path string, hooks writeHooks) error {
	if x.lastView == 0 {
		return nil
	}
	if x.originAgg == nil && hooks.beforeOrigins == nil {
		// A load that failed half-way: a snapshot without them would count no agent or referrer.
		return errors.New("analytics: the index's agents and referrers are not counted; its snapshot is not written")
	}
	fp, err := dbFingerprint(ctx, d)
	if err != nil {
		return err
	}
	mark, err := d.AnalyticsView(ctx, x.site, x.lastView)
	if err != nil {
		return fmt.Errorf("analytics: the snapshot's last view %d: %w", x.lastView, err)
	}
	f, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".tmp*")
	if err != nil {
		return fmt.Errorf("analytics: unable to write the index snapshot: %w", err)
	}
	defer os.Remove(f.Name())
	defer f.Close()
	if _, err := f.Write(make([]byte, snapshotHeader)); err != nil {
		return fmt.Errorf("analytics: unable to write the index snapshot: %w", err)
	}
	crc := crc32.New(crcTable)
	bw := bufio.NewWriterSize(io.MultiWriter(f, crc), 1<<20)
	w := &snapshotWriter{w: bw}
	x.encode(w, fp, mark, hooks)
	if w.err == nil {
		w.err = bw.Flush()
	}
	if w.err != nil {
		return fmt.Errorf("analytics: unable to write the index snapshot: %w", w.err)
	}
	var h [snapshotHeader]byte
	copy(h[:], snapshotMagic)
	binary.LittleEndian.PutUint32(h[8:], snapshotVersion)
	binary.NativeEndian.PutUint32(h[12:], byteOrderMark)
	binary.LittleEndian.PutUint64(h[16:], uint64(max(w.n, 0))) // w.n counts bytes written: never negative
	binary.LittleEndian.PutUint64(h[24:], uint64(crc.Sum32()))
	if _, err := f.WriteAt(h[:], 0); err != nil {
		return fmt.Errorf("analytics: unable to write the index snapshot: %w", err)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("analytics: unable to write the index snapshot: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("analytics: unable to write the index snapshot: %w", err)
	}
	if err := os.Rename(f.Name(), path); err != nil {
		return fmt.Errorf("analytics: unable to write the index snapshot: %w", err)
	}
	return nil
}

// encode writes the index's body: what identifies it, then its arrays;
// hooks as writeSnapshot's.
func (x *index) encode(w *snapshotWriter, fp [32]byte, mark model.PageView, hooks writeHooks) {
	w.bytes(fp[:])
	w.u64(toBits(x.site), toBits(x.lastView), toBits(x.lastPath),
		toBits(mark.At), toBits(mark.PathID), toBits(mark.VisitorID), uint64(mark.Class), uint64(max(x.nVisitors, 0)))
	names := make([]uint64, 0, len(x.paths)+1)
	var blob []byte
	for _, p := range x.paths {
		names = append(names, uint64(len(blob)))
		blob = append(blob, p.name...)
	}
	names = append(names, uint64(len(blob)))
	w.u64(uint64(len(x.paths)))
	writeArray(w, names)
	w.bytes(blob)
	for c := range numClasses {
		writeColumn(w, x.paths, func(p *pathViews) []int64 { return p.at[c] })
	}
	for c := range 2 {
		writeColumn(w, x.paths, func(p *pathViews) []uint32 { return p.vis[c] })
		if Class(c) == Human && hooks.peopleGaps != nil {
			writeColumnOf(w, x.paths, func(p *pathViews) int { return p.sealed[c] }, hooks.peopleGaps)
		} else {
			writeColumn(w, x.paths, func(p *pathViews) []uint32 { return p.gap[c][:p.sealed[c]] })
		}
		writeColumn(w, x.paths, func(p *pathViews) []uint32 { return p.other[c].pos })
		writeColumn(w, x.paths, func(p *pathViews) []uint32 { return p.other[c].prev })
	}
	for c := range numClasses {
		if !c.IsVisitor() {
			writeColumn(w, x.paths, func(p *pathViews) []uint32 { return p.vis[c] })
		}
		writeColumn(w, x.paths, func(p *pathViews) []uint16 { return p.origin[c] })
	}
	writeArray(w, x.pathOf)
	writeArray(w, x.visitorOf)
	w.u64(uint64(max(x.visitorIDs.n, 0)))
	writeArray(w, x.visitorIDs.keys)
	writeArray(w, x.visitorIDs.vals)
	w.u64(uint64(max(x.nCrawlers, 0)), uint64(max(x.crawlers.n, 0)))
	writeArray(w, x.crawlers.keys)
	writeArray(w, x.crawlers.vals)
	writeDictionary(w, &x.agents, func(a Agent) []string { return []string{a.Name, a.Operator} })
	writeDictionary(w, &x.referrers, func(r Referral) []string { return []string{r.Source, r.Channel.String(), r.Name} })
	days := make([]int64, 0, len(x.days))
	for d := range x.days {
		days = append(days, d)
	}
	slices.Sort(days)
	writeArray(w, days)
	for _, d := range days {
		dv := x.days[d]
		for _, n := range dv.views {
			w.u64(uint64(max(n, 0))) // a count of views: never negative
		}
		for _, b := range [3]*roaring.Bitmap{dv.visitors[Human], dv.visitors[AI], dv.paths} {
			w.bitmap(b)
		}
	}
	// The origins' days, then months: a start reads them instead of
	// counting them (at 100M views, seconds).
	if hooks.beforeOrigins != nil {
		hooks.beforeOrigins()
	}
	for _, set := range []map[int64]map[originKey]*originTraffic{x.originAgg.days, x.originAgg.months} {
		type entry struct {
			day int64
			key originKey
			t   *originTraffic
		}
		var entries []entry
		for d, byAgent := range set {
			for k, t := range byAgent {
				entries = append(entries, entry{d, k, t})
			}
		}
		slices.SortFunc(entries, func(a, b entry) int {
			return cmp.Or(cmp.Compare(a.day, b.day), cmp.Compare(a.key.class, b.key.class), cmp.Compare(a.key.id, b.key.id))
		})
		w.u64(uint64(len(entries)))
		for _, e := range entries {
			w.u64(toBits(e.day), uint64(e.key.class), uint64(e.key.id), uint64(max(e.t.views, 0)))
			w.bitmap(e.t.visitors)
		}
	}
}

// writeColumn writes one column of every path: the offsets, then the values.
func writeColumn[T any](w *snapshotWriter, paths []*pathViews, col func(*pathViews) []T) {
	writeColumnOf(w, paths, func(p *pathViews) int { return len(col(p)) }, col)
}

// writeColumnOf is writeColumn with each path's length apart: values(p)
// is made as it is written, length(p) long.
func writeColumnOf[T any](w *snapshotWriter, paths []*pathViews, length func(*pathViews) int, values func(*pathViews) []T) {
	offsets := make([]uint64, 1, len(paths)+1)
	for _, p := range paths {
		offsets = append(offsets, offsets[len(offsets)-1]+uint64(length(p))) // #nosec G115 -- a length, never negative
	}
	writeArray(w, offsets)
	w.u64(offsets[len(offsets)-1])
	for _, p := range paths {
		w.raw(asBytes(values(p)))
	}
	w.pad()
}

// writeHooks are what rewrite asks of a snapshot's writing: peopleGaps,
// when set, makes a path's people's gaps, which its seal did not keep;
// beforeOrigins, when set, is called (x.mu held for writing) before the
// origins are written, the file's last part, which it counts.
type writeHooks struct {
	peopleGaps    func(p *pathViews) []uint32
	beforeOrigins func()
}

// readSnapshot loads the site's snapshot into x (empty, the loading token
// held), or returns why it cannot: no file, a damaged one, or one that does
// not match the database. On an error x is left as it was.
func (x *index) readSnapshot(ctx context.Context, d Storage, path string) error {
	f, err := os.Open(path) // #nosec G304 -- the site's snapshot: the database's path and a suffix
	if err != nil {
		return err
	}
	defer f.Close()
	var h [snapshotHeader]byte
	if _, err := io.ReadFull(f, h[:]); err != nil {
		return fmt.Errorf("analytics: the index snapshot's header: %w", err)
	}
	if string(h[:8]) != snapshotMagic || binary.NativeEndian.Uint32(h[12:]) != byteOrderMark {
		return fmt.Errorf("analytics: the index snapshot is of another format or byte order")
	}
	if v := binary.LittleEndian.Uint32(h[8:]); v != snapshotVersion {
		return fmt.Errorf("%w: its format is version %d, this build reads version %d", errSnapshotVersion, v, snapshotVersion)
	}
	n := binary.LittleEndian.Uint64(h[16:])
	st, err := f.Stat()
	if err != nil {
		return err
	}
	if n%8 != 0 || n > math.MaxInt64-snapshotHeader || st.Size() != snapshotHeader+int64(n) {
		return fmt.Errorf("analytics: the index snapshot is %d bytes, its header says a body of %d", st.Size(), n)
	}
	data, release, err := mapSnapshot(f, st.Size())
	if err != nil {
		return fmt.Errorf("analytics: reading the index snapshot: %w", err)
	}
	used := false
	defer func() {
		if !used {
			release()
		}
	}()
	// The mapping starts on a page, so the body (and every array in it,
	// each padded to 8 bytes) is 8-byte aligned.
	body := data[snapshotHeader:]
	if uint64(crc32.Checksum(body, crcTable)) != binary.LittleEndian.Uint64(h[24:]) {
		return fmt.Errorf("analytics: the index snapshot is damaged (checksum)")
	}
	r := &snapshotReader{b: body}
	fp := r.bytes()
	meta := r.u64s(8)
	if r.err != nil {
		return r.err
	}
	want, err := dbFingerprint(ctx, d)
	if err != nil {
		return err
	}
	if !bytes.Equal(fp, want[:]) || fromBits(meta[0]) != x.site {
		return fmt.Errorf("%w: another database or site", errStaleSnapshot)
	}
	markClass, nVisitors := meta[6], meta[7]
	if markClass > math.MaxUint8 {
		return fmt.Errorf("analytics: the index snapshot's last view has class %d", markClass)
	}
	if nVisitors > math.MaxUint32 {
		return fmt.Errorf("analytics: the index snapshot counts %d visitors, more than dense ids can number", nVisitors)
	}
	lastView, lastPath := fromBits(meta[1]), fromBits(meta[2])
	mark, err := d.AnalyticsView(ctx, x.site, lastView)
	if errors.Is(err, model.ErrNotFound) {
		return fmt.Errorf("%w: the database has no view %d (the snapshot is newer)", errStaleSnapshot, lastView)
	}
	if err != nil {
		return err
	}
	if mark != (model.PageView{ID: lastView, At: fromBits(meta[3]), PathID: fromBits(meta[4]), VisitorID: fromBits(meta[5]), Class: uint8(markClass)}) {
		return fmt.Errorf("%w: view %d differs", errStaleSnapshot, lastView)
	}
	y := newIndex(x.site)
	if err := y.decode(r, int(nVisitors)); err != nil {
		return err
	}
	if err := y.checkDecoded(); err != nil {
		return err
	}
	if len(y.paths) == 0 || lastPath <= 0 || lastPath >= int64(len(y.pathOf)) || int(y.pathOf[lastPath]) != len(y.paths) {
		return fmt.Errorf("analytics: the index snapshot's paths do not end at path %d", lastPath)
	}
	// The snapshot's last path must still be the database's (paths are
	// stored before the views naming them, so it is there).
	last := y.paths[len(y.paths)-1].name
	same := false
	err = d.AnalyticsPaths(ctx, x.site, lastPath-1, func(id int64, name string) {
		if id == lastPath {
			same = name == last
		}
	})
	if err != nil {
		return err
	}
	if !same {
		return fmt.Errorf("%w: path %d differs", errStaleSnapshot, lastPath)
	}
	x.lastView, x.lastPath = lastView, lastPath
	x.paths, x.pathOf, x.visitorOf, x.visitorIDs, x.nVisitors = y.paths, y.pathOf, y.visitorOf, y.visitorIDs, y.nVisitors
	x.crawlers, x.nCrawlers = y.crawlers, y.nCrawlers
	x.agents, x.referrers = y.agents, y.referrers
	x.days, x.firstDay, x.endDay, x.originAgg = y.days, y.firstDay, y.endDay, y.originAgg
	x.nVisitorViews, x.unsealed, x.agg = 0, 0, nil
	// The arrays live in the mapping: unmap it once the index that holds
	// them (every slice of it goes with this holder) is unreachable.
	used = true
	x.mapping = &snapshotMapping{data: data}
	runtime.AddCleanup(x.mapping, func(release func()) { release() }, release)
	// Checking the file read every page of it; most are not read again
	// until a query needs them (the crawlers' and agents' columns, the
	// visitors' tables), so give them back now, while none is written
	// (a page written since would lose what was written): they stay in
	// the kernel's cache of the file, and come back as a query reads
	// them. At 100M views, 2 GB resident after a start otherwise.
	releasePages(data)
	for _, p := range x.paths {
		x.nVisitorViews += len(p.vis[Human]) + len(p.vis[AI])
	}
	return nil
}

// decode reads the arrays encode wrote, in place.
func (x *index) decode(r *snapshotReader, nVisitors int) error {
	// Every path has a word in the names and in each column's offsets:
	// more paths than the body has room for is damage, refused before a
	// pathViews is made for each.
	if nVisitors > len(r.b)/4 {
		// Each has a view, with a 4-byte visitor id; queries size bitsets by it.
		return fmt.Errorf("analytics: the index snapshot counts %d visitors, more than its %d bytes hold", nVisitors, len(r.b))
	}
	np := r.count("paths", pathWords*8)
	names := arrayOf[uint64](r)
	blob := r.bytes()
	if r.err != nil {
		return r.err
	}
	if len(names) != np+1 || names[np] != uint64(len(blob)) {
		return fmt.Errorf("analytics: the index snapshot's paths are damaged")
	}
	x.paths = make([]*pathViews, np)
	for i := range x.paths {
		if names[i] > names[i+1] || names[i+1] > uint64(len(blob)) {
			return fmt.Errorf("analytics: the index snapshot's paths are damaged")
		}
		x.paths[i] = &pathViews{name: string(blob[names[i]:names[i+1]])}
	}
	for c := range numClasses {
		readColumn(r, x.paths, func(p *pathViews, v []int64) { p.at[c] = v })
	}
	for c := range 2 {
		readColumn(r, x.paths, func(p *pathViews, v []uint32) { p.vis[c] = v })
		readColumn(r, x.paths, func(p *pathViews, v []uint32) { p.gap[c], p.sealed[c] = v, len(v) })
		readColumn(r, x.paths, func(p *pathViews, v []uint32) { p.other[c].pos = v })
		readColumn(r, x.paths, func(p *pathViews, v []uint32) { p.other[c].prev = v })
	}
	for c := range numClasses {
		if !c.IsVisitor() {
			readColumn(r, x.paths, func(p *pathViews, v []uint32) { p.vis[c] = v })
		}
		readColumn(r, x.paths, func(p *pathViews, v []uint16) { p.origin[c] = v })
	}
	x.pathOf = arrayOf[int32](r)
	x.visitorOf = arrayOf[uint32](r)
	x.visitorIDs.n = r.count("visitor ids", 8)
	x.visitorIDs.keys = arrayOf[int64](r)
	x.visitorIDs.vals = arrayOf[uint32](r)
	x.nVisitors = nVisitors
	x.nCrawlers = r.count("crawlers", 4) // each has a view, of at least a 4-byte visitor id
	x.crawlers.n = r.count("crawler ids", 8)
	x.crawlers.keys = arrayOf[int64](r)
	x.crawlers.vals = arrayOf[uint32](r)
	agent := func(f []string) (Agent, bool) { return Agent{Name: f[0], Operator: f[1]}, true }
	if err := decodeDictionary(r, &x.agents, "agent", 2, agent); err != nil {
		return err
	}
	referrer := func(f []string) (Referral, bool) {
		ch, ok := ChannelByName(f[1])
		return Referral{Source: f[0], Channel: ch, Name: f[2]}, ok
	}
	if err := decodeDictionary(r, &x.referrers, "referrer", 3, referrer); err != nil {
		return err
	}
	days := arrayOf[int64](r)
	lastDay := floorDiv(time.Now().UnixMilli(), msPerDay) + 1
	for _, d := range days {
		if d < 0 || d > lastDay {
			// Every door refuses a view before 1970 or more than five
			// minutes ahead; loads and queries walk the days from the
			// first to the last, so one far ahead would hold them there
			// (a day in the year 31,000,000: a load ran past ten minutes).
			return fmt.Errorf("analytics: the index snapshot's day %d is not one a view can have: from 1970 (day 0) to tomorrow (day %d)", d, lastDay)
		}
		dv := &dayTraffic{}
		for c := range dv.views {
			dv.views[c] = r.count("views of a day", 8) // each has a time in a path's column
		}
		dv.paths = roaring.New()
		for _, b := range [3]**roaring.Bitmap{&dv.visitors[Human], &dv.visitors[AI], &dv.paths} {
			*b = roaring.New()
			if raw := r.bytes(); r.err == nil {
				if _, err := (*b).FromUnsafeBytes(raw); err != nil {
					return fmt.Errorf("analytics: the index snapshot's day %d: %w", d, err)
				}
				// Reading trusts the containers' order and sizes; queries rely on them.
				if err := (*b).Validate(); err != nil {
					return fmt.Errorf("analytics: the index snapshot's day %d: %w", d, err)
				}
			}
		}
		x.addDay(d, dv)
	}
	if err := x.decodeOriginDays(r); err != nil {
		return err
	}
	if r.err != nil {
		return r.err
	}
	if len(r.b) != r.pos {
		return fmt.Errorf("analytics: the index snapshot has %d bytes after its end", len(r.b)-r.pos)
	}
	for _, p := range x.paths {
		for c := range numClasses {
			n := len(p.at[c])
			if len(p.vis[c]) != n || len(p.origin[c]) != n {
				return fmt.Errorf("analytics: the index snapshot's path %q is damaged", p.name)
			}
		}
		for c := range 2 {
			n := len(p.at[c])
			if p.sealed[c] > n || len(p.other[c].pos) != len(p.other[c].prev) {
				return fmt.Errorf("analytics: the index snapshot's path %q is damaged", p.name)
			}
			if k := len(p.other[c].pos); k > 0 && int(p.other[c].pos[k-1]) >= p.sealed[c] {
				return fmt.Errorf("analytics: the index snapshot's path %q is damaged", p.name)
			}
		}
	}
	return nil
}

// writeDictionary writes a dictionary: the views lost, the database ids,
// then each entry's fields as one blob, with the end of each field.
func writeDictionary[T comparable](w *snapshotWriter, d *dictionary[T], fields func(T) []string) {
	w.u64(uint64(max(d.lost, 0)))
	writeArray(w, d.ids)
	var ends []uint64
	var blob []byte
	for _, e := range d.entries {
		for _, f := range fields(e) {
			blob = append(blob, f...)
			ends = append(ends, uint64(len(blob)))
		}
	}
	writeArray(w, ends)
	w.bytes(blob)
}

// decodeDictionary reads into d (its max kept) what writeDictionary wrote,
// entries of n fields each made by entry (false: not one this build
// knows), and the local id of each database id. what names the entries.
func decodeDictionary[T comparable](r *snapshotReader, d *dictionary[T], what string, n int, entry func([]string) (T, bool)) error {
	damaged := fmt.Errorf("analytics: the index snapshot's %ss are damaged", what)
	d.lost = r.count(what+"s lost", 8) // each named a view, which has a time
	d.ids = arrayOf[int64](r)
	ends := arrayOf[uint64](r)
	blob := r.bytes()
	k := len(d.ids)
	if r.err != nil || k == 0 || k > maxLocalIDs+1 || d.ids[0] != 0 || len(ends) != n*k || ends[n*k-1] != uint64(len(blob)) {
		return damaged
	}
	d.entries = make([]T, k)
	d.of = nil
	start := uint64(0)
	fields := make([]string, n)
	for i := range d.entries {
		for f := range fields {
			end := ends[n*i+f]
			if start > end || end > uint64(len(blob)) {
				return damaged
			}
			fields[f] = string(blob[start:end])
			start = end
		}
		var ok bool
		if d.entries[i], ok = entry(fields); !ok {
			return damaged
		}
		if id := d.ids[i]; i > 0 {
			if id <= 0 || id < int64(len(d.of)) && d.of[id] != 0 {
				return damaged
			}
			if id > maxSnapshotLocalID {
				// of is indexed by it: the database, read instead, holds any id.
				return fmt.Errorf("analytics: the index snapshot names %s id %d, more than the %d it reads", what, id, maxSnapshotLocalID)
			}
			d.of = grow(d.of, id)
			d.of[id] = uint16(i) // #nosec G115 -- i < len(d.ids) <= maxLocalIDs+1, checked above
		}
	}
	var zero T
	if d.entries[0] != zero {
		return damaged
	}
	return nil
}

// decodeOriginDays reads the origins' days and months encode wrote, each
// day one of the index's, each month one of their months, each origin one
// of its agents or referrers, each bitmap valid and within its class's
// visitors.
func (x *index) decodeOriginDays(r *snapshotReader) error {
	agg := &originAggregates{days: map[int64]map[originKey]*originTraffic{}, months: map[int64]map[originKey]*originTraffic{}}
	for i, set := range []map[int64]map[originKey]*originTraffic{agg.days, agg.months} {
		n := r.count("origins' days", 40) // four words and a bitmap's length each
		for range n {
			w := r.u64s(4)
			if r.err != nil {
				return r.err
			}
			day, class, origin := fromBits(w[0]), w[1], w[2]
			in := day >= x.firstDay && day < x.endDay
			if i == 1 {
				in = day == monthOf(day) && day >= monthOf(x.firstDay) && day < x.endDay
			}
			if !in || class >= uint64(numClasses) || origin >= uint64(max(x.localIDs(Class(class)), 0)) || w[3] > uint64(len(r.b)) {
				return fmt.Errorf("analytics: the index snapshot's origins' day %d (class %d, origin %d) is damaged", day, class, origin)
			}
			k := originKey{Class(class), uint16(origin)}                   // #nosec G115 -- both bounded just above
			t := &originTraffic{views: int(w[3]), visitors: roaring.New()} // #nosec G115 -- at most the file's length
			if raw := r.bytes(); r.err == nil {
				if _, err := t.visitors.FromUnsafeBytes(raw); err != nil {
					return fmt.Errorf("analytics: the index snapshot's origins' day %d: %w", day, err)
				}
				if err := t.visitors.Validate(); err != nil {
					return fmt.Errorf("analytics: the index snapshot's origins' day %d: %w", day, err)
				}
				if !t.visitors.IsEmpty() && int64(t.visitors.Maximum()) >= int64(x.spaceOf(k.class)) {
					return fmt.Errorf("analytics: the index snapshot's origins' day %d holds visitor %d of %d", day, t.visitors.Maximum(), x.spaceOf(k.class))
				}
			}
			if set[day] == nil {
				set[day] = map[originKey]*originTraffic{}
			}
			set[day][k] = t
		}
	}
	x.originAgg = agg
	return r.err
}

// readColumn reads one column of every path, each path's part a slice of
// the body whose capacity ends at its length, so an append copies it.
func readColumn[T any](r *snapshotReader, paths []*pathViews, set func(*pathViews, []T)) {
	offsets := arrayOf[uint64](r)
	all := arrayOf[T](r)
	if r.err != nil || len(offsets) != len(paths)+1 || offsets[len(paths)] != uint64(len(all)) {
		r.fail()
		return
	}
	for i, p := range paths {
		lo, hi := offsets[i], offsets[i+1]
		if lo > hi || hi > uint64(len(all)) {
			r.fail()
			return
		}
		set(p, all[lo:hi:hi])
	}
}

// snapshotWriter writes the body: 8-byte words and arrays padded to 8.
type snapshotWriter struct {
	w   io.Writer
	n   int64
	err error
}

func (w *snapshotWriter) raw(b []byte) {
	if w.err != nil {
		return
	}
	var k int
	k, w.err = w.w.Write(b)
	w.n += int64(k)
}

func (w *snapshotWriter) pad() {
	if r := w.n % 8; r != 0 {
		w.raw(make([]byte, 8-r))
	}
}

func (w *snapshotWriter) u64(vs ...uint64) {
	for _, v := range vs {
		var b [8]byte
		binary.NativeEndian.PutUint64(b[:], v)
		w.raw(b[:])
	}
}

// bytes writes a length and the bytes, padded.
func (w *snapshotWriter) bytes(b []byte) {
	w.u64(uint64(len(b)))
	w.raw(b)
	w.pad()
}

// bitmap writes b's serialized form as bytes writes bytes, streamed from
// its containers: ToBytes built each in a buffer that doubled as it grew,
// garbage while the whole index is live (10M views: the heap grew by 124
// MB as a snapshot was written).
func (w *snapshotWriter) bitmap(b *roaring.Bitmap) {
	size := b.GetSerializedSizeInBytes()
	w.u64(size)
	start := w.n
	if _, err := b.WriteTo(rawWriter{w}); err != nil && w.err == nil {
		w.err = err
	}
	if w.err == nil && uint64(w.n-start) != size { // #nosec G115 -- w.n only grows: the bytes written since start
		w.err = fmt.Errorf("analytics: a bitmap of %d bytes wrote %d", size, w.n-start)
	}
	w.pad()
}

// rawWriter is the snapshotWriter as an io.Writer, for roaring's WriteTo.
type rawWriter struct{ w *snapshotWriter }

func (r rawWriter) Write(p []byte) (int, error) {
	n := r.w.n
	r.w.raw(p)
	return int(r.w.n - n), r.w.err
}

// writeArray writes a count and the values, padded.
func writeArray[T any](w *snapshotWriter, vs []T) {
	w.u64(uint64(len(vs)))
	w.raw(asBytes(vs))
	w.pad()
}

// snapshotReader reads the body in place; the first problem sticks.
type snapshotReader struct {
	b   []byte
	pos int
	err error
}

func (r *snapshotReader) fail() {
	if r.err == nil {
		r.err = fmt.Errorf("analytics: the index snapshot is damaged at byte %d", r.pos)
	}
}

func (r *snapshotReader) take(n uint64) []byte {
	if r.err != nil || n > math.MaxInt || int(n) > len(r.b)-r.pos {
		r.fail()
		return nil
	}
	b := r.b[r.pos : r.pos+int(n)]
	r.pos = min((r.pos+int(n)+7)&^7, len(r.b))
	return b
}

// count reads a count of things each of which takes at least size bytes
// of the body somewhere: more than the body could hold is damage, refused
// with the count, so no count read from the file sizes an allocation
// beyond the file's own size.
func (r *snapshotReader) count(what string, size int) int {
	n := r.u64s(1)[0]
	if r.err != nil {
		return 0
	}
	if n > math.MaxInt32*8 || int(n) > len(r.b)/size {
		r.err = fmt.Errorf("analytics: the index snapshot counts %d %s, more than its %d bytes hold", n, what, len(r.b))
		return 0
	}
	return int(n)
}

func (r *snapshotReader) u64s(n int) []uint64 {
	out := make([]uint64, n)
	for i := range out {
		if b := r.take(8); b != nil {
			out[i] = binary.NativeEndian.Uint64(b)
		}
	}
	return out
}

func (r *snapshotReader) bytes() []byte {
	n := r.u64s(1)[0]
	return r.take(n)
}

// arrayOf reads a count and that many values, in place.
func arrayOf[T any](r *snapshotReader) []T {
	n := r.u64s(1)[0]
	var zero T
	size := uint64(unsafe.Sizeof(zero))
	if n > uint64(len(r.b))/size {
		r.fail()
		return nil
	}
	b := r.take(n * size)
	if b == nil || n == 0 {
		return nil
	}
	// #nosec G103 -- b is n values' bytes of the body (checked above), 8-byte aligned (the mapping starts on a page, each array padded to 8); T is a fixed-size number
	return unsafe.Slice((*T)(unsafe.Pointer(&b[0])), n)[:n:n]
}

// toBits and fromBits store an int64 in a word of the snapshot and read it
// back, bit for bit.
func toBits(v int64) uint64 { return uint64(v) } // #nosec G115 -- the bits, read back by fromBits

func fromBits(u uint64) int64 { return int64(u) } // #nosec G115 -- the bits toBits wrote

// asBytes is s's memory as bytes.
func asBytes[T any](s []T) []byte {
	if len(s) == 0 {
		return nil
	}
	var zero T
	// #nosec G103 -- s's own memory, only read, to be written out; T is a fixed-size number
	return unsafe.Slice((*byte)(unsafe.Pointer(&s[0])), len(s)*int(unsafe.Sizeof(zero)))
}

// snapshotMapping is the memory an index read from a snapshot lives in.
// Its arrays leave it as views are appended to them (append copies a full
// array, and a mapped one is full), so a server started from a snapshot
// would hold each old array resident beside its copy: 4.2 GB at 100M views
// after reading a 12.5M-view tail, where the index is 2.3. left notes
// each range left, and release gives the kernel back their whole pages.
type snapshotMapping struct {
	data []byte

	mu        sync.Mutex
	dead      [][2]int // [start, end) offsets of ranges nothing refers to
	deadBytes int
}

// push appends v to s, an array of the index. An array in the mapping m
// (nil: none) is full: it is copied out with a 16th to spare (append would
// leave a quarter, 200 MB more at the peak of a restart that reads 3M views
// into 100M), and the range it leaves is noted for release.
func push[T any](m *snapshotMapping, s []T, v T) []T {
	if len(s) == cap(s) && leave(m, s) {
		s = append(make([]T, 0, len(s)+len(s)/16+16), s...)
	}
	return append(s, v)
}

// leave notes that the index no longer refers to s, and says whether it
// lay in the mapping m (nil: none).
func leave[T any](m *snapshotMapping, s []T) bool {
	// #nosec G103 -- s's address, compared with the mapping's, never followed
	return m != nil && len(s) > 0 && m.left(unsafe.Pointer(unsafe.SliceData(s)), len(s)*int(unsafe.Sizeof(s[0])))
}

// left notes that the n bytes at p, if they lie in the mapping (it says
// whether they do), are no longer referred to. Safe for concurrent use.
func (m *snapshotMapping) left(p unsafe.Pointer, n int) bool {
	start := uintptr(unsafe.Pointer(unsafe.SliceData(m.data))) // #nosec G103 -- an address compared, never followed
	if uintptr(p) < start || uintptr(p)-start > uintptr(len(m.data)) {
		return false
	}
	off := int(uintptr(p) - start) // #nosec G115 -- at most len(m.data), checked above
	if off+n > len(m.data) {
		return false
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.dead = append(m.dead, [2]int{off, off + n})
	m.deadBytes += n
	return true
}

// release gives back the whole pages of the ranges noted once they add up
// to min bytes (0: any). Ranges a few bytes apart (the padding between
// arrays) are joined first, so runs of arrays left go back whole. A page
// of a private file mapping given back reads as the file again, and only
// pages that lie wholly in ranges nothing refers to are given back.
func (m *snapshotMapping) release(min int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.deadBytes == 0 || m.deadBytes < min {
		return
	}
	// The mapping begins on a page, so offsets on a page are pages.
	slices.SortFunc(m.dead, func(a, b [2]int) int { return cmp.Compare(a[0], b[0]) })
	page := os.Getpagesize()
	run := m.dead[0]
	for _, r := range append(m.dead[1:], [2]int{math.MaxInt, math.MaxInt}) {
		if r[0] <= run[1]+7 {
			run[1] = max(run[1], r[1])
			continue
		}
		if lo, hi := (run[0]+page-1)/page*page, run[1]/page*page; lo < hi {
			releasePages(m.data[lo:hi])
		}
		run = r
	}
	m.dead, m.deadBytes = m.dead[:0], 0
}

// pathWords is how many words of the body each path takes at least: its
// name's offset, and its offset in each column encode writes.
var pathWords = func() int {
	n := 1 + numClasses + 2*4
	for c := range numClasses {
		if !c.IsVisitor() {
			n++
		}
		n++
	}
	return int(n)
}()

// maxSnapshotLocalID bounds the database ids a snapshot's dictionaries may
// name: the index keeps an array indexed by them (2 bytes each).
const maxSnapshotLocalID = 1 << 24

// checkDecoded checks what the index's reads and appends rely on, that a
// checksum cannot promise of a file written by someone else: every id in
// range of what it indexes, every table with the room its probing needs.
// A snapshot that fails is refused, and the index is read from the
// database instead.
func (x *index) checkDecoded() error {
	damaged := func(what string, args ...any) error {
		return fmt.Errorf("analytics: the index snapshot is damaged: "+what, args...)
	}
	for id, pos := range x.pathOf {
		if pos < 0 || int(pos) > len(x.paths) {
			return damaged("path id %d is at position %d of %d", id, pos, len(x.paths))
		}
	}
	for id, dense := range x.visitorOf {
		if int64(dense) > int64(x.nVisitors) {
			return damaged("visitor id %d is dense id %d of %d", id, dense, x.nVisitors)
		}
	}
	for _, t := range []struct {
		name  string
		table *visitorTable
		n     int
	}{{"visitors", &x.visitorIDs, x.nVisitors}, {"crawlers", &x.crawlers, x.nCrawlers}} {
		if err := t.table.check(t.n); err != nil {
			return damaged("the %s' table: %v", t.name, err)
		}
	}
	for _, p := range x.paths {
		for c := range numClasses {
			space := x.nVisitors
			if !c.IsVisitor() {
				space = x.nCrawlers
			}
			for _, v := range p.vis[c] {
				if int64(v) >= int64(space) {
					return damaged("path %q has a view of dense id %d of %d", p.name, v, space)
				}
			}
			origins := x.localIDs(c)
			for _, a := range p.origin[c] {
				if int(a) >= origins {
					what := "agent"
					if c == Human {
						what = "referrer"
					}
					return damaged("path %q has a view of %s %d of %d", p.name, what, a, origins)
				}
			}
			// Queries search the times, and the origins' day counts put each
			// view at its day's place from the first: in order, within the
			// days, or a place before the first.
			if at := p.at[c]; len(at) > 0 {
				lo, hi := x.firstDay*msPerDay, x.endDay*msPerDay
				for _, t := range []int64{at[0], at[len(at)-1]} {
					if t < lo || t >= hi {
						return damaged("path %q has a view at %d ms, outside its days [%d, %d) ms", p.name, t, lo, hi)
					}
				}
				if !slices.IsSorted(at) {
					return damaged("path %q has views out of time order", p.name)
				}
			}
		}
		for c := range 2 {
			pos := p.other[c].pos
			for i := 1; i < len(pos); i++ {
				if pos[i] <= pos[i-1] {
					return damaged("path %q's other views are out of order", p.name)
				}
			}
		}
	}
	for d, dv := range x.days {
		for k, b := range [3]*roaring.Bitmap{dv.visitors[Human], dv.visitors[AI], dv.paths} {
			limit := x.nVisitors
			if k == 2 {
				limit = len(x.paths)
			}
			if !b.IsEmpty() && int64(b.Maximum()) >= int64(limit) {
				return damaged("day %d holds id %d of %d", d, b.Maximum(), limit)
			}
		}
	}
	return nil
}
