package handlers

import (
	"net/http"

	"github.com/folio-docs/folio/jobs"
)

// Message is POST /job/{id}/message: a follow-up prompt (200).
func (h *Jobs) Message(w http.ResponseWriter, r *http.Request) {
	prompt, ok := h.decodePrompt(w, r, jobs.LimitFollowUp)
	if !ok {
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
