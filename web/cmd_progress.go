package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"
)

// progress is how long CLI work (analytics import and generate) shows how
// far it has got: a bar redrawn in place at most ten times a second when
// stderr is a terminal, nothing while it runs otherwise, and in both cases
// one summary line at the end that gives the rate.
type progress struct {
	out   io.Writer
	tty   bool
	label string
	unit  string // what total counts, for the rate: "bytes", "views"
	total int64

	mu    sync.Mutex
	done  int64
	start time.Time
	drawn time.Time
}

// newProgress starts a progress of total units for e's stderr.
func newProgress(e env, label string, total int64, unit string) *progress {
	p := &progress{out: e.stderr, label: label, unit: unit, total: total, start: time.Now()}
	if f, ok := e.stderr.(*os.File); ok {
		p.tty = isTerminal(f)
	}
	return p
}

func isTerminal(f *os.File) bool {
	info, err := f.Stat()
	return err == nil && info.Mode()&os.ModeCharDevice != 0
}

// add counts n more units done.
func (p *progress) add(n int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done += n
	p.redraw()
}

// set says how many units are done of how many, for work whose total is
// known only once it has begun.
func (p *progress) set(done, total int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done, p.total = done, total
	p.redraw()
}

// redraw (p.mu held) draws the bar on a terminal, at most ten times a second.
func (p *progress) redraw() {
	if p.tty && time.Since(p.drawn) >= 100*time.Millisecond {
		p.draw()
	}
}

// draw (p.mu held) writes the bar over the previous one.
func (p *progress) draw() {
	const width = 30
	frac := 0.0
	if p.total > 0 {
		frac = min(1, float64(p.done)/float64(p.total))
	}
	fill := int(frac * width)
	elapsed := time.Since(p.start)
	eta := ""
	if frac > 0 && frac < 1 {
		eta = " " + (time.Duration(float64(elapsed)/frac) - elapsed).Round(time.Second).String() + " left"
	}
	fmt.Fprintf(p.out, "\r%s [%s%s] %3.0f%% %s%s\x1b[K", p.label, strings.Repeat("=", fill), strings.Repeat(" ", width-fill), 100*frac, rate(p.done, elapsed, p.unit), eta)
	p.drawn = time.Now()
}

// finish draws the bar complete (on a terminal) and writes the summary:
// what was done, then how long it took and the rate of count items.
func (p *progress) finish(summary string, count int64, what string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.tty {
		p.draw()
		fmt.Fprintln(p.out)
	}
	elapsed := time.Since(p.start)
	fmt.Fprintf(p.out, "%s in %s (%s)\n", summary, elapsed.Round(time.Millisecond), rate(count, elapsed, what))
}

// rate is n items over d as people read it: "84,120 views/s".
func rate(n int64, d time.Duration, what string) string {
	r := float64(n) / max(d.Seconds(), 1e-9)
	if what == "bytes" {
		return fmt.Sprintf("%.1f MB/s", r/1e6)
	}
	return fmt.Sprintf("%s %s/s", thousands(int64(r)), what)
}

// thousands writes n with thousands separators.
func thousands(n int64) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// progressReader counts what is read from r into p.
type progressReader struct {
	r io.Reader
	p *progress
}

func (pr progressReader) Read(b []byte) (int, error) {
	n, err := pr.r.Read(b)
	pr.p.add(int64(n))
	return n, err
}
