package analytics

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"syscall"
	"testing"
	"time"
)

// BenchmarkFollowThroughput: a log of 200,000 lines already written,
// followed with the defaults (poll 200 ms, a write a second or per 50,000
// lines): lines/s until every line is stored.
func BenchmarkFollowThroughput(b *testing.B) {
	const n = 200_000
	day := time.Date(2026, 4, 1, 0, 0, 0, 0, time.UTC)
	log := combinedLog(GenConfig{Views: n, Paths: 5000, Visitors: 20000, From: day, To: day.AddDate(0, 1, 0), Seed: 5})
	var took, cpu time.Duration
	for range b.N {
		b.StopTimer()
		s, _, project := newTestService(b)
		name := filepath.Join(b.TempDir(), "access.log")
		if err := os.WriteFile(name, log, 0o600); err != nil {
			b.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		all := make(chan struct{})
		var once sync.Once
		var last ImportStats
		opts := FollowOptions{StateDir: b.TempDir(), Flushed: func(st ImportStats) {
			if st.Lines >= n {
				last = st
				once.Do(func() { close(all) })
			}
		}}
		done := make(chan error, 1)
		b.StartTimer()
		t0, c0 := time.Now(), processCPU()
		go func() {
			_, err := s.Follow(ctx, project, []string{name}, opts)
			done <- err
		}()
		select {
		case <-all:
		case err := <-done:
			b.Fatalf("follow ended before storing every line: %v", err)
		}
		took += time.Since(t0)
		cpu += processCPU() - c0
		b.StopTimer()
		cancel()
		if err := <-done; err != nil {
			b.Fatal(err)
		}
		// The generated log repeats one line, as an import of it counts.
		if last.Stored+last.Skipped[SkipDuplicate] != n || last.Stored < n-10 {
			b.Fatalf("%+v: want every line stored", last)
		}
	}
	b.ReportMetric(float64(n*b.N)/took.Seconds(), "lines/s")
	b.ReportMetric(float64(cpu.Microseconds())/float64(n*b.N), "CPU-µs/line")
}

// processCPU is the CPU time this process has used, user and system.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkFollowDelay: a server logging 1,000 requests a second for 5 s,
// followed with the defaults: the delay from a line written to it stored
// (p50, p99, max), how many writes a second that costs, and the delay of
// a line written after a quiet second (quiet-p50).
func BenchmarkFollowDelay(b *testing.B) {
	const rate, seconds = 1000, 5
	var delays, quiet []time.Duration
	var writes, spent float64
	for range b.N {
		b.StopTimer()
		s, _, project := newTestService(b)
		name := filepath.Join(b.TempDir(), "access.log")
		f, err := os.Create(name)
		if err != nil {
			b.Fatal(err)
		}
		var mu sync.Mutex
		var written []time.Time // when line i was written
		var stored []struct {
			at time.Time
			n  int
		}
		opts := FollowOptions{StateDir: b.TempDir(), Flushed: func(st ImportStats) {
			mu.Lock()
			stored = append(stored, struct {
				at time.Time
				n  int
			}{time.Now(), st.Stored})
			mu.Unlock()
		}}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() {
			_, err := s.Follow(ctx, project, []string{name}, opts)
			done <- err
		}()
		time.Sleep(300 * time.Millisecond) // the follower at the file's end
		b.StartTimer()
		start := time.Now()
		at := time.Date(2026, 4, 1, 10, 0, 0, 0, time.UTC)
		for i := range rate * seconds {
			// Paced: line i is due at start + i/rate.
			if d := time.Until(start.Add(time.Duration(i) * time.Second / rate)); d > 0 {
				time.Sleep(d)
			}
			var line bytes.Buffer
			fmt.Fprintf(&line, "203.0.113.%d - - [%s] \"GET /docs/p%d HTTP/1.1\" 200 512 \"-\" \"%s\"\n",
				i%250, at.Add(time.Duration(i)*time.Millisecond).Format("02/Jan/2006:15:04:05 -0700"), i%100, firefox)
			if _, err := f.Write(line.Bytes()); err != nil {
				b.Fatal(err)
			}
			mu.Lock()
			written = append(written, time.Now())
			mu.Unlock()
		}
		for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
			mu.Lock()
			last := 0
			if len(stored) > 0 {
				last = stored[len(stored)-1].n
			}
			mu.Unlock()
			if last >= rate*seconds {
				break
			}
			if time.Now().After(deadline) {
				b.Fatalf("%d of %d lines stored 10 s after the last was written", last, rate*seconds)
			}
		}
		b.StopTimer()
		spent += time.Since(start).Seconds()
		// Then a quiet log: one line after more than a second of none.
		for k := range 5 {
			time.Sleep(1200 * time.Millisecond)
			fmt.Fprintf(f, "203.0.113.9 - - [%s] \"GET /docs/quiet HTTP/1.1\" 200 512 \"-\" \"%s\"\n",
				at.Add(time.Hour+time.Duration(k)*time.Second).Format("02/Jan/2006:15:04:05 -0700"), firefox)
			w := time.Now()
			for {
				mu.Lock()
				n := stored[len(stored)-1].n
				mu.Unlock()
				if n > rate*seconds+k {
					quiet = append(quiet, time.Since(w))
					break
				}
				time.Sleep(time.Millisecond)
			}
		}
		cancel()
		if err := <-done; err != nil {
			b.Fatal(err)
		}
		f.Close()
		// Line i is counted at the first write after which more than i
		// lines are stored.
		j := 0
		prev := 0
		for i, w := range written {
			for stored[j].n <= i {
				j++
			}
			delays = append(delays, stored[j].at.Sub(w))
		}
		for _, s := range stored {
			if s.n > prev && s.n <= rate*seconds {
				writes++
				prev = s.n
			}
		}
	}
	slices.Sort(delays)
	q := func(p float64) float64 {
		return float64(delays[int(p*float64(len(delays)-1))]) / float64(time.Millisecond)
	}
	b.ReportMetric(q(0.5), "p50-ms")
	b.ReportMetric(q(0.99), "p99-ms")
	b.ReportMetric(q(1), "max-ms")
	b.ReportMetric(writes/spent, "writes/s")
	slices.Sort(quiet)
	b.ReportMetric(float64(quiet[len(quiet)/2])/float64(time.Millisecond), "quiet-p50-ms")
}
