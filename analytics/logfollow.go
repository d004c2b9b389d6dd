package analytics

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Following a log is tail -F's job done with a position that survives a
// restart. Folio does it itself rather than with a tail library: it must
// know the byte offset of the last line stored (nxadm/tail's Tell is
// documented as inexact, and it hands out a half-written last line), and
// read a renamed log to its end before the new one (a long-open bug
// there). A file is polled (an fstat every Poll): that works on every
// file system, inotify or not, and its delay is below the one-second
// batch.

// FollowOptions say how to follow logs.
type FollowOptions struct {
	// Format, Source and Trusted are as for ImportLog; File is set for
	// each file followed.
	ImportOptions
	// StateDir holds each followed file's position (a small JSON file per
	// project, source and path); "" is beside the database.
	StateDir string
	// Poll is how often a file at its end is looked at again (default
	// 200ms); Flush how long read lines wait to be stored together, so a
	// busy log costs one write a Flush (default 1s).
	Poll, Flush time.Duration
	// Notice, when set, is told what the follower does: where it starts
	// each file, a rotation, the first lines that do not parse.
	Notice func(string)
	// Flushed, when set, is called after each write with the totals so far.
	Flushed func(ImportStats)
}

// Follow imports the page views of access logs as they grow, until ctx
// ends (SIGINT, SIGTERM): like tail -F it follows each file across its
// rotation (renamed and a new file made, or copied and truncated), and it
// stores each file's position after each write, so a restart goes on where
// the last run stopped. Lines are keyed as ImportLog keys them (a file read
// again from its start gives each line the same key), so a line read twice
// (a crash after a write and before its position was stored) is stored
// once. A file is read from its start the first time it is followed.
func (s *Service) Follow(ctx context.Context, projectID string, files []string, opts FollowOptions) (ImportStats, error) {
	if opts.Poll <= 0 {
		opts.Poll = 200 * time.Millisecond
	}
	if opts.Flush <= 0 {
		opts.Flush = time.Second
	}
	if opts.Notice == nil {
		opts.Notice = func(string) {}
	}
	st := ImportStats{Skipped: map[string]int{}}
	f := &follower{s: s, project: projectID, opts: opts, st: &st}
	for _, name := range files {
		p, err := f.open(ctx, name)
		if err != nil {
			f.close()
			if ctx.Err() != nil {
				return st, nil // stopped while reading up to a position
			}
			return st, err
		}
		f.paths = append(f.paths, p)
	}
	defer f.close()
	err := f.run(ctx)
	st.Format = f.format
	for k, v := range st.Skipped {
		if v == 0 {
			delete(st.Skipped, k)
		}
	}
	return st, err
}

// maxFollowBatch is the most lines one write stores: a log growing faster
// than this a second is stored in more writes, its memory bounded.
const maxFollowBatch = 50_000

// rotatedGrace is how long a rotated file is still read after it last grew:
// the server writes to it until it reopens its log (nginx on USR1).
const rotatedGrace = 3 * time.Second

// headLen is how much of a file's start identifies it, with its inode:
// inodes are reused, and a truncated file keeps its own.
const headLen = 1024

type follower struct {
	s       *Service
	project string
	opts    FollowOptions
	st      *ImportStats
	paths   []*followedPath
	batch   []Event
	format  string
	buf     []byte // one read's bytes
}

// followedPath is one FILE named to follow: the file there now last, and
// before it the rotated files still being read.
type followedPath struct {
	name  string
	state string // the position file, "" when positions are not kept
	files []*openLog
	dirty bool // positions moved since they were stored
}

// openLog is one file (one inode) being read.
type openLog struct {
	f        *os.File
	name     string // where it was found
	off      int64  // the end of the last whole line read
	head     []byte // its first bytes (up to headLen) as read so far
	partial  []byte // bytes past off that no newline ends yet
	lines    *logLines
	grewAt   time.Time
	rotated  bool
	finished bool
}

// run reads, stores and sleeps until ctx ends, then stores what it read.
func (f *follower) run(ctx context.Context) error {
	var lastFlush time.Time
	for {
		read := false
		for _, p := range f.paths {
			n, err := f.poll(p)
			if err != nil {
				return errors.Join(err, f.flush())
			}
			read = read || n > 0
			if len(f.batch) >= maxFollowBatch {
				break
			}
		}
		now := time.Now()
		if len(f.batch) >= maxFollowBatch || now.Sub(lastFlush) >= f.opts.Flush && f.dirty() {
			if err := f.flush(); err != nil {
				return err
			}
			lastFlush = now
		}
		if ctx.Err() != nil {
			return f.flush()
		}
		if read && len(f.batch) < maxFollowBatch {
			continue // more may be there already
		}
		wait := f.opts.Poll
		if len(f.batch) > 0 {
			wait = min(wait, max(0, f.opts.Flush-time.Since(lastFlush)))
		}
		select {
		case <-ctx.Done():
		case <-time.After(wait):
		}
	}
}

