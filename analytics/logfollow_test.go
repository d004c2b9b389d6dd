package analytics

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// followRun is a Follow running in the background.
type followRun struct {
	cancel  context.CancelFunc
	done    chan struct{}
	stats   ImportStats
	err     error
	mu      sync.Mutex
	notices []string
}

func startFollow(t *testing.T, s *Service, project string, files []string, opts FollowOptions) *followRun {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	r := &followRun{cancel: cancel, done: make(chan struct{})}
	opts.Poll, opts.Flush = 10*time.Millisecond, 50*time.Millisecond
	opts.Notice = func(msg string) {
		r.mu.Lock()
		r.notices = append(r.notices, msg)
		r.mu.Unlock()
	}
	go func() {
		defer close(r.done)
		r.stats, r.err = s.Follow(ctx, project, files, opts)
	}()
	t.Cleanup(r.stop)
	return r
}

func (r *followRun) stop() {
	r.cancel()
	<-r.done
}

func (r *followRun) saw(part string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, n := range r.notices {
		if strings.Contains(n, part) {
			return true
		}
	}
	return false
}

// logWriter appends numbered combined-log lines to a file, as a server
// does, and knows which views they are.
type logWriter struct {
	t    *testing.T
	name string
	n    int
}

func (w *logWriter) line(path string) string {
	w.n++
	at := time.Date(2026, 4, 1, 10, 0, 0, 0, time.UTC).Add(time.Duration(w.n) * time.Second)
	return fmt.Sprintf(`203.0.113.%d - - [%s] "GET %s HTTP/1.1" 200 512 "-" "%s"`, w.n%200, at.Format("02/Jan/2006:15:04:05 -0700"), path, firefox)
}

// write appends lines to the file at w.name (created if missing).
func (w *logWriter) write(lines ...string) {
	w.t.Helper()
	f, err := os.OpenFile(w.name, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		w.t.Fatal(err)
	}
	defer f.Close()
	for _, l := range lines {
		if _, err := f.WriteString(l + "\n"); err != nil {
			w.t.Fatal(err)
		}
	}
}

func (w *logWriter) pages(n int, path string) []string {
	var lines []string
	for range n {
		lines = append(lines, w.line(path))
	}
	return lines
}

