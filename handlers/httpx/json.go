package httpx

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"reflect"
	"strings"
)

// MaxBodyBytes caps every request body (§5: 1 MiB).
const MaxBodyBytes = 1 << 20

// MaxIdempotencyKey is the longest Idempotency-Key accepted.
const MaxIdempotencyKey = 255

// WriteJSON encodes v as the response body.
func WriteJSON(w http.ResponseWriter, status int, v any) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		http.Error(w, `{"error":"Unable to encode the response.","code":"internal"}`, http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes()) // the status is sent; a client gone mid-body cannot be told
}

// WriteEncoded answers with body, one JSON value already encoded (compact),
// ended with the newline WriteJSON ends with: the job GET job polls,
// encoded once while it is kept (jobs.Service.ShowJSON).
func WriteEncoded(w http.ResponseWriter, status int, body []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(body) // the status is sent; a client gone mid-body cannot be told
	_, _ = w.Write(newline)
}

var newline = []byte{'\n'}

// FastDecoder is a body type that reads its usual shape itself, faster
// than encoding/json; DecodeFast says false to leave the body to it.
type FastDecoder interface{ DecodeFast(data []byte) bool }

// DecodeJSON is the one JSON decoder: it checks the media type, caps the
// size, refuses unknown fields and trailing data, and says which field is wrong.
func DecodeJSON(r *http.Request, dst any) *Error {
	return DecodeJSONLimit(r, dst, MaxBodyBytes)
}

// DecodeJSONLimit is DecodeJSON for a door whose bodies are smaller than
// MaxBodyBytes: one over limit bytes is 413, naming the limit.
func DecodeJSONLimit(r *http.Request, dst any, limit int64) *Error {
	if ct := r.Header.Get("Content-Type"); ct != "" {
		mt, _, err := mime.ParseMediaType(ct)
		if err != nil || (mt != "application/json" && !strings.HasSuffix(mt, "+json")) {
			return NewError(http.StatusUnsupportedMediaType, CodeUnsupportedMediaType, "The request body must be JSON (Content-Type: application/json).")
		}
	}
	// Read whole (the decoder would buffer it all anyway), so that an
	// unknown field can be found again and named with its path.
	data, e := ReadBody(r, limit)
	if e != nil {
		return e
	}
	if f, ok := dst.(FastDecoder); ok && f.DecodeFast(data) {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	err := dec.Decode(dst)
	if err == nil {
		if _, extra := dec.Token(); extra != io.EOF {
			return Invalid("The request body must hold a single JSON object.")
		}
		return nil
	}
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.Is(err, io.EOF):
		return Invalid("The request body is empty; a JSON object is required.")
	case errors.As(err, &syntax), errors.Is(err, io.ErrUnexpectedEOF):
		return Invalid("The request body is not valid JSON.")
	case errors.As(err, &typ):
		field := typeErrorPath(reflect.TypeOf(dst), typ.Field)
		if field == "" {
			return Invalid("The request body must be a JSON object.")
		}
		return InvalidField(field, fmt.Sprintf("Field %q must be of type %s.", field, typ.Type))
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		field := strings.Trim(strings.TrimPrefix(err.Error(), "json: unknown field "), `"`)
		path := UnknownFieldPath(data, reflect.TypeOf(dst))
		if path == "" {
			path = field
		}
		return InvalidField(path, fmt.Sprintf("Unknown field %q.", path))
	default:
		return Invalid("The request body is not valid JSON.")
	}
}
