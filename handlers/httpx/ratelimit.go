package httpx

import (
	"math"
	"net/http"
	"strconv"
	"time"

	"github.com/folio-docs/folio/jobs"
)

// The rate-limit headers, written here and nowhere else.

// SetQuota writes the RateLimit headers of a quota (none if Redis could not say).
func SetQuota(w http.ResponseWriter, q jobs.Quota) {
	if q.Limit == 0 {
		return
	}
	h := w.Header()
	h.Set("RateLimit-Limit", strconv.Itoa(q.Limit))
	h.Set("RateLimit-Remaining", strconv.Itoa(max(q.Remaining, 0)))
	h.Set("RateLimit-Reset", strconv.Itoa(Seconds(q.Reset)))
}

// SetRetryAfter tells a refused client how long to wait: whole seconds,
// rounded up, never 0 (which would invite an immediate retry).
func SetRetryAfter(w http.ResponseWriter, wait time.Duration) {
	w.Header().Set("Retry-After", strconv.Itoa(max(1, Seconds(wait))))
}

// Seconds is d in whole seconds, rounded up.
func Seconds(d time.Duration) int { return int(math.Ceil(d.Seconds())) }
