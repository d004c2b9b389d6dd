package main

import (
	"net/http"

	"github.com/folio-docs/folio/handlers/api"
	"github.com/gorilla/mux"
)

// agentRoutes mounts the agent job API (CONTRACT §2).
func (a *app) agentRoutes(r *mux.Router) {
	const at = "/v2/agent/{projectId}"
	h := api.NewJobs(a.jobs, a.cfg.EventKeepAlive)
	get := []string{http.MethodGet, http.MethodHead}
	// gorilla/mux tries routes in order, a regexp each, and these patterns
	// cannot overlap: the polling endpoint, most requests by far, goes first.
	r.HandleFunc(at+"/job/{id}", h.Get).Methods(get...)
	r.HandleFunc(at+"/job", h.Create).Methods(http.MethodPost)
	r.HandleFunc(at+"/jobs", h.List).Methods(get...)
	r.HandleFunc(at+"/models", h.Models).Methods(get...)
	r.HandleFunc(at+"/job/{id}/message", h.Message).Methods(http.MethodPost)
	r.HandleFunc(at+"/job/{id}/messages", h.Messages).Methods(get...)
	r.HandleFunc(at+"/job/{id}/archive", h.Archive).Methods(http.MethodPost)
	r.HandleFunc(at+"/job/{id}/cancel", h.Cancel).Methods(http.MethodPost)
	r.HandleFunc(at+"/job/{id}/changes", h.Changes).Methods(get...)
	r.HandleFunc(at+"/job/{id}/merge", h.Merge).Methods(http.MethodPost)
	r.HandleFunc(at+"/job/{id}/events", h.Events).Methods(get...)
}
