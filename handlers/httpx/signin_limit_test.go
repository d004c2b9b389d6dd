package httpx

import (
	"testing"
	"time"
)

func TestSignInLimiterWindow(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	l := NewSignInLimiter(3, 15*time.Minute)
	l.Now = func() time.Time { return now }
	for range 3 {
		if ok, _ := l.Allow("ip|ada"); !ok {
			t.Fatal("refused before the limit")
		}
		l.Fail("ip|ada")
	}
	if ok, wait := l.Allow("ip|ada"); ok || wait != 15*time.Minute {
		t.Errorf("after 3 failures: allowed=%v wait=%v, want refused for 15m", ok, wait)
	}
	if ok, _ := l.Allow("ip|grace"); !ok {
		t.Error("another key is refused")
	}
	now = now.Add(15 * time.Minute)
	if ok, _ := l.Allow("ip|ada"); !ok {
		t.Error("still refused after the window")
	}
	l.Fail("ip|ada")
	l.Reset("ip|ada")
	if ok, _ := l.Allow("ip|ada"); !ok {
		t.Error("refused after a reset")
	}
}
