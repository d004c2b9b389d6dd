package httpx

import (
	"net/http/httptest"
	"testing"
	"time"
)

// Every refusal says how long to wait the same way: whole seconds rounded
// up, never 0, which would invite an immediate retry.
func TestRetryAfterRoundsUpAndNeverSaysZero(t *testing.T) {
	for _, c := range []struct {
		wait time.Duration
		want string
	}{{0, "1"}, {200 * time.Millisecond, "1"}, {time.Second, "1"}, {1100 * time.Millisecond, "2"}, {59*time.Minute + 30*time.Second, "3570"}} {
		w := httptest.NewRecorder()
		SetRetryAfter(w, c.wait)
		if got := w.Header().Get("Retry-After"); got != c.want {
			t.Errorf("wait %s: Retry-After %q, want %q", c.wait, got, c.want)
		}
	}
}
