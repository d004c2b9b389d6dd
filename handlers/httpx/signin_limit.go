package httpx

import (
	"sync"
	"time"
)

// SignInLimiter counts failed sign-ins per IP address and email, in memory:
// after Max failures in Window, further attempts are refused until the
// window ends. Memory is bounded by sweeping finished windows.
type SignInLimiter struct {
	Max    int
	Window time.Duration
	Now    func() time.Time

	mu       sync.Mutex
	failures map[string]*failureWindow
}

type failureWindow struct {
	start time.Time
	count int
}

// NewSignInLimiter allows max failed sign-ins per window.
func NewSignInLimiter(max int, window time.Duration) *SignInLimiter {
	return &SignInLimiter{Max: max, Window: window, Now: time.Now, failures: map[string]*failureWindow{}}
}

// Allow reports whether key may try to sign in now and, if not, how long
// until it may.
func (l *SignInLimiter) Allow(key string) (bool, time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.Now()
	f, ok := l.failures[key]
	if !ok || now.Sub(f.start) >= l.Window {
		return true, 0
	}
	if f.count >= l.Max {
		return false, f.start.Add(l.Window).Sub(now)
	}
	return true, 0
}

// Fail records a failed attempt by key.
func (l *SignInLimiter) Fail(key string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.Now()
	if len(l.failures) > 10000 {
		for k, f := range l.failures {
			if now.Sub(f.start) >= l.Window {
				delete(l.failures, k)
			}
		}
	}
	f, ok := l.failures[key]
	if !ok || now.Sub(f.start) >= l.Window {
		l.failures[key] = &failureWindow{start: now, count: 1}
		return
	}
	f.count++
}

// Reset forgets key's failures after a successful sign-in.
func (l *SignInLimiter) Reset(key string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.failures, key)
}