func (f *follower) dirty() bool {
	for _, p := range f.paths {
		if p.dirty {
			return true
		}
	}
	return len(f.batch) > 0
}

// flush stores the lines read and then each file's position: a position
// is never ahead of what is stored. It finishes even as the follower
// stops, so SIGTERM loses nothing read.
func (f *follower) flush() error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(context.Background()), time.Minute)
	defer cancel()
	err := f.s.storeLines(ctx, f.project, f.batch, f.st)
	f.batch = f.batch[:0]
	if err != nil {
		return err
	}
	for _, p := range f.paths {
		if err := p.save(); err != nil {
			return err
		}
	}
	if f.opts.Flushed != nil {
		f.opts.Flushed(*f.st)
	}
	return nil
}

// poll reads what the files of p have beyond their positions, then looks
// whether the file at p's name is still the one it read.
func (f *follower) poll(p *followedPath) (int, error) {
	total := 0
	for _, l := range p.files {
		n, err := f.read(p, l)
		if err != nil {
			return total, err
		}
		total += n
	}
	// Rotated files are let go once they stop growing.
	now := time.Now()
	keep := p.files[:0]
	for _, l := range p.files {
		if l.rotated && now.Sub(l.grewAt) >= rotatedGrace {
			f.finish(p, l)
			_ = l.f.Close() // a log opened for reading: nothing to flush
			p.dirty = true
			continue
		}
		keep = append(keep, l)
	}
	p.files = keep
	if len(f.batch) >= maxFollowBatch {
		return total, nil
	}
	return total, f.checkRotation(p)
}

// read reads the whole lines l has beyond its position into the batch.
func (f *follower) read(p *followedPath, l *openLog) (int, error) {
	if f.buf == nil {
		f.buf = make([]byte, 64<<10)
	}
	total := 0
	for len(f.batch) < maxFollowBatch {
		n, err := l.f.Read(f.buf)
		if n > 0 {
			total += n
			l.grewAt = time.Now()
			l.partial = append(l.partial, f.buf[:n]...)
			f.lines(p, l)
		}
		if err == io.EOF || n == 0 {
			break
		}
		if err != nil {
			return total, fmt.Errorf("analytics: unable to read %s: %w", l.name, err)
		}
	}
	if len(l.head) < headLen && l.off > int64(len(l.head)) {
		l.head = readHead(l.f, min(l.off, headLen))
	}
	return total, nil
}

// lines takes the whole lines out of l.partial.
func (f *follower) lines(p *followedPath, l *openLog) {
	for {
		i := bytes.IndexByte(l.partial, '\n')
		if i < 0 {
			if len(l.partial) > maxLogLine {
				// A line too long to be one: counted as malformed, as the
				// import counts it, and read past.
				f.line(p, l, l.partial[:0:0], int64(len(l.partial)))
				l.partial = l.partial[:0]
			}
			return
		}
		f.line(p, l, l.partial[:i], int64(i+1))
		l.partial = l.partial[i+1:]
	}
}

// line reads one line of l, size bytes with its ending.
func (f *follower) line(p *followedPath, l *openLog, line []byte, size int64) {
	line = bytes.TrimSuffix(line, []byte("\r")) // as bufio.ScanLines, so import and follow key a line alike
	unparsed := len(f.st.Unparsed)
	if e, ok := l.lines.read(line, f.st); ok {
		f.batch = append(f.batch, e)
	}
	if len(f.st.Unparsed) > unparsed {
		u := f.st.Unparsed[len(f.st.Unparsed)-1]
		f.opts.Notice(fmt.Sprintf("line %d of %s does not parse: %s", u.Line, u.File, u.Text))
	}
	if f.format == "" {
		f.format = l.lines.format()
	}
	l.off += size
	p.dirty = true
}

// finish reads a rotated file's last line when no newline ends it, as an
// import of the file would.
func (f *follower) finish(p *followedPath, l *openLog) {
	if len(l.partial) > 0 {
		f.line(p, l, l.partial, int64(len(l.partial)))
		l.partial = nil
	}
	l.finished = true
}

