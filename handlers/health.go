package handlers

import (
	"context"
	"net/http"
	"time"
)

// Pinger is a dependency whose reachability decides readiness.
type Pinger interface {
	Ping(ctx context.Context) error
}

// Healthz answers while the process is alive.
func Healthz(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}

// Readyz answers 200 when every named dependency answers a ping, else 503
// with the name of each one that did not.
func Readyz(deps map[string]Pinger) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
		defer cancel()
		checks := map[string]string{}
		status := http.StatusOK
		for name, p := range deps {
			if err := p.Ping(ctx); err != nil {
				logger(ctx).Warn("readiness check failed", "dependency", name, "err", err)
				checks[name] = "unavailable"
				status = http.StatusServiceUnavailable
				continue
			}
			checks[name] = "ok"
		}
		if status != http.StatusOK {
			writeJSON(w, status, map[string]any{"error": "Folio is not ready: a dependency is unavailable.", "code": CodeUnavailable, "checks": checks})
			return
		}
		writeJSON(w, status, map[string]any{"status": "ok", "checks": checks})
	}
}
