package main

import (
	"net/http"

	"github.com/gorilla/mux"

	"github.com/folio-docs/folio/handlers"
)

// routes assembles every HTTP route of Folio.
func (a *app) routes() http.Handler {
	r := mux.NewRouter()
	r.NotFoundHandler = http.HandlerFunc(handlers.NotFound)
	r.MethodNotAllowedHandler = handlers.MethodNotAllowed(r)

	r.HandleFunc("/healthz", handlers.Healthz).Methods(http.MethodGet, http.MethodHead)
	ready := map[string]handlers.Pinger{"database": a.db}
	if a.rdb != nil {
		ready["redis"] = redisPinger{a.rdb}
	}
	r.Handle("/readyz", handlers.Readyz(ready)).Methods(http.MethodGet, http.MethodHead)

	requireKey := handlers.RequireAPIKey(a.keys)
	agent := r.PathPrefix("/v2/agent/{projectId}").Subrouter()
	agent.Use(handlers.LimitBody, requireKey)
	a.agentRoutes(agent)

	analytics := r.PathPrefix("/v1/analytics/{projectId}").Subrouter()
	analytics.Use(handlers.LimitBody, requireKey)
	a.analyticsRoutes(analytics)
	a.trackerRoutes(r)

	return handlers.Observe(a.log)(r)
}
