package api

import (
	"net/http"

	"github.com/folio-docs/folio/handlers/httpx"
)

// Get is GET /job/{id}: the polling endpoint.
func (h *Jobs) Get(w http.ResponseWriter, r *http.Request) {
	j, err := h.svc.ShowJSON(r.Context(), projectID(r), jobID(r))
	if err != nil {
		httpx.WriteDomainError(w, r, err)
		return
	}
	httpx.WriteEncoded(w, http.StatusOK, j)
}

// Archive is POST /job/{id}/archive.
func (h *Jobs) Archive(w http.ResponseWriter, r *http.Request) {
	j, err := h.svc.Archive(r.Context(), projectID(r), jobID(r))
	h.writeJob(w, r, http.StatusOK, j, err)
}

// Cancel is POST /job/{id}/cancel.
func (h *Jobs) Cancel(w http.ResponseWriter, r *http.Request) {
	j, err := h.svc.Cancel(r.Context(), projectID(r), jobID(r))
	h.writeJob(w, r, http.StatusOK, j, err)
}
