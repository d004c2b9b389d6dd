package httpx

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/gorilla/mux"
)

// BenchmarkNoteRoute is what naming the route for the metrics adds to a
// request through Observe and the router (BENCHMARKS.md): the same request
// with and without the NoteRoute middleware.
func BenchmarkNoteRoute(b *testing.B) {
	for _, note := range []bool{false, true} {
		name := "without"
		if note {
			name = "with"
		}
		b.Run(name, func(b *testing.B) {
			r := mux.NewRouter()
			if note {
				r.Use(NoteRoute)
			}
			r.HandleFunc("/v2/agent/{projectId}/job/{id}", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(200) }).Methods("GET")
			h := Observe(slog.New(slog.NewTextHandler(io.Discard, nil)))(r)
			req := httptest.NewRequest("GET", "/v2/agent/p1/job/j1", nil)
			b.ReportAllocs()
			for b.Loop() {
				h.ServeHTTP(httptest.NewRecorder(), req)
			}
		})
	}
}
