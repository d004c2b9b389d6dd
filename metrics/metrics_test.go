package metrics

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// A request's labels stay bounded whatever the client sends: no route is
// "unmatched", an unknown method is "other".
func TestHTTPLabelsAreBounded(t *testing.T) {
	reg, err := NewRegistry()
	if err != nil {
		t.Fatal(err)
	}
	HTTP("", "BREW", 418, time.Millisecond)
	HTTP("/healthz", http.MethodGet, 200, time.Millisecond)
	rec := httptest.NewRecorder()
	Handler(reg).ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(strings.NewReader(rec.Body.String()))
	if err != nil {
		t.Fatal(err)
	}
	found := map[string]bool{}
	for _, m := range fams["folio_http_requests_total"].GetMetric() {
		l := map[string]string{}
		for _, lp := range m.Label {
			l[lp.GetName()] = lp.GetValue()
		}
		found[l["route"]+" "+l["method"]+" "+l["code"]] = true
	}
	for _, want := range []string{"unmatched other 418", "/healthz GET 200"} {
		if !found[want] {
			t.Errorf("no folio_http_requests_total series %q in %v", want, found)
		}
	}
	if rec := httptest.NewRecorder(); true {
		Handler(reg).ServeHTTP(rec, httptest.NewRequest("GET", "/", nil))
		if rec.Code != 404 {
			t.Errorf("GET / = %d, want 404: the listener serves /metrics only", rec.Code)
		}
	}
}

// BenchmarkHTTP is what the metrics add to each request (BENCHMARKS.md).
func BenchmarkHTTP(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		HTTP("/v2/agent/{projectId}/job/{id}", http.MethodGet, 200, 50*time.Microsecond)
	}
}
