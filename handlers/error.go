// Package handlers speaks Folio's HTTP: it decodes and validates requests,
// calls one domain function each, and encodes the answer or the contract's
// error.
package handlers

import (
	"fmt"
	"net/http"
)

// Stable error codes of the contract (§5).
const (
	CodeInvalidRequest       = "invalid_request"
	CodeUnauthorized         = "unauthorized"
	CodeForbidden            = "forbidden"
	CodeNotFound             = "not_found"
	CodeMethodNotAllowed     = "method_not_allowed"
	CodeConflict             = "conflict"
	CodePayloadTooLarge      = "payload_too_large"
	CodeUnsupportedMediaType = "unsupported_media_type"
	CodeRateLimited          = "rate_limited"
	CodeInternal             = "internal"
	CodeUnavailable          = "unavailable"
)

// FieldError names one invalid field of a request.
type FieldError struct {
	Field   string `json:"field"`
	Message string `json:"message"`
}

// Error is the body of every error response.
type Error struct {
	Status    int          `json:"-"`
	Message   string       `json:"error"`
	Code      string       `json:"code"`
	Details   []FieldError `json:"details,omitempty"`
	RequestID string       `json:"requestId,omitempty"`
}

func (e *Error) Error() string { return e.Message }

// NewError builds an error response.
func NewError(status int, code, format string, args ...any) *Error {
	return &Error{Status: status, Code: code, Message: fmt.Sprintf(format, args...)}
}

// Invalid is a 400 naming the fields at fault.
func Invalid(message string, details ...FieldError) *Error {
	return &Error{Status: http.StatusBadRequest, Code: CodeInvalidRequest, Message: message, Details: details}
}

// InvalidField is a 400 about one field, whose message is also the error's.
func InvalidField(field, message string) *Error {
	return Invalid(message, FieldError{Field: field, Message: message})
}

// WriteError is the one writer of error responses.
func WriteError(w http.ResponseWriter, r *http.Request, e *Error) {
	h := w.Header()
	switch e.Status {
	case http.StatusUnauthorized:
		if h.Get("WWW-Authenticate") == "" { // git's door asks for Basic
			h.Set("WWW-Authenticate", `Bearer realm="folio"`)
		}
	case http.StatusInternalServerError:
		e.RequestID = RequestID(r.Context())
	}
	writeJSON(w, e.Status, e)
}

// writeInternal answers 500 without internals and logs the cause with the
// request id so an operator can find it.
func writeInternal(w http.ResponseWriter, r *http.Request, err error) {
	id := RequestID(r.Context())
	logger(r.Context()).Error("internal error", "request_id", id, "method", r.Method, "path", r.URL.Path, "err", err)
	WriteError(w, r, NewError(http.StatusInternalServerError, CodeInternal, "Internal server error; quote request id %s when reporting it.", id))
}
