package api_test

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// BenchmarkAuthenticatedRequest measures one GET through the whole API
// middleware stack (request id, access log, body limit, key check: read from
// SQLite once, then kept while the keys version stands, project binding)
// to a trivial handler, without the network.
func BenchmarkAuthenticatedRequest(b *testing.B) {
	w := newAPIWorld(b)
	h := w.srv.Config.Handler
	path := "/v2/agent/" + w.p.ID + "/probe"
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			req := httptest.NewRequest(http.MethodGet, path, nil)
			req.Header.Set("Authorization", "Bearer "+w.read)
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code != http.StatusOK {
				b.Fatalf("status %d", rec.Code)
			}
		}
	})
}
