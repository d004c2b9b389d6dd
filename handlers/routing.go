package handlers

import (
	"net/http"
	"strings"

	"github.com/gorilla/mux"
)

// NotFound answers unknown routes in the contract's shape.
func NotFound(w http.ResponseWriter, r *http.Request) {
	WriteError(w, r, NewError(http.StatusNotFound, CodeNotFound, "No such endpoint: %s %s.", r.Method, r.URL.Path))
}

// MethodNotAllowed answers a known path asked with the wrong method, with
// Allow listing the methods the router would accept there.
func MethodNotAllowed(router *mux.Router) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		var allowed []string
		for _, m := range []string{http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete} {
			probe := r.Clone(r.Context())
			probe.Method = m
			var match mux.RouteMatch
			if router.Match(probe, &match) && match.MatchErr == nil {
				allowed = append(allowed, m)
			}
		}
		w.Header().Set("Allow", strings.Join(allowed, ", "))
		WriteError(w, r, NewError(http.StatusMethodNotAllowed, CodeMethodNotAllowed, "Method %s is not allowed here; use %s.", r.Method, strings.Join(allowed, " or ")))
	}
}