// waitViews waits until the project has want views, and fails if it ever
// has more.
func waitViews(t *testing.T, s *Service, project string, want int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		v, err := s.Views(context.Background(), project, Query{Limit: 1})
		if err != nil {
			t.Fatal(err)
		}
		got := v.Totals.All()
		if got > want {
			t.Fatalf("%d views stored, want %d: a line was stored twice", got, want)
		}
		if got == want {
			// Long enough for a line stored twice to show.
			time.Sleep(150 * time.Millisecond)
			if v, _ := s.Views(context.Background(), project, Query{Limit: 1}); v.Totals.All() != want {
				t.Fatalf("%d views stored, want %d", v.Totals.All(), want)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d views stored after 10s, want %d", got, want)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// A followed log is counted as it grows, across a rename and a new file,
// a copytruncate, a stop and a start, and a restart from a position
// older than what was stored (a crash between the write and the position):
// nothing lost, nothing twice, identical lines each counted.
func TestFollowAcrossRotationAndRestarts(t *testing.T) {
	s, _, project := newTestService(t)
	dir := t.TempDir()
	log := filepath.Join(dir, "access.log")
	w := &logWriter{t: t, name: log}
	opts := FollowOptions{StateDir: t.TempDir()}

	// Lines already there are read from the start; a half-written line
	// waits for its end.
	w.write(w.pages(5, "/docs/a")...)
	run := startFollow(t, s, project, []string{log}, opts)
	waitViews(t, s, project, 5)
	half := w.line("/docs/half")
	f, _ := os.OpenFile(log, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(half[:20])
	f.Close()
	time.Sleep(100 * time.Millisecond)
	f, _ = os.OpenFile(log, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(half[20:] + "\n")
	f.Close()
	same := w.line("/docs/same")
	w.write(same, same)
	waitViews(t, s, project, 8)

	// Rotation by rename: the server writes to the old file until it
	// reopens its log, then to the new one.
	if err := os.Rename(log, log+".1"); err != nil {
		t.Fatal(err)
	}
	(&logWriter{t: t, name: log + ".1", n: w.n}).write(w.pages(3, "/docs/late")...)
	w.write(w.pages(4, "/docs/new")...)
	same = w.line("/docs/same")
	w.write(same, same)
	waitViews(t, s, project, 17)
	if !run.saw("was rotated") {
		t.Errorf("no notice of the rotation: %q", run.notices)
	}

	// A clean stop, lines written meanwhile, a start: resumed where it
	// stopped, the identical line after the stop counted as the file's
	// third. (An identical line in another file is the overlap of a
	// rotated file, stored once, as the import has it.)
	run.stop()
	if run.err != nil || run.stats.Stored != 17 {
		t.Fatalf("first run: %+v, %v", run.stats, run.err)
	}
	w.write(same)
	w.write(w.pages(2, "/docs/while-stopped")...)
	run = startFollow(t, s, project, []string{log}, opts)
	waitViews(t, s, project, 20)
	if !run.saw("where the last run stopped") {
		t.Errorf("the second run did not resume: %q", run.notices)
	}

	// copytruncate: copied, then emptied in place; lines written just
	// before the copy, whether read yet or not, are read from the copy.
	run.stop()
	statePath := s.statePath(opts.StateDir, project, "", log)
	state, err := os.ReadFile(statePath)
	if err != nil {
		t.Fatal(err)
	}
	run = startFollow(t, s, project, []string{log}, opts)
	waitViews(t, s, project, 20)
	w.write(w.pages(2, "/docs/before-copy")...)
	copyTruncate(t, log, log+".2")
	w.write(w.pages(3, "/docs/after-truncate")...)
	waitViews(t, s, project, 25)
	if !run.saw("was truncated: reading the rest of its copy") {
		t.Errorf("no notice of the truncation: %q", run.notices)
	}

	// A crash after a write and before its position was stored: the run
	// after it starts from an older position (restored here), reads lines
	// stored already, and stores none of them again.
	run.stop()
	if err := os.WriteFile(statePath, state, 0o600); err != nil {
		t.Fatal(err)
	}
	w.write(w.pages(1, "/docs/last")...)
	run = startFollow(t, s, project, []string{log}, opts)
	waitViews(t, s, project, 26)
	run.stop()
	if run.err != nil {
		t.Fatal(run.err)
	}
	if run.stats.Stored != 1 || run.stats.Skipped[SkipDuplicate] == 0 {
		t.Errorf("the run after the crash: %+v, want 1 view stored and the lines read again skipped as imported before", run.stats)
	}

	// Rotated by copytruncate while no run followed it: the next run reads
	// the rest from the copy, then the emptied file from its start.
	w.write(w.pages(2, "/docs/before-second-copy")...)
	copyTruncate(t, log, log+".3")
	w.write(w.pages(2, "/docs/after-second-truncate")...)
	run = startFollow(t, s, project, []string{log}, opts)
	waitViews(t, s, project, 30)
	if !run.saw("rotated while not followed: reading the rest of " + log + ".3") {
		t.Errorf("no notice of reading the copy: %q", run.notices)
	}
	v, err := s.Views(context.Background(), project, Query{Limit: MaxLimit})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range v.Views {
		if r.Path == "/docs/same" && r.Human != 5 {
			t.Errorf("/docs/same has %d views, want 2 identical lines of the first file and 3 of the second", r.Human)
		}
	}
}

// copyTruncate does what logrotate's copytruncate does.
func copyTruncate(t *testing.T, name, to string) {
	t.Helper()
	src, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	dst, err := os.Create(to)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(dst, src); err != nil {
		t.Fatal(err)
	}
	src.Close()
	dst.Close()
	if err := os.Truncate(name, 0); err != nil {
		t.Fatal(err)
	}
}
