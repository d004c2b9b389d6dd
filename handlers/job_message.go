package handlers

import (
	"net/http"

	"github.com/folio-docs/folio/jobs"
)

// Message is POST /job/{id}/message: a follow-up prompt (200).
func (h *Jobs) Message(w http.ResponseWriter, r *http.Request) {
	prompt, e := decodePrompt(r)
	if e != nil {
		setQuota(w, h.svc.Quota(r.Context(), projectID(r), jobs.LimitFollowUp))
		WriteError(w, r, e)
		return
	}
	c, err := h.svc.Message(r.Context(), projectID(r), jobID(r), prompt)
	setQuota(w, c.Quota)
	writeJob(w, r, http.StatusOK, c.Job, err)
}

// Messages is GET /job/{id}/messages: the conversation in order.
func (h *Jobs) Messages(w http.ResponseWriter, r *http.Request) {
	ms, err := h.svc.Messages(r.Context(), projectID(r), jobID(r))
	if err != nil {
		writeJobError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"messages": ms})
}
