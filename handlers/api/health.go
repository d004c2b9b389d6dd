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
			httpx.WriteJSON(w, status, NotReady{Checks: checks, Code: httpx.CodeUnavailable, Error: "Folio is not ready: a dependency is unavailable."})
			return
		}
		httpx.WriteJSON(w, status, Ready{Checks: checks, Status: "ok"})
	}
}

// Ready is the answer of GET /readyz when every dependency answers. (Fields
// in the order of their JSON names: the bytes of the map it once was.)
type Ready struct {
	Checks map[string]string `json:"checks"`
	Status string            `json:"status"`
}

// NotReady is the 503 of GET /readyz: an error, with each dependency's check.
type NotReady struct {
	Checks map[string]string `json:"checks"`
	Code   string            `json:"code"`
	Error  string            `json:"error"`
}
