package api

import (
	"context"
	"mime"
	"net/http"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"github.com/folio-docs/folio/analytics"
	"github.com/folio-docs/folio/handlers/httpx"
)

// BrowserTracker records the tracker's page views, searches and feedback.
type BrowserTracker interface {
	TrackBrowserView(ctx context.Context, v analytics.BrowserView) (bool, error)
	TrackBrowserEvent(ctx context.Context, e analytics.BrowserEvent) (bool, error)
}

// trackerEvent is what the tracker posts: a page view (no type), or a
// search, a search result opened or feedback, with the events API's fields.
type trackerEvent struct {
	Project  string `json:"project"`
	Type     string `json:"type"`
	Path     string `json:"path"`
	Referrer string `json:"referrer"`
	analytics.EventDetail
}

// MaxTrackerBody caps what the tracker posts: a page view is a few hundred
// bytes, feedback on a code snippet at most some 40 KB.
const MaxTrackerBody = 64 << 10

// TrackerScript serves the browser tracker, cacheable for an hour.
func TrackerScript(js []byte) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/javascript; charset=utf-8")
		w.Header().Set("Cache-Control", "public, max-age=3600")
		w.Header().Set("Access-Control-Allow-Origin", "*")
		_, _ = w.Write(js) // a client gone mid-script cannot be told; the next request starts over
	}
}

// TrackerLimits are the rates of /api/event: PerSecond and Burst of every
// event per IP address; and so that a script cannot flood a project,
// Feedback per address, and Searches (searches and results opened) and
// ProjectFeedback per project, from all addresses together. A zero Rate
// is no limit.
type TrackerLimits struct {
	PerSecond       float64
	Burst           int
	Feedback        Rate
	Searches        Rate
	ProjectFeedback Rate
}

// Rate is a token bucket's: PerSecond tokens a second, up to Burst.
type Rate struct {
	PerSecond float64
	Burst     int
}

// TrackerEvent serves POST /api/event, the browser tracker's door: no key,
// CORS for the project's allowed domains, rate limits per IP address (and
// for searches and feedback per project), and 202 for every well-formed
// event, counted or not (bots and AI agents are not). OPTIONS answers the
// CORS preflight.
func TrackerEvent(svc BrowserTracker, limits TrackerLimits) http.HandlerFunc {
	lim := newIPLimiter(Rate{limits.PerSecond, limits.Burst})
	feedback := newIPLimiter(limits.Feedback)
	projectSearches, projectFeedback := newIPLimiter(limits.Searches), newIPLimiter(limits.ProjectFeedback)
	return func(w http.ResponseWriter, r *http.Request) {
		origin := r.Header.Get("Origin")
		if origin != "" {
			// The project is in the body, so the preflight cannot check it;
			// the POST itself is refused for an origin the project does not allow.
			w.Header().Set("Access-Control-Allow-Origin", origin)
			w.Header().Set("Vary", "Origin")
		}
		if r.Method == http.MethodOptions {
			w.Header().Set("Access-Control-Allow-Methods", "POST")
			w.Header().Set("Access-Control-Allow-Headers", "Content-Type")
			w.Header().Set("Access-Control-Max-Age", "86400")
			w.WriteHeader(http.StatusNoContent)
			return
		}
		ip := httpx.ClientIP(r)
		if ok, wait := lim.allow(ip, time.Now()); !ok {
			httpx.SetRetryAfter(w, wait)
			httpx.WriteError(w, r, httpx.NewError(http.StatusTooManyRequests, httpx.CodeRateLimited, "Too many events from this address; retry in %d seconds.", max(1, httpx.Seconds(wait))))
			return
		}
		// The tracker sends its JSON as text/plain, a simple request with
		// no preflight, which an event sent as a page unloads needs.
		if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt == "text/plain" {
			r.Header.Del("Content-Type")
		}
		var ev trackerEvent
		if e := httpx.DecodeJSONLimit(r, &ev, MaxTrackerBody); e != nil {
			httpx.WriteError(w, r, e)
			return
		}
		if ev.Project == "" {
			httpx.WriteError(w, r, httpx.InvalidField("project", "The project is required (the script's data-project attribute)."))
			return
		}
		if ev.Type != "" {
			now := time.Now()
			var ok bool
			var wait time.Duration
			if ev.Type == analytics.TypeFeedback {
				if ok, wait = feedback.allow(ip, now); ok {
					ok, wait = projectFeedback.allow(ev.Project, now)
				}
			} else {
				ok, wait = projectSearches.allow(ev.Project, now)
			}
			if !ok {
				httpx.SetRetryAfter(w, wait)
				httpx.WriteError(w, r, httpx.NewError(http.StatusTooManyRequests, httpx.CodeRateLimited, "Too many %s events; retry in %d seconds.", ev.Type, max(1, httpx.Seconds(wait))))
				return
			}
			_, err := svc.TrackBrowserEvent(r.Context(), analytics.BrowserEvent{ProjectID: ev.Project, Origin: origin, UserAgent: r.UserAgent(), IP: ip, At: now,
				Event: analytics.RawEvent{Type: ev.Type, Path: ev.Path, EventDetail: ev.EventDetail}})
			if err != nil {
				httpx.WriteDomainError(w, r, err)
				return
			}
			w.WriteHeader(http.StatusAccepted)
			return
		}
		_, err := svc.TrackBrowserView(r.Context(), analytics.BrowserView{
			ProjectID: ev.Project, Path: ev.Path, Referrer: ev.Referrer, Origin: origin,
			UserAgent: r.UserAgent(), IP: ip, At: time.Now(),
		})
		if err != nil {
			httpx.WriteDomainError(w, r, err) // an unknown project, an origin not allowed, a bad path
			return
		}
		w.WriteHeader(http.StatusAccepted)
	}
}

// ipLimiter is a token bucket per client address (or per project),
// forgetting idle ones.
type ipLimiter struct {
	limits Rate
	mu     sync.Mutex
	ips    map[string]*ipBucket
	swept  time.Time
}

type ipBucket struct {
	lim  *rate.Limiter
	seen time.Time
}

func newIPLimiter(l Rate) *ipLimiter {
	return &ipLimiter{limits: l, ips: map[string]*ipBucket{}}
}

// allow takes a token for ip, or says in how many seconds to retry.
func (l *ipLimiter) allow(ip string, now time.Time) (bool, time.Duration) {
	if l.limits == (Rate{}) {
		return true, 0
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if now.Sub(l.swept) > time.Minute {
		for k, b := range l.ips {
			if now.Sub(b.seen) > 10*time.Minute {
				delete(l.ips, k)
			}
		}
		l.swept = now
	}
	b, ok := l.ips[ip]
	if !ok {
		b = &ipBucket{lim: rate.NewLimiter(rate.Limit(l.limits.PerSecond), l.limits.Burst)}
		l.ips[ip] = b
	}
	b.seen = now
	res := b.lim.ReserveN(now, 1)
	if d := res.DelayFrom(now); d > 0 {
		res.CancelAt(now)
		return false, d
	}
	return true, 0
}
