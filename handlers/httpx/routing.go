package httpx

import (
	"net/http"
	"strings"

	"github.com/gorilla/mux"
)

// Unmatched answers requests no route took: 405 with Allow when the path
// exists under other methods, else 404, both in the contract's shape. It
// serves as the router's NotFoundHandler and MethodNotAllowedHandler alike,
// because gorilla/mux reports a method mismatch inside a subrouter as not found.
func Unmatched(router *mux.Router) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		var allowed []string
		for _, m := range []string{http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete, http.MethodOptions} {
			if m == r.Method {
				continue
			}
			probe := r.Clone(r.Context())
			probe.Method = m
			var match mux.RouteMatch
			if router.Match(probe, &match) && match.MatchErr == nil {
				allowed = append(allowed, m)
			}
		}
		if len(allowed) == 0 {
			WriteError(w, r, NewError(http.StatusNotFound, CodeNotFound, "No such endpoint: %s %s.", r.Method, r.URL.Path))
			return
		}
		w.Header().Set("Allow", strings.Join(allowed, ", "))
		WriteError(w, r, NewError(http.StatusMethodNotAllowed, CodeMethodNotAllowed, "Method %s is not allowed here; use %s.", r.Method, strings.Join(allowed, " or ")))
	}
}
