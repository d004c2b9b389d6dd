package handlers

import (
	"context"
	"net/http"
	"time"

	"github.com/gorilla/mux"

	"github.com/folio-docs/folio/analytics"
)

// EventRecorder stores server-side page views.
type EventRecorder interface {
	Record(ctx context.Context, projectID string, events []analytics.Event) (int, error)
}

type eventsRequest struct {
	Events []analytics.RawEvent `json:"events"`
}

type eventsResponse struct {
	Accepted int `json:"accepted"`
}

// AnalyticsEvents serves POST /v1/analytics/{projectId}/events: up to 1,000
// events, validated whole before any is stored.
func AnalyticsEvents(svc EventRecorder) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		var req eventsRequest
		if e := decodeJSON(r, &req); e != nil {
			WriteError(w, r, e)
			return
		}
		events, problems := analytics.ParseEvents(req.Events, time.Now())
		if problems != nil {
			WriteError(w, r, invalidProblems(problems))
			return
		}
		n, err := svc.Record(r.Context(), mux.Vars(r)["projectId"], events)
		if err != nil {
			writeInternal(w, r, err)
			return
		}
		writeJSON(w, http.StatusOK, eventsResponse{Accepted: n})
	}
}
