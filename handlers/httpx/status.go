package httpx

import (
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/folio-docs/folio/model"
)

// refusals are the domain's sentinel errors as the contract answers them
// (CONTRACT §5): the first one err is wins, so each comes before the
// errors it wraps (a job not found before any not found).
var refusals = []struct {
	err    error
	status int
	code   string
	msg    string
}{
	{model.ErrJobNotFound, http.StatusNotFound, CodeNotFound, "Job not found."},
	{model.ErrProjectNotFound, http.StatusNotFound, CodeNotFound, "Project not found."},
	{model.ErrNotFound, http.StatusNotFound, CodeNotFound, "Not found."},
	{model.ErrJobArchived, http.StatusConflict, CodeJobArchived, "The job is archived; it cannot be changed."},
	{model.ErrJobBusy, http.StatusConflict, CodeConflict, "The agent is still working on the job; merge once its turn ends."},
	{model.ErrNothingToMerge, http.StatusConflict, CodeConflict, "There is nothing to merge: the job's branch brings no change to its ref."},
	{model.ErrMergeConflict, http.StatusConflict, CodeConflict, "The job's branch does not merge cleanly into its ref; nothing was merged. Send a follow-up to redo the change on top of the ref."},
	{model.ErrJobNotActive, http.StatusConflict, CodeConflict, "The job is not active; only an active job can be cancelled."},
	{model.ErrIdempotencyConflict, http.StatusConflict, CodeIdempotencyConflict, "This Idempotency-Key was already used with a different request body."},
	{model.ErrQueueUnavailable, http.StatusServiceUnavailable, CodeUnavailable, "The job queue is unavailable; nothing was stored. Try again shortly."},
	{model.ErrNoKey, http.StatusUnauthorized, CodeUnauthorized, "Missing API key: send Authorization: Bearer <key>."},
	{model.ErrMalformed, http.StatusUnauthorized, CodeUnauthorized, "Invalid API key: it is malformed, unknown, expired or revoked."},
	{model.ErrUnknownKey, http.StatusUnauthorized, CodeUnauthorized, "Invalid API key: it is malformed, unknown, expired or revoked."},
	{model.ErrIPNotAllowed, http.StatusForbidden, CodeIPNotAllowed, "This API key may not be used from your address: it is outside the key's IP allowlist."},
	{model.ErrOriginNotAllowed, http.StatusForbidden, CodeForbidden, "This origin is not one of the project's allowed domains."},
	{model.ErrDrainTooLarge, http.StatusRequestEntityTooLarge, CodePayloadTooLarge, "The delivery is over a drain's limits, so nothing of it was stored."},
}

// StatusOf maps a domain error to the contract's answer: its status, its
// code and a sentence for the client. It is the one such mapping; the API
// answers with all three (WriteDomainError), the dashboard with the status
// and words of its own. An error it does not know is a 500 internal with
// no sentence: its cause is for the log, never the client.
func StatusOf(err error) (status int, code, msg string) {
	var fields model.FieldErrors
	var limited *model.RateLimitedError
	switch {
	case err == nil:
		return http.StatusOK, "", ""
	case errors.As(err, &fields) && len(fields) > 0:
		return http.StatusBadRequest, CodeInvalidRequest, fieldsSentence(fields)
	case errors.As(err, &limited):
		return http.StatusTooManyRequests, CodeRateLimited, fmt.Sprintf("Rate limit exceeded: %d requests per hour for this project; retry after the Retry-After seconds.", limited.Limit)
	}
	for _, r := range refusals {
		if errors.Is(err, r.err) {
			return r.status, r.code, r.msg
		}
	}
	return http.StatusInternalServerError, CodeInternal, ""
}

// fieldsSentence is the error of a request refused for its fields: the
// one field's own sentence, or how many fields and which.
func fieldsSentence(fields model.FieldErrors) string {
	if len(fields) == 1 {
		return fields[0].Message
	}
	names := make([]string, len(fields))
	for i, f := range fields {
		names[i] = f.Field
	}
	return fmt.Sprintf("%d fields are invalid: %s.", len(fields), strings.Join(names, ", "))
}

// ErrorOf is a domain error as the API's error body (StatusOf), naming the
// fields at fault in its details; nil for an error StatusOf does not know.
func ErrorOf(err error) *Error {
	status, code, msg := StatusOf(err)
	if status == http.StatusInternalServerError || err == nil {
		return nil
	}
	e := &Error{Status: status, Code: code, Message: msg}
	var fields model.FieldErrors
	if errors.As(err, &fields) {
		e.Details = fields
	}
	return e
}

// WriteDomainError answers a domain error in the contract's shape
// (ErrorOf), a refused rate limit with its Retry-After; an error the
// mapping does not know is logged and answered 500 (WriteInternal).
func WriteDomainError(w http.ResponseWriter, r *http.Request, err error) {
	e := ErrorOf(err)
	if e == nil {
		WriteInternal(w, r, err)
		return
	}
	var limited *model.RateLimitedError
	if errors.As(err, &limited) {
		SetRetryAfter(w, limited.Reset)
	}
	WriteError(w, r, e)
}
