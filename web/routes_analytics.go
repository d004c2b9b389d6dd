package main

import (
	"net/http"

	"github.com/gorilla/mux"

	"github.com/folio-docs/folio/handlers/api"
	"github.com/folio-docs/folio/handlers/httpx"
	"github.com/folio-docs/folio/static"
)

// analyticsRoutes mounts the analytics API (CONTRACT §3).
func (a *app) analyticsRoutes(r *mux.Router) {
	const at = "/v1/analytics/{projectId}"
	svc := a.analytics
	r.Handle(at+"/visitors", api.AnalyticsVisitors(svc)).Methods(http.MethodGet, http.MethodHead)
	r.Handle(at+"/views", api.AnalyticsViews(svc)).Methods(http.MethodGet, http.MethodHead)
	r.Handle(at+"/events", api.AnalyticsEvents(svc)).Methods(http.MethodPost)
}

// trackerRoutes mounts the browser tracker: its script and its door, both
// without a key (a browser must never hold one).
func (a *app) trackerRoutes(r *mux.Router) {
	// A page view a second per address, with room for quick navigations.
	limits := api.TrackerLimits{PerSecond: 1, Burst: 20}
	r.Handle("/js/folio.js", api.TrackerScript(static.FolioJS)).Methods(http.MethodGet, http.MethodHead)
	r.Handle("/api/event", httpx.LimitBody(api.TrackerEvent(a.analytics, limits))).Methods(http.MethodPost, http.MethodOptions)
}
