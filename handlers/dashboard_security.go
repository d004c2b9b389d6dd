package handlers

import (
	"net/http"
	"strings"
)

// pageCSP allows only Folio's own scripts and styles: no inline script, no
// other origin, no framing.
const pageCSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
	"frame-ancestors 'none'; base-uri 'none'; form-action 'self'"

// Protect guards every page: browser security headers, and refusal of
// state-changing requests from other sites (http.CrossOriginProtection
// checks Sec-Fetch-Site, or Origin against Host, without tokens).
func (d *Dashboard) Protect(next http.Handler) http.Handler {
	return d.csrf.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", pageCSP)
		h.Set("X-Frame-Options", "DENY")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "same-origin")
		next.ServeHTTP(w, r)
	}))
}

func (d *Dashboard) crossOriginRefused(w http.ResponseWriter, r *http.Request) {
	logger(r.Context()).Warn("cross-origin form post refused", "request_id", RequestID(r.Context()), "path", r.URL.Path,
		"origin", r.Header.Get("Origin"), "sec_fetch_site", r.Header.Get("Sec-Fetch-Site"))
	d.pageError(w, r, http.StatusForbidden, nil)
}

// apiPrefixes are paths whose unknown routes answer JSON, whoever asks.
var apiPrefixes = []string{"/v1/", "/v2/", "/api/", "/webhooks/", "/js/", "/openapi.json", "/healthz", "/readyz"}

// NotFound answers an unknown path: JSON (api) for the API and for clients
// that do not ask for HTML, an HTML page in the dashboard's frame for a
// browser.
func (d *Dashboard) NotFound(api http.Handler) http.Handler {
	page := d.sessions.LoadAndSave(d.LoadUser(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		d.pageError(w, r, http.StatusNotFound, nil)
	})))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for _, p := range apiPrefixes {
			if strings.HasPrefix(r.URL.Path, p) {
				api.ServeHTTP(w, r)
				return
			}
		}
		if !strings.Contains(r.Header.Get("Accept"), "text/html") {
			api.ServeHTTP(w, r)
			return
		}
		page.ServeHTTP(w, r)
	})
}
