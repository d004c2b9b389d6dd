package main

import (
	"net/http"

	"github.com/gorilla/mux"

	"github.com/folio-docs/folio/handlers/internalapi"
	"github.com/folio-docs/folio/jobs"
)

// workerRoutes are what workers on other machines use: the internal API
// (not in /openapi.json) and the local repositories over git's smart HTTP.
func (a *app) workerRoutes(r *mux.Router) {
	token := internalapi.NewWorkerToken(a.cfg.WorkerToken)
	if a.jobs != nil {
		api := internalapi.WorkerAPI(a.jobs.LocalStore(), jobs.ServerInfo{BaseURL: a.cfg.BaseURL})
		r.PathPrefix(jobs.WorkerAPIPath).Handler(internalapi.RequireWorkerToken(token, api))
	}
	git := internalapi.GitHTTP(a.db, a.keys, token, a.gitHooksDir())
	r.Handle("/git/{projectId}.git/{path:.*}", git).Methods(http.MethodGet, http.MethodPost)
}
