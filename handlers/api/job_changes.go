package api

import (
	"net/http"

	"github.com/folio-docs/folio/handlers/httpx"
)

// Changes is GET /job/{id}/changes: the job's branch against its ref.
func (h *Jobs) Changes(w http.ResponseWriter, r *http.Request) {
	c, _, err := h.svc.Changes(r.Context(), projectID(r), jobID(r))
	if err != nil {
		httpx.WriteDomainError(w, r, err)
		return
	}
	httpx.WriteJSON(w, http.StatusOK, c)
}

// Merge is POST /job/{id}/merge: land the branch in the ref and archive
// the job (200), or 409 when there is nothing to merge, the job is active
// or archived, or the branch does not merge cleanly.
func (h *Jobs) Merge(w http.ResponseWriter, r *http.Request) {
	j, err := h.svc.Merge(r.Context(), projectID(r), jobID(r))
	h.writeJob(w, r, http.StatusOK, j, err)
}
