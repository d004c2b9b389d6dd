package handlers

import (
	"bytes"
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