// checkRotation sees whether the file at p's name is still the one read:
// a new file there (the old renamed) is read from its start after the
// rest of the old one; a truncated file (copytruncate) is read from its
// start after the rest of its copy, when the copy is found.
func (f *follower) checkRotation(p *followedPath) error {
	cur := p.current()
	fi, err := os.Stat(p.name)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil // renamed, the new file not made yet: keep reading the old
	case err != nil:
		return fmt.Errorf("analytics: unable to look at %s: %w", p.name, err)
	}
	if cur == nil {
		l, err := openLogFile(p.name, f.opts)
		if err != nil {
			return err
		}
		p.files = append(p.files, l)
		f.opts.Notice(fmt.Sprintf("%s appeared: following it from its start", p.name))
		return nil
	}
	ofi, err := cur.f.Stat()
	if err != nil {
		return fmt.Errorf("analytics: unable to look at %s: %w", p.name, err)
	}
	if !os.SameFile(fi, ofi) {
		l, err := openLogFile(p.name, f.opts)
		if err != nil {
			return err
		}
		cur.rotated = true
		p.files = append(p.files, l)
		p.dirty = true
		f.opts.Notice(fmt.Sprintf("%s was rotated: reading the rest of the old file, then the new one from its start", p.name))
		return nil
	}
	read := cur.off + int64(len(cur.partial))
	if ofi.Size() >= read && bytes.Equal(readHead(cur.f, int64(len(cur.head))), cur.head) {
		return nil
	}
	// Truncated: copytruncate copied the file, then emptied it.
	copied := ""
	copyOf := func(fh *os.File, fi os.FileInfo) bool {
		return fi.Size() >= cur.off && !os.SameFile(fi, ofi) && bytes.Equal(readHead(fh, int64(len(cur.head))), cur.head)
	}
	if cp := findBeside(p.name, false, copyOf); cp != nil {
		copied = cp.name
		cp.off, cp.lines, cp.rotated, cp.grewAt = cur.off, cur.lines, true, time.Now()
		if _, err := cp.f.Seek(cp.off, io.SeekStart); err != nil {
			_ = cp.f.Close() // a log opened for reading: nothing to flush
			return fmt.Errorf("analytics: unable to read %s: %w", cp.name, err)
		}
		p.files = append(p.files[:len(p.files)-1], cp, cur)
	}
	if _, err := cur.f.Seek(0, io.SeekStart); err != nil {
		return fmt.Errorf("analytics: unable to read %s: %w", p.name, err)
	}
	cur.off, cur.head, cur.partial, cur.lines = 0, nil, nil, newLogLines(fileOptions(f.opts, p.name))
	p.dirty = true
	if copied != "" {
		f.opts.Notice(fmt.Sprintf("%s was truncated: reading the rest of its copy %s, then %s from its start", p.name, copied, p.name))
	} else {
		f.opts.Notice(fmt.Sprintf("%s was truncated and no copy of it was found: lines written after byte %d before the truncation are not read; reading it from its start", p.name, read))
	}
	return nil
}

// current is the open file that was at p's name when last looked at.
func (p *followedPath) current() *openLog {
	if len(p.files) == 0 || p.files[len(p.files)-1].rotated {
		return nil
	}
	return p.files[len(p.files)-1]
}

func fileOptions(opts FollowOptions, name string) ImportOptions {
	o := opts.ImportOptions
	o.File = name
	return o
}

// openLogFile opens a log to read from its start.
func openLogFile(name string, opts FollowOptions) (*openLog, error) {
	fh, err := os.Open(name) // #nosec G304 -- a log the operator named to follow
	if err != nil {
		return nil, fmt.Errorf("analytics: unable to open %s: %w", name, err)
	}
	var magic [2]byte
	if n, _ := fh.ReadAt(magic[:], 0); n == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		_ = fh.Close() // a log opened for reading: nothing to flush
		return nil, fmt.Errorf("analytics: %s is gzip-compressed: a compressed log does not grow, import it without --follow", name)
	}
	return &openLog{f: fh, name: name, lines: newLogLines(fileOptions(opts, name)), grewAt: time.Now()}, nil
}

// headHash is the hex SHA-256 of a file's first n bytes.
func headHash(fh *os.File, n int) string {
	sum := sha256.Sum256(readHead(fh, int64(n)))
	return hex.EncodeToString(sum[:])
}

