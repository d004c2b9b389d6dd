package main

import (
	"net/http"

	"github.com/gorilla/mux"

	"github.com/folio-docs/folio/handlers/api"
	"github.com/folio-docs/folio/handlers/httpx"
	"github.com/folio-docs/folio/handlers/internalapi"
)

// routes assembles every HTTP route of Folio.
func (a *app) routes() http.Handler {
	return httpx.ClientAddress(a.cfg.TrustedProxies)(httpx.Observe(a.log)(a.router()))
}

func (a *app) router() *mux.Router {
	r := mux.NewRouter()
	r.NotFoundHandler = httpx.Unmatched(r)
	r.MethodNotAllowedHandler = r.NotFoundHandler
	r.Use(httpx.NoteRoute) // runs on matched routes only; the rest count as unmatched

	r.HandleFunc("/healthz", api.Healthz).Methods(http.MethodGet, http.MethodHead)
	ready := map[string]api.Pinger{"database": a.db}
	if a.rdb != nil {
		ready["redis"] = redisPinger{a.rdb}
	}
	r.Handle("/readyz", api.Readyz(ready)).Methods(http.MethodGet, http.MethodHead)
	r.Handle("/openapi.json", api.OpenAPI(api.FolioOpenAPI(a.cfg.BaseURL))).Methods(http.MethodGet, http.MethodHead)

	// The keyed APIs are groups for their middleware only, not matched by a
	// path prefix: each route carries its whole path, which spares every
	// request a regexp match and a variable extraction for the prefix.
	requireKey := api.RequireAPIKey(a.keys)
	agent := r.NewRoute().Subrouter()
	agent.Use(httpx.LimitBody, requireKey)
	a.agentRoutes(agent)

	analytics := r.NewRoute().Subrouter()
	analytics.Use(httpx.LimitBody, requireKey)
	a.analyticsRoutes(analytics)
	ingest := r.NewRoute().Subrouter()
	ingest.Use(api.RequireIngestKey(a.keys))
	a.ingestRoutes(ingest)
	a.trackerRoutes(r)

	if a.jobs != nil {
		// GitHub says when a job's pull request is merged or closed: the job is archived.
		r.Handle("/webhooks/github", internalapi.GitHubWebhook(a.cfg.GitHubWebhookSecret, a.jobs)).Methods(http.MethodPost) // caps its own body: deliveries reach 25 MiB
	}

	a.workerRoutes(r)
	a.dashboardRoutes(r)

	return r
}
