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
// with the name of each one that did not. Each is pinged at once with a
// timeout of its own, so a dependency slow to refuse (Redis retrying its
// dial) cannot spend another's time and have it reported down.
func Readyz(deps map[string]Pinger) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		type result struct {
			name string
			err  error
		}
		results := make(chan result, len(deps))
		for name, p := range deps {
			go func() {
				ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
				defer cancel()
				results <- result{name, p.Ping(ctx)}
			}()
		}
		checks := map[string]string{}
		status := http.StatusOK
		for range deps {
			res := <-results
			if res.err != nil {
				httpx.Logger(r.Context()).Warn("readiness check failed", "dependency", res.name, "err", res.err)
				checks[res.name] = "unavailable"
				status = http.StatusServiceUnavailable
				continue
			}
			checks[res.name] = "ok"
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
