package api

import (
	"net/http"

	"github.com/folio-docs/folio/handlers/httpx"
	"github.com/folio-docs/folio/jobs"
)

// Message is POST /job/{id}/message: a follow-up prompt (200), honouring Idempotency-Key.
func (h *Jobs) Message(w http.ResponseWriter, r *http.Request) {
	prompt, ok := h.decodePrompt(w, r, jobs.LimitFollowUp)
	if !ok {
		return
	}
	key, ok := idempotencyKey(w, r)
	if !ok {
		return
	}
	c, err := h.svc.FollowUp(r.Context(), projectID(r), jobID(r), prompt, key)
	httpx.SetQuota(w, c.Quota)
	if c.Replayed && err == nil {
		w.Header().Set("Idempotent-Replayed", "true")
	}
	h.writeJob(w, r, http.StatusOK, c.Job, err)
}

// Messages is GET /job/{id}/messages: the conversation in order.
func (h *Jobs) Messages(w http.ResponseWriter, r *http.Request) {
	ms, err := h.svc.Messages(r.Context(), projectID(r), jobID(r))
	if err != nil {
		httpx.WriteDomainError(w, r, err)
		return
	}
	httpx.WriteJSON(w, http.StatusOK, MessageList{Messages: ms})
}

// MessageList is the answer of GET /job/{id}/messages.
type MessageList struct {
	Messages []jobs.Message `json:"messages"`
}
