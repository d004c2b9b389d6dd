package api

import (
	"net/http"

	"github.com/folio-docs/folio/handlers/httpx"
	"github.com/folio-docs/folio/jobs"
)

// Events is GET /job/{id}/events: the job's server-sent events, from the
// client's Last-Event-ID on.
func (h *Jobs) Events(w http.ResponseWriter, r *http.Request) {
	after, _ := jobs.ParseEventCursor(r.Header.Get("Last-Event-ID"))
	httpx.StreamJobEvents(w, r, h.svc, h.keepAlive, projectID(r), jobID(r), after, httpx.WriteDomainError)
}
