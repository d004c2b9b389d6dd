package httpx

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/folio-docs/folio/model"
)

// Stable error codes of the contract (§5).
const (
	CodeInvalidRequest       = "invalid_request"
	CodeUnauthorized         = "unauthorized"
	CodeForbidden            = "forbidden"
	CodeIPNotAllowed         = "ip_not_allowed"
	CodeNotFound             = "not_found"
	CodeMethodNotAllowed     = "method_not_allowed"
	CodeConflict             = "conflict"
	CodePayloadTooLarge      = "payload_too_large"
	CodeUnsupportedMediaType = "unsupported_media_type"
	CodeRateLimited          = "rate_limited"
	CodeInternal             = "internal"
	CodeUnavailable          = "unavailable"
	CodeJobArchived          = "job_archived"
	CodeIdempotencyConflict  = "idempotency_conflict"
)

// Error is the body of every error response.
type Error struct {
	Status    int               `json:"-"`
	Message   string            `json:"error"`
	Code      string            `json:"code"`
	Details   model.FieldErrors `json:"details,omitempty"`
	RequestID string            `json:"requestId,omitempty"`
}

func (e *Error) Error() string { return e.Message }

// NewError builds an error response.
func NewError(status int, code, format string, args ...any) *Error {
	return &Error{Status: status, Code: code, Message: fmt.Sprintf(format, args...)}
}

// Invalid is a 400 naming the fields at fault.
func Invalid(message string, details ...model.FieldError) *Error {
	return &Error{Status: http.StatusBadRequest, Code: CodeInvalidRequest, Message: message, Details: details}
}

// InvalidField is a 400 about one field, whose message is also the error's.
func InvalidField(field, message string) *Error {
	return Invalid(message, model.FieldError{Field: field, Message: message})
}

// WriteError is the one writer of error responses. A server error met
// because the client went away is the client's: a 400, never a 5xx.
func WriteError(w http.ResponseWriter, r *http.Request, e *Error) {
	if e.Status >= 500 && ClientGone(r) {
		LogClientGone(r, errors.New(e.Message))
		e = errClientGone()
	}
	h := w.Header()
	switch e.Status {
	case http.StatusUnauthorized:
		if h.Get("WWW-Authenticate") == "" { // git's door asks for Basic
			h.Set("WWW-Authenticate", `Bearer realm="folio"`)
		}
	case http.StatusInternalServerError:
		e.RequestID = RequestID(r.Context())
	}
	WriteJSON(w, e.Status, e)
}

// WriteInternal answers 500 without internals and logs the cause with the
// request id so an operator can find it.
func WriteInternal(w http.ResponseWriter, r *http.Request, err error) {
	if ClientGone(r) {
		LogClientGone(r, err)
		WriteError(w, r, errClientGone())
		return
	}
	id := RequestID(r.Context())
	Logger(r.Context()).Error("internal error", "request_id", id, "method", r.Method, "path", r.URL.Path, "err", err)
	WriteError(w, r, NewError(http.StatusInternalServerError, CodeInternal, "Internal server error; quote request id %s when reporting it.", id))
}

// ClientGone reports whether the client has gone away: net/http cancels a
// request's context when its connection closes, so whatever failed after
// that failed for want of a client, not through a fault of the server.
func ClientGone(r *http.Request) bool {
	return errors.Is(r.Context().Err(), context.Canceled)
}

// LogClientGone notes at INFO a request its client abandoned or cut short.
func LogClientGone(r *http.Request, err error) {
	Logger(r.Context()).Info("client went away", "request_id", RequestID(r.Context()), "method", r.Method, "path", r.URL.Path, "err", err)
}

func errClientGone() *Error {
	return Invalid("The request was cut short: the connection closed before it was complete.")
}

// ReadBody reads a request body whole, up to limit bytes. A body larger
// than that is a 413; a body that cannot be read (shorter than its
// Content-Length, or its client gone) is the client's fault: a 400,
// logged at INFO.
func ReadBody(r *http.Request, limit int64) ([]byte, *Error) {
	data, err := io.ReadAll(http.MaxBytesReader(nil, r.Body, limit))
	if err != nil {
		return nil, bodyError(r, err, limit)
	}
	return data, nil
}

// bodyError is the answer to an error met reading a request body.
func bodyError(r *http.Request, err error, limit int64) *Error {
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		return NewError(http.StatusRequestEntityTooLarge, CodePayloadTooLarge, "The request body is larger than %d bytes.", limit)
	}
	LogClientGone(r, err)
	return Invalid("The request body could not be read in full: it ended before its Content-Length, or the connection closed.")
}
