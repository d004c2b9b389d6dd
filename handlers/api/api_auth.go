package api

import (
	"context"
	"net/http"

	"github.com/gorilla/mux"

	"github.com/folio-docs/folio/handlers/httpx"
	"github.com/folio-docs/folio/model"
)

// Authenticator turns an Authorization header into an API key.
type Authenticator interface {
	Authenticate(ctx context.Context, authorization string) (model.APIKey, error)
}

// RequireAPIKey guards the /v1 and /v2 API: a valid, unexpired, unrevoked
// key (401), bound to the project in the path (404, as for a project that
// does not exist, so ids never leak), whose scope allows the method (403).
// An ingest key is refused here: it opens only the doors RequireIngestKey
// guards.
func RequireAPIKey(keys Authenticator) mux.MiddlewareFunc { return requireKey(keys, false) }

// RequireIngestKey guards the doors that take traffic in (the events API,
// the drains) as RequireAPIKey does the rest, but admits an ingest key as
// well as a write key: a key a third party may hold (CONTRACT §4).
func RequireIngestKey(keys Authenticator) mux.MiddlewareFunc { return requireKey(keys, true) }

func requireKey(keys Authenticator, ingest bool) mux.MiddlewareFunc {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			key, err := keys.Authenticate(r.Context(), r.Header.Get("Authorization"))
			if err != nil {
				httpx.WriteDomainError(w, r, err) // a missing or refused key is a 401
				return
			}
			if pid, ok := mux.Vars(r)["projectId"]; ok && pid != key.ProjectID {
				httpx.WriteDomainError(w, r, model.ErrProjectNotFound)
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
