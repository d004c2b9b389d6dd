package api

import (
	"context"
	"net/http"
	"net/netip"

	"github.com/gorilla/mux"

	"github.com/folio-docs/folio/handlers/httpx"
	"github.com/folio-docs/folio/model"
)

// Authenticator admits a request's API key (auth.Keys.Admit): valid, used
// from an address its allowlist admits, for a project it opens.
type Authenticator interface {
	Admit(ctx context.Context, authorization, projectID string, client netip.Addr) (model.APIKey, error)
}

// RequireAPIKey guards the /v1 and /v2 API: a valid, unexpired, unrevoked
// key (401), used from an address its IP allowlist admits (403
// ip_not_allowed; the client's address is FOLIO_TRUSTED_PROXIES' rule's),
// opening the project in the path (404, as for a project that does not
// exist, so ids never leak), whose scope allows the method (403). An ingest
// key is refused here: it opens only the doors RequireIngestKey guards.
func RequireAPIKey(keys Authenticator) mux.MiddlewareFunc { return requireKey(keys, false) }

// RequireIngestKey guards the doors that take traffic in (the events API,
// the drains) as RequireAPIKey does the rest, but admits an ingest key as
// well as a write key: a key a third party may hold (CONTRACT §4).
func RequireIngestKey(keys Authenticator) mux.MiddlewareFunc { return requireKey(keys, true) }

func requireKey(keys Authenticator, ingest bool) mux.MiddlewareFunc {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			client, _ := netip.ParseAddr(httpx.ClientIP(r)) // not an address: no allowlist admits it
			key, err := keys.Admit(r.Context(), r.Header.Get("Authorization"), mux.Vars(r)["projectId"], client)
			if err != nil {
				httpx.WriteDomainError(w, r, err) // 401, 403 ip_not_allowed or 404
				return
			}
			if !key.Allows(r.Method, ingest) {
				e := httpx.NewError(http.StatusForbidden, httpx.CodeForbidden, "This API key is read-only; a write key is needed for %s.", r.Method)
				if key.Scope == model.ScopeIngest {
					e = httpx.NewError(http.StatusForbidden, httpx.CodeForbidden, "This API key has the ingest scope: it may only send traffic, to the events API and the drains.")
				}
				httpx.WriteError(w, r, e)
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}
