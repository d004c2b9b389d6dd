package handlers

import (
	"net/http"

	"github.com/folio-docs/folio/jobs"
)

// MaxIdempotencyKey is the longest Idempotency-Key accepted.
const MaxIdempotencyKey = 255

// Create is POST /job: start a job (201), honouring Idempotency-Key.
func (h *Jobs) Create(w http.ResponseWriter, r *http.Request) {
	prompt, ok := h.decodePrompt(w, r, jobs.LimitCreate)
	if !ok {
		return
	}
	key := r.Header.Get("Idempotency-Key")
	if len(key) > MaxIdempotencyKey {
		WriteError(w, r, InvalidField("Idempotency-Key", "The Idempotency-Key header must be at most 255 bytes."))
		return
	}
	c, err := h.svc.Create(r.Context(), projectID(r), prompt, key)
	setQuota(w, c.Quota)
	if c.Replayed && err == nil {
		w.Header().Set("Idempotent-Replayed", "true")
	}
	writeJob(w, r, http.StatusCreated, c.Job, err)
}
