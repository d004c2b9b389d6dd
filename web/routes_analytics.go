package main

import (
	"net/http"

	"github.com/gorilla/mux"

	"github.com/folio-docs/folio/analytics"
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
	r.Handle(at+"/agents", api.AnalyticsAgents(svc)).Methods(http.MethodGet, http.MethodHead)
	r.Handle(at+"/referrers", api.AnalyticsReferrers(svc)).Methods(http.MethodGet, http.MethodHead)
	// Searches and feedback in Mintlify's shapes; its assistant's exports
	// say Folio has none.
	r.Handle(at+"/searches", api.AnalyticsSearches(svc)).Methods(http.MethodGet, http.MethodHead)
	r.Handle(at+"/feedback", api.AnalyticsFeedback(svc)).Methods(http.MethodGet, http.MethodHead)
	r.Handle(at+"/feedback/by-page", api.AnalyticsFeedbackByPage(svc)).Methods(http.MethodGet, http.MethodHead)
	r.HandleFunc(at+"/assistant", api.AnalyticsAssistant).Methods(http.MethodGet, http.MethodHead)
	r.HandleFunc(at+"/assistant/caller-stats", api.AnalyticsAssistant).Methods(http.MethodGet, http.MethodHead)
}

// ingestRoutes mounts the doors that take traffic in, which an ingest key
// opens as well as a write key: the events API, its body capped as every
// other, and the drains, which cap their own (a delivery is megabytes).
func (a *app) ingestRoutes(r *mux.Router) {
	const at = "/v1/analytics/{projectId}"
	r.Handle(at+"/events", httpx.LimitBody(api.AnalyticsEvents(a.analytics))).Methods(http.MethodPost)
	for _, provider := range analytics.DrainProviders {
		r.Handle(at+"/drains/"+provider, api.AnalyticsDrain(a.analytics, provider)).Methods(http.MethodPost)
	}
}

// trackerRoutes mounts the browser tracker: its script and its door, both
// without a key (a browser must never hold one).
func (a *app) trackerRoutes(r *mux.Router) {
	// An event a second per address, with room for quick navigations; five
	// feedback an address, then one a minute; and per project, whoever
	// sends them, 20 searches a second (600 at once) and 360 feedback an
	// hour (100 at once), so a script cannot flood a project.
	limits := api.TrackerLimits{PerSecond: 1, Burst: 20,
		Feedback: api.Rate{PerSecond: 1.0 / 60, Burst: 5}, Searches: api.Rate{PerSecond: 20, Burst: 600},
		ProjectFeedback: api.Rate{PerSecond: 0.1, Burst: 100}}
	r.Handle("/js/folio.js", api.TrackerScript(static.FolioJS)).Methods(http.MethodGet, http.MethodHead)
	r.Handle("/api/event", httpx.LimitBody(api.TrackerEvent(a.analytics, limits))).Methods(http.MethodPost, http.MethodOptions)
}