// readHead reads the first n bytes of a file.
func readHead(fh *os.File, n int64) []byte {
	b := make([]byte, n)
	m, _ := fh.ReadAt(b, 0)
	return b[:m]
}

// findBeside opens the first file beside name (access.log.1,
// access.log-20260401…), or with withName name itself first, that match
// accepts; nil when none does.
func findBeside(name string, withName bool, match func(fh *os.File, fi os.FileInfo) bool) *openLog {
	var candidates []string
	if withName {
		candidates = append(candidates, name)
	}
	dir, base := filepath.Split(name)
	if entries, err := os.ReadDir(filepath.Clean(dir + ".")); err == nil {
		for _, de := range entries {
			if de.Name() != base && strings.HasPrefix(de.Name(), base) && de.Type().IsRegular() {
				candidates = append(candidates, filepath.Join(dir, de.Name()))
			}
		}
	}
	for _, cand := range candidates {
		fh, err := os.Open(cand) // #nosec G304 -- the followed log's rotated names, beside it
		if err != nil {
			continue
		}
		if fi, err := fh.Stat(); err == nil && match(fh, fi) {
			return &openLog{f: fh, name: cand, grewAt: time.Now()}
		}
		_ = fh.Close() // a log opened for reading: nothing to flush
	}
	return nil
}

func (f *follower) close() {
	for _, p := range f.paths {
		for _, l := range p.files {
			_ = l.f.Close() // a log opened for reading: nothing to flush
		}
	}
}

// followState is what a position file holds: each file of a followed path
// still read, the file at the path last.
type followState struct {
	Path  string         `json:"path"`
	Files []followedFile `json:"files"`
}

// followedFile names a file by its inode and the hash of its first bytes,
// and says how far it was read.
type followedFile struct {
	Dev     uint64 `json:"dev"`
	Inode   uint64 `json:"inode"`
	HeadLen int    `json:"headLen"`
	Head    string `json:"head"` // hex SHA-256 of the first HeadLen bytes
	Offset  int64  `json:"offset"`
}

// statePath is where the position of a followed file is kept: a name
// derived from the project, the source and the file's absolute path, in
// dir or beside the database.
func (s *Service) statePath(dir, project, source, abs string) string {
	sum := sha256.Sum256([]byte(project + "\x00" + source + "\x00" + abs))
	name := fmt.Sprintf(".follow-%x.json", sum[:8])
	switch {
	case dir != "":
		return filepath.Join(dir, "folio"+name)
	case s.db.Path() == "" || s.db.Path() == ":memory:":
		return ""
	}
	return s.db.Path() + name
}

// save stores p's positions, when they moved.
func (p *followedPath) save() error {
	if !p.dirty || p.state == "" {
		return nil
	}
	state := followState{Path: p.name, Files: []followedFile{}}
	for _, l := range p.files {
		if l.finished {
			continue
		}
		fi, err := l.f.Stat()
		if err != nil {
			return fmt.Errorf("analytics: unable to look at %s: %w", l.name, err)
		}
		dev, ino := fileIdentity(fi)
		sum := sha256.Sum256(l.head)
		state.Files = append(state.Files, followedFile{Dev: dev, Inode: ino, HeadLen: len(l.head), Head: hex.EncodeToString(sum[:]), Offset: l.off})
	}
	b, err := json.Marshal(state)
	if err != nil {
		return err
	}
	tmp := p.state + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return fmt.Errorf("analytics: unable to store the position in %s: %w", p.name, err)
	}
	if err := os.Rename(tmp, p.state); err != nil {
		return fmt.Errorf("analytics: unable to store the position in %s: %w", p.name, err)
	}
	p.dirty = false
	return nil
}

