package testenv

import (
	"bytes"
	"regexp"
	"sync"
	"time"
)

// LogBuffer is a bytes.Buffer safe for a server's concurrent logging, that
// a test can wait on for a line.
type LogBuffer struct {
	mu   sync.Mutex
	b    bytes.Buffer
	grew chan struct{} // closed at the next write, for Wait
}

func (l *LogBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.grew != nil {
		close(l.grew)
		l.grew = nil
	}
	return l.b.Write(p)
}

func (l *LogBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// Wait waits until what was written matches re, and reports whether it
// did; it gives up after within, or once done is closed (the writer is
// gone) and what it wrote does not match.
func (l *LogBuffer) Wait(re *regexp.Regexp, within time.Duration, done <-chan struct{}) bool {
	timeout := time.NewTimer(within)
	defer timeout.Stop()
	for {
		l.mu.Lock()
		matched := re.Match(l.b.Bytes())
		if l.grew == nil {
			l.grew = make(chan struct{})
		}
		grew := l.grew
		l.mu.Unlock()
		if matched {
			return true
		}
		select {
		case <-grew:
		case <-done:
			return re.MatchString(l.String())
		case <-timeout.C:
			return false
		}
	}
}
