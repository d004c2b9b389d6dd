package api

import (
	"context"
	"net/http"

	"github.com/gorilla/mux"

	"github.com/folio-docs/folio/analytics"
	"github.com/folio-docs/folio/handlers/httpx"
	"github.com/folio-docs/folio/model"
)

// FeedbackExporter answers the searches and feedback exports, Mintlify's
// shapes (analytics.Service).
type FeedbackExporter interface {
	Searches(ctx context.Context, projectID string, q analytics.CursorQuery) (analytics.Searches, error)
	Feedback(ctx context.Context, projectID string, q analytics.FeedbackQuery) (analytics.FeedbackExport, error)
	FeedbackByPage(ctx context.Context, projectID string, q analytics.FeedbackQuery) (analytics.FeedbackByPage, error)
}

// AnalyticsSearches serves GET /v1/analytics/{projectId}/searches.
func AnalyticsSearches(svc FeedbackExporter) http.HandlerFunc {
	return cursorExport([]string{"dateFrom", "dateTo", "limit", "cursor"}, analytics.ParseSearchesQuery, svc.Searches)
}

// AnalyticsFeedback serves GET /v1/analytics/{projectId}/feedback.
func AnalyticsFeedback(svc FeedbackExporter) http.HandlerFunc {
	return cursorExport([]string{"dateFrom", "dateTo", "limit", "cursor", "source", "status"}, analytics.ParseFeedbackQuery, svc.Feedback)
}

// AnalyticsFeedbackByPage serves GET /v1/analytics/{projectId}/feedback/by-page.
func AnalyticsFeedbackByPage(svc FeedbackExporter) http.HandlerFunc {
	return cursorExport([]string{"dateFrom", "dateTo", "limit", "cursor", "source", "status"}, analytics.ParseFeedbackByPageQuery, svc.FeedbackByPage)
}

// cursorExport reads an export's parameters (allowed, naming any unknown
// or wrong) and answers what export finds.
func cursorExport[Q, T any](allowed []string, parse func(func(string) string) (Q, model.FieldErrors), export func(context.Context, string, Q) (T, error)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		params, e := httpx.OnlyQuery(r, allowed...)
		if e != nil {
			httpx.WriteError(w, r, e)
			return
		}
		q, problems := parse(params.Get)
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

// AnalyticsAssistant answers Mintlify's assistant exports: Folio has no
// assistant, so there is nothing to export.
func AnalyticsAssistant(w http.ResponseWriter, r *http.Request) {
	httpx.WriteError(w, r, httpx.NewError(http.StatusNotFound, httpx.CodeNotFound, "Folio has no assistant, so there are no assistant conversations or caller stats to export."))
}