// open starts following name: where the last run stopped, if it stored a
// position, else from the file's start.
func (f *follower) open(ctx context.Context, name string) (*followedPath, error) {
	abs, err := filepath.Abs(name)
	if err != nil {
		return nil, err
	}
	p := &followedPath{name: abs, state: f.s.statePath(f.opts.StateDir, f.project, f.opts.Source, abs)}
	var saved followState
	if p.state != "" {
		b, err := os.ReadFile(p.state)
		switch {
		case errors.Is(err, fs.ErrNotExist):
		case err != nil:
			return nil, fmt.Errorf("analytics: unable to read the position in %s: %w", name, err)
		default:
			if err := json.Unmarshal(b, &saved); err != nil {
				return nil, fmt.Errorf("analytics: the position of %s in %s is unreadable (remove the file to read %s from its start): %w", name, p.state, name, err)
			}
		}
	}
	for _, sf := range saved.Files {
		l, err := f.resume(ctx, p, sf)
		if err != nil {
			p.closeAll()
			return nil, err
		}
		if l != nil {
			p.files = append(p.files, l)
		}
	}
	// The file at the name now: one of those resumed, or a new one.
	fi, err := os.Stat(abs)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		// Renamed and no new file yet: the server still writes to the
		// last one read, until it reopens its log.
		for _, l := range p.files[:max(0, len(p.files)-1)] {
			l.rotated = true
		}
		f.opts.Notice(fmt.Sprintf("waiting for %s to appear", abs))
		return p, nil
	case err != nil:
		p.closeAll()
		return nil, fmt.Errorf("analytics: unable to look at %s: %w", abs, err)
	}
	var cur *openLog
	for _, l := range p.files {
		if lfi, err := l.f.Stat(); err == nil && os.SameFile(fi, lfi) && cur == nil {
			cur = l
		} else {
			l.rotated = true
		}
	}
	if cur == nil {
		if cur, err = openLogFile(abs, f.opts); err != nil {
			p.closeAll()
			return nil, err
		}
		p.files = append(p.files, cur)
		f.opts.Notice(fmt.Sprintf("following %s from its start", abs))
	} else {
		// The file at the name goes last.
		rest := p.files[:0]
		for _, l := range p.files {
			if l != cur {
				rest = append(rest, l)
			}
		}
		p.files = append(rest, cur)
		f.opts.Notice(fmt.Sprintf("following %s from byte %d, where the last run stopped", abs, cur.off))
	}
	return p, nil
}

func (p *followedPath) closeAll() {
	for _, l := range p.files {
		_ = l.f.Close() // a log opened for reading: nothing to flush
	}
}

// resume finds a file a last run read, at its name or renamed beside it,
// and reads it again up to where that run stopped, so its lines get the
// same keys; nil when the file is gone.
func (f *follower) resume(ctx context.Context, p *followedPath, sf followedFile) (*openLog, error) {
	found := findBeside(p.name, true, func(fh *os.File, fi os.FileInfo) bool {
		dev, ino := fileIdentity(fi)
		return dev == sf.Dev && ino == sf.Inode && fi.Size() >= sf.Offset && headHash(fh, sf.HeadLen) == sf.Head
	})
	if found == nil {
		// Perhaps truncated while no run read it (copytruncate): its copy
		// has the rest.
		found = findBeside(p.name, false, func(fh *os.File, fi os.FileInfo) bool {
			return fi.Size() >= sf.Offset && headHash(fh, sf.HeadLen) == sf.Head
		})
	}
	if found == nil {
		f.opts.Notice(fmt.Sprintf("%s: the file the last run read (to byte %d) is gone, rotated away and removed while not followed; what was written to it after that is not read", p.name, sf.Offset))
		return nil, nil
	}
	found.lines = newLogLines(fileOptions(f.opts, found.name))
	// Read the lines before the position again, storing nothing, so the
	// lines after it are keyed as a whole-file import keys them.
	scratch := ImportStats{Skipped: map[string]int{}}
	r := io.LimitReader(found.f, sf.Offset)
	buf := make([]byte, 64<<10)
	var partial []byte
	for {
		if ctx.Err() != nil {
			_ = found.f.Close() // a log opened for reading: nothing to flush
			return nil, ctx.Err()
		}
		n, err := r.Read(buf)
		partial = append(partial, buf[:n]...)
		for {
			i := bytes.IndexByte(partial, '\n')
			if i < 0 {
				break
			}
			found.lines.read(bytes.TrimSuffix(partial[:i], []byte("\r")), &scratch)
			partial = partial[i+1:]
		}
		if err != nil {
			break
		}
	}
	found.off = sf.Offset
	found.head = readHead(found.f, min(found.off, headLen))
	if _, err := found.f.Seek(found.off, io.SeekStart); err != nil {
		_ = found.f.Close() // a log opened for reading: nothing to flush
		return nil, fmt.Errorf("analytics: unable to read %s: %w", found.name, err)
	}
	if found.name != p.name {
		f.opts.Notice(fmt.Sprintf("%s was rotated while not followed: reading the rest of %s from byte %d", p.name, found.name, found.off))
	}
	return found, nil
}
