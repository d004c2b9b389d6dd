package api

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"net/http"
	"time"

	"github.com/gorilla/mux"

	"github.com/folio-docs/folio/analytics"
	"github.com/folio-docs/folio/handlers/httpx"
	"github.com/folio-docs/folio/model"
)

// EventRecorder stores server-side events: page views, searches and
// feedback.
type EventRecorder interface {
	RecordEvents(ctx context.Context, projectID string, events analytics.Events, batch *analytics.Batch) (int, bool, error)
}

type eventsRequest struct {
	Events []analytics.RawEvent `json:"events"`
}

// EventsAccepted is the answer of POST /events.
type EventsAccepted struct {
	Accepted int `json:"accepted"`
}

// AnalyticsEvents serves POST /v1/analytics/{projectId}/events: up to 1,000
// events (page views, searches, search clicks, feedback), validated whole
// before any is stored. With an Idempotency-Key,
// the same key and events within 24 hours are stored once and answered as
// the first time; another batch under the key is 409 idempotency_conflict.
func AnalyticsEvents(svc EventRecorder) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		key := r.Header.Get("Idempotency-Key")
		if len(key) > httpx.MaxIdempotencyKey {
			httpx.WriteError(w, r, httpx.InvalidField("Idempotency-Key", "The Idempotency-Key header must be at most 255 bytes."))
			return
		}
		var req eventsRequest
		if e := httpx.DecodeJSON(r, &req); e != nil {
			httpx.WriteError(w, r, e)
			return
		}
		events, problems := analytics.ParseEvents(req.Events, time.Now())
		if problems != nil {
			httpx.WriteDomainError(w, r, problems)
			return
		}
		var batch *analytics.Batch
		if key != "" {
			// The decoded events, re-encoded, are the body: the same
			// batch sent with other spacing or field order is the same.
			body, err := json.Marshal(req.Events)
			if err != nil {
				httpx.WriteInternal(w, r, err)
				return
			}
			sum := sha256.Sum256(body)
			batch = &analytics.Batch{Key: key, BodyHash: sum[:]}
		}
		n, replayed, err := svc.RecordEvents(r.Context(), mux.Vars(r)["projectId"], events, batch)
		switch {
		case errors.Is(err, model.ErrIdempotencyConflict):
			e := httpx.ErrorOf(err)
			e.Message = "This Idempotency-Key was already used with a different batch of events." // the API's words name a body
			httpx.WriteError(w, r, e)
			return
		case err != nil:
			httpx.WriteDomainError(w, r, err)
			return
		}
		if replayed {
			w.Header().Set("Idempotent-Replayed", "true")
		}
		httpx.WriteJSON(w, http.StatusOK, EventsAccepted{Accepted: n})
	}
}
