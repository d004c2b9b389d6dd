package api

import (
	"context"
	"net/http"
	"time"

	"github.com/folio-docs/folio/handlers/httpx"
)

// Pinger is a dependency whose reachability decides readiness.
type Pinger interface {
	Ping(ctx context.Context) error
}

// Healthz answers while the process is alive.
func Healthz(w http.ResponseWriter, r *http.Request) {
	httpx.WriteJSON(w, http.StatusOK, map[string]string{"status": "ok"})
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
				httpx.Logger(ctx).Warn("readiness check failed", "dependency", name, "err", err)
				checks[name] = "unavailable"
				status = http.StatusServiceUnavailable
				continue
			}
			checks[name] = "ok"
		}
		if status != http.StatusOK {
			httpx.WriteJSON(w, status, map[string]any{"error": "Folio is not ready: a dependency is unavailable.", "code": httpx.CodeUnavailable, "checks": checks})
			return
		}
		httpx.WriteJSON(w, status, map[string]any{"status": "ok", "checks": checks})
	}
}
