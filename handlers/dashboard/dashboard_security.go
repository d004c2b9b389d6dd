package dashboard

import (
	"bytes"
	"io"
	"mime"
	"net/http"
	"strings"

	"github.com/folio-docs/folio/handlers/httpx"
)

// pageCSP allows only Folio's own scripts and styles: no inline script, no
// other origin, no framing.
const pageCSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
	"frame-ancestors 'none'; base-uri 'none'; form-action 'self'"

// Protect guards every page: browser security headers, refusal of
// state-changing requests from other sites (http.CrossOriginProtection
// checks Sec-Fetch-Site, or Origin against Host, without tokens), and a
// posted form read whole before any handler looks at it.
func (d *Dashboard) Protect(next http.Handler) http.Handler {
	return d.csrf.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", pageCSP)
		h.Set("X-Frame-Options", "DENY")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "same-origin")
		if e := parseForm(r); e != nil {
			d.pageError(w, r, e.Status, nil)
			return
		}
		next.ServeHTTP(w, r)
	}))
}

// parseForm is the one reader of posted forms. r.PostFormValue would
// ignore a body cut short and carry on with the part that arrived; here
// that is a 400 (and a form too large a 413), before any handler runs.
func parseForm(r *http.Request) *httpx.Error {
	switch r.Method {
	case http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete:
	default:
		return nil
	}
	if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt == "application/x-www-form-urlencoded" {
		data, e := httpx.ReadBody(r, httpx.MaxBodyBytes)
		if e != nil {
			return e
		}
		r.Body = io.NopCloser(bytes.NewReader(data))
	}
	if err := r.ParseForm(); err != nil {
		return httpx.Invalid("The form is malformed: " + err.Error())
	}
	return nil
}

func (d *Dashboard) crossOriginRefused(w http.ResponseWriter, r *http.Request) {
	httpx.Logger(r.Context()).Warn("cross-origin form post refused", "request_id", httpx.RequestID(r.Context()), "path", r.URL.Path,
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
