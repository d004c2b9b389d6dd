package main

import (
	"net/http"

	"github.com/gorilla/mux"

	"github.com/folio-docs/folio/handlers"
)

// agentRoutes mounts the agent job API (CONTRACT §2) under /v2/agent/{projectId}.
func (a *app) agentRoutes(r *mux.Router) {
	h := handlers.NewJobs(a.jobs)
	get := []string{http.MethodGet, http.MethodHead}
	// gorilla/mux tries routes in order, a regexp each, and these patterns
	// cannot overlap: the polling endpoint, most requests by far, goes first.
	r.HandleFunc("/job/{id}", h.Get).Methods(get...)
	r.HandleFunc("/job", h.Create).Methods(http.MethodPost)
	r.HandleFunc("/jobs", h.List).Methods(get...)
	r.HandleFunc("/job/{id}/message", h.Message).Methods(http.MethodPost)
	r.HandleFunc("/job/{id}/messages", h.Messages).Methods(get...)
	r.HandleFunc("/job/{id}/archive", h.Archive).Methods(http.MethodPost)
	r.HandleFunc("/job/{id}/cancel", h.Cancel).Methods(http.MethodPost)
}
