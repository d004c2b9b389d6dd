package api

import (
	"context"
	"net/http"

	"github.com/gorilla/mux"

	"github.com/folio-docs/folio/analytics"
	"github.com/folio-docs/folio/handlers/httpx"
)

// AnalyticsExporter answers the analytics exports.
type AnalyticsExporter interface {
	Visitors(ctx context.Context, projectID string, q analytics.Query) (analytics.Visitors, error)
	Views(ctx context.Context, projectID string, q analytics.Query) (analytics.Views, error)
	Agents(ctx context.Context, projectID string, q analytics.Query, path string) (analytics.Agents, error)
}

// AnalyticsVisitors serves GET /v1/analytics/{projectId}/visitors.
func AnalyticsVisitors(svc AnalyticsExporter) http.HandlerFunc {
	return analyticsExport(svc.Visitors)
}

// AnalyticsViews serves GET /v1/analytics/{projectId}/views.
func AnalyticsViews(svc AnalyticsExporter) http.HandlerFunc {
	return analyticsExport(svc.Views)
}

// AnalyticsAgents serves GET /v1/analytics/{projectId}/agents: the
// exports' parameters and an optional path (one page, exact match).
func AnalyticsAgents(svc AnalyticsExporter) http.HandlerFunc {
	return analyticsExportWith([]string{"path"}, func(ctx context.Context, projectID string, q analytics.Query, get func(string) string) (analytics.Agents, error) {
		return svc.Agents(ctx, projectID, q, get("path"))
	})
}

// analyticsExport reads the export's parameters, naming any that is wrong
// or unknown, and answers what export finds.
func analyticsExport[T any](export func(context.Context, string, analytics.Query) (T, error)) http.HandlerFunc {
	return analyticsExportWith(nil, func(ctx context.Context, projectID string, q analytics.Query, _ func(string) string) (T, error) {
		return export(ctx, projectID, q)
	})
}

// analyticsExportWith is analyticsExport for an export that takes more
// parameters (extra) than the common ones.
func analyticsExportWith[T any](extra []string, export func(context.Context, string, analytics.Query, func(string) string) (T, error)) http.HandlerFunc {
	allowed := append([]string{"dateFrom", "dateTo", "limit", "offset"}, extra...)
	return func(w http.ResponseWriter, r *http.Request) {
		params, e := httpx.OnlyQuery(r, allowed...)
		if e != nil {
			httpx.WriteError(w, r, e)
			return
		}
		q, problems := analytics.ParseQuery(params.Get)
		if problems != nil {
			httpx.WriteDomainError(w, r, problems)
			return
		}
		out, err := export(r.Context(), mux.Vars(r)["projectId"], q, params.Get)
		if err != nil {
			httpx.WriteInternal(w, r, err)
			return
		}
		httpx.WriteJSON(w, http.StatusOK, out)
	}
}
