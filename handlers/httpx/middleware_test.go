package httpx

import (
	"bytes"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
)

func TestObserveRequestID(t *testing.T) {
	var logs bytes.Buffer
	var seen string
	h := Observe(slog.New(slog.NewTextHandler(&logs, nil)))(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen = RequestID(r.Context())
		w.WriteHeader(http.StatusTeapot)
	}))
	generated := regexp.MustCompile(`^[0-9a-f]{16}$`)
	for _, tc := range []struct {
		given string
		keep  bool
	}{
		{"abc-DEF_1.2", true},
		{strings.Repeat("a", 64), true},
		{"", false},
		{strings.Repeat("a", 65), false},
		{"has space", false},
		{"line\nbreak", false},
		{"semi;colon", false},
		{"é", false},
	} {
		logs.Reset()
		req := httptest.NewRequest(http.MethodGet, "/x?secret=1", nil)
		if tc.given != "" {
			req.Header["X-Request-Id"] = []string{tc.given}
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		got := rec.Header().Get("X-Request-Id")
		if tc.keep && got != tc.given || !tc.keep && !generated.MatchString(got) {
			t.Errorf("X-Request-Id %q answered %q (keep %v)", tc.given, got, tc.keep)
		}
		if seen != got {
			t.Errorf("handler saw request id %q, header says %q", seen, got)
		}
		if line := logs.String(); !strings.Contains(line, "request_id="+got) || !strings.Contains(line, "status=418") || strings.Contains(line, "secret") {
			t.Errorf("access log %q", line)
		}
	}
	if RequestID(httptest.NewRequest(http.MethodGet, "/", nil).Context()) != "" {
		t.Error("a request Observe never saw has a request id")
	}
}

func TestLimitBodyCapsUndeclaredBodies(t *testing.T) {
	var readErr error
	var read int64
	h := LimitBody(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		read, readErr = io.Copy(io.Discard, r.Body)
	}))
	// A chunked body declares no length: it is cut off at MaxBodyBytes.
	req := httptest.NewRequest(http.MethodPost, "/", io.MultiReader(strings.NewReader(strings.Repeat("a", MaxBodyBytes)), strings.NewReader("b")))
	req.ContentLength = -1
	h.ServeHTTP(httptest.NewRecorder(), req)
	var tooBig *http.MaxBytesError
	if !errors.As(readErr, &tooBig) || read != MaxBodyBytes {
		t.Errorf("undeclared body over the cap: read %d, err %v", read, readErr)
	}
	// A declared one is refused before the handler runs.
	req = httptest.NewRequest(http.MethodPost, "/", strings.NewReader(strings.Repeat("a", MaxBodyBytes+1)))
	rec := httptest.NewRecorder()
	read, readErr = -1, nil
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusRequestEntityTooLarge || read != -1 {
		t.Errorf("declared body over the cap: %d, handler read %d", rec.Code, read)
	}
	// No body at all: the handler sees an empty one.
	req = httptest.NewRequest(http.MethodGet, "/", nil)
	h.ServeHTTP(httptest.NewRecorder(), req)
	if readErr != nil || read != 0 {
		t.Errorf("no body: read %d, err %v", read, readErr)
	}
}
