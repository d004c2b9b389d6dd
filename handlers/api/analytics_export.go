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
}

// AnalyticsVisitors serves GET /v1/analytics/{projectId}/visitors.
func AnalyticsVisitors(svc AnalyticsExporter) http.HandlerFunc {
	return analyticsExport(svc.Visitors)
}

// AnalyticsViews serves GET /v1/analytics/{projectId}/views.
func AnalyticsViews(svc AnalyticsExporter) http.HandlerFunc {
	return analyticsExport(svc.Views)
}

// analyticsExport reads the export's parameters, naming any that is wrong
// or unknown, and answers what export finds.
func analyticsExport[T any](export func(context.Context, string, analytics.Query) (T, error)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		params, e := httpx.OnlyQuery(r, "dateFrom", "dateTo", "limit", "offset")
		if e != nil {
			httpx.WriteError(w, r, e)
			return
		}
		q, problems := analytics.ParseQuery(params.Get)
		if problems != nil {
			httpx.WriteDomainError(w, r, problems)
			return
		}
		out, err := export(r.Context(), mux.Vars(r)["projectId"], q)
		if err != nil {
			httpx.WriteInternal(w, r, err)
			return
		}
		httpx.WriteJSON(w, http.StatusOK, out)
	}
}
