package metrics

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// scrape reads reg through the handler, as Prometheus would, and parses it
// with Prometheus' own text parser.
func scrape(t *testing.T, reg *prometheus.Registry) map[string]*dto.MetricFamily {
	t.Helper()
	rec := httptest.NewRecorder()
	Handler(reg).ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(strings.NewReader(rec.Body.String()))
	if err != nil {
		t.Fatal(err)
	}
	return fams
}

// A request's labels stay bounded whatever the client sends: no route is
// "unmatched", an unknown method is "other".
func TestHTTPLabelsAreBounded(t *testing.T) {
	reg, err := NewRegistry()
	if err != nil {
		t.Fatal(err)
	}
	HTTP("", "BREW", 418, time.Millisecond)
	HTTP("/healthz", http.MethodGet, 200, time.Millisecond)
	fams := scrape(t, reg)
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

// Every series whose labels are known in advance is exposed at 0 before
// its first event: the outcomes of runs and webhook deliveries, each class
// and source of views, and the configured model's tokens.
func TestKnownSeriesStartAtZero(t *testing.T) {
	KnownModel("openai", "gpt-zero")
	reg, err := NewRegistry()
	if err != nil {
		t.Fatal(err)
	}
	fams := scrape(t, reg)
	series := map[string]float64{}
	for name, f := range fams {
		for _, m := range f.GetMetric() {
			key := name
			for _, lp := range m.GetLabel() {
				key += " " + lp.GetName() + "=" + lp.GetValue()
			}
			series[key] = m.GetCounter().GetValue()
		}
	}
	want := []string{
		"folio_agent_runs_total outcome=completed",
		"folio_agent_runs_total outcome=failed",
		"folio_agent_runs_total outcome=canceled",
		"folio_agent_runs_total outcome=retried",
		"folio_webhook_deliveries_total outcome=delivered",
		"folio_webhook_deliveries_total outcome=failed",
		"folio_webhook_deliveries_total outcome=abandoned",
		"folio_model_tokens_total kind=input model=gpt-zero provider=openai",
		"folio_model_tokens_total kind=output model=gpt-zero provider=openai",
		"folio_model_tokens_total kind=cached model=gpt-zero provider=openai",
		"folio_model_tokens_total kind=cache_write model=gpt-zero provider=openai",
	}
	for _, c := range []string{"human", "ai", "aiSearch", "aiTraining", "bots", "unknown"} {
		for _, s := range []string{"events", "tracker", "import", "drain"} {
			want = append(want, "folio_analytics_views_ingested_total class="+c+" source="+s)
		}
	}
	for _, k := range want {
		v, ok := series[k]
		if !ok {
			t.Errorf("no series %q before any event", k)
		} else if v != 0 {
			t.Errorf("%s = %v before any event, want 0", k, v)
		}
	}
	if n := len(fams["folio_analytics_views_ingested_total"].GetMetric()); n != len(ViewClasses)*4 {
		t.Errorf("folio_analytics_views_ingested_total has %d series, want %d (each class by each source)", n, len(ViewClasses)*4)
	}
}

// A model call's tokens are counted by kind, the cached and cache-write
// tokens (part of the input) beside input and output.
func TestModelTokensByKind(t *testing.T) {
	reg, err := NewRegistry()
	if err != nil {
		t.Fatal(err)
	}
	ModelTokens("anthropic", "claude-kinds", Tokens{Input: 1000, Cached: 600, CacheWrite: 300, Output: 50})
	ModelTokens("anthropic", "claude-kinds", Tokens{Input: 200, Output: 10})
	got := map[string]float64{}
	for _, m := range scrape(t, reg)["folio_model_tokens_total"].GetMetric() {
		l := map[string]string{}
		for _, lp := range m.GetLabel() {
			l[lp.GetName()] = lp.GetValue()
		}
		if l["model"] == "claude-kinds" && l["provider"] == "anthropic" {
			got[l["kind"]] = m.GetCounter().GetValue()
		}
	}
	want := map[string]float64{"input": 1200, "cached": 600, "cache_write": 300, "output": 60}
	if len(got) != len(want) {
		t.Fatalf("kinds = %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("folio_model_tokens_total{kind=%q} = %v, want %v", k, got[k], v)
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
