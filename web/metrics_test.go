package main

import (
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/folio-docs/folio/internal/testenv"
)

// scrape is one reading of a /metrics endpoint, parsed by Prometheus' own
// text parser.
type scrape map[string]*dto.MetricFamily

func scrapeMetrics(t testing.TB, url string) scrape {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	req.Header.Set("Accept", "text/plain")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode != 200 || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/plain") {
		t.Fatalf("GET %s = %d %s, want 200 text/plain", url, res.StatusCode, res.Header.Get("Content-Type"))
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(res.Body)
	if err != nil {
		t.Fatalf("%s is not Prometheus' text format: %v", url, err)
	}
	return fams
}

// value sums the series of name whose labels include labels (name, value
// pairs): a counter's or gauge's value, a histogram's count.
func (s scrape) value(name string, labels ...string) float64 {
	f := s[name]
	if f == nil {
		return 0
	}
	sum := 0.0
series:
	for _, m := range f.Metric {
		have := map[string]string{}
		for _, l := range m.Label {
			have[l.GetName()] = l.GetValue()
		}
		for i := 0; i+1 < len(labels); i += 2 {
			if have[labels[i]] != labels[i+1] {
				continue series
			}
		}
		switch {
		case m.Counter != nil:
			sum += m.Counter.GetValue()
		case m.Gauge != nil:
			sum += m.Gauge.GetValue()
		case m.Histogram != nil:
			sum += float64(m.Histogram.GetSampleCount())
		case m.Untyped != nil:
			sum += m.Untyped.GetValue()
		}
	}
	return sum
}

// hookReceiver is a project's webhook receiver that accepts everything.
type hookReceiver struct {
	*httptest.Server
	mu       sync.Mutex
	statuses []string
	arrived  chan struct{} // closed and replaced at each delivery
}

func newHookReceiver(t *testing.T) *hookReceiver {
	h := &hookReceiver{arrived: make(chan struct{})}
	h.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		h.mu.Lock()
		h.statuses = append(h.statuses, string(body))
		close(h.arrived)
		h.arrived = make(chan struct{})
		h.mu.Unlock()
	}))
	t.Cleanup(h.Close)
	return h
}

// await waits until ok holds of the deliveries received, each checked as it
// arrives, and fails after within.
func (h *hookReceiver) await(t *testing.T, within time.Duration, what string, ok func(bodies []string) bool) {
	t.Helper()
	timeout := time.After(within)
	for {
		h.mu.Lock()
		got, arrived := append([]string(nil), h.statuses...), h.arrived
		h.mu.Unlock()
		if ok(got) {
			return
		}
		select {
		case <-arrived:
		case <-timeout:
			t.Fatalf("webhook deliveries %q after %s, want %s", got, within, what)
		}
	}
}

func (h *hookReceiver) received() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.statuses...)
}

// metricsWorld is serve (API only) in this process and a worker in another,
// each with a metrics listener, over one data directory, a scripted model
// and a local docs repository.
type metricsWorld struct {
	te, wte         testEnv
	base, key, pid  string
	serveM, workerM string
	model           *testenv.ModelServer
	hooks           *hookReceiver
	worker          *runningFolio
}

func newMetricsWorld(t *testing.T) *metricsWorld {
	w := &metricsWorld{model: testenv.NewModelServer(t, nil), hooks: newHookReceiver(t)}
	w.te = newTestEnv(t)
	maps.Copy(w.te, testEnv{
		"FOLIO_MODEL_PROVIDER": "openai", "FOLIO_OPENAI_BASE_URL": w.model.URL, "FOLIO_OPENAI_API_KEY": w.model.APIKey,
		"FOLIO_MODEL": "test-model", "FOLIO_WEBHOOK_ALLOW_PRIVATE": "true", "FOLIO_WORKER": "false",
		"FOLIO_LOCAL_REPOS": t.TempDir(),
	})
	repo := newDocsRepo(t)
	w.pid = w.te.must(t, "", "project", "create", "--name", "Docs", "--repo", repo)
	w.te.must(t, "", "project", "update", w.pid, "--webhook", w.hooks.URL, "--webhook-secret", "whsec-metrics")
	w.key = w.te.must(t, "", "key", "create", "--project", w.pid)
	w.serveM = freeAddr(t)
	w.te["FOLIO_METRICS_ADDR"] = w.serveM
	w.base, _ = startServe(t, w.te)
	w.wte = maps.Clone(w.te)
	w.workerM = freeAddr(t)
	w.wte["FOLIO_METRICS_ADDR"] = w.workerM
	delete(w.wte, "FOLIO_ADDR")
	w.worker = startFolio(t, w.wte, "worker")
	w.worker.waitLog(t, "metrics serving", 20*time.Second)
	return w
}

func (w *metricsWorld) call(t *testing.T, method, path, body string, want int) string {
	t.Helper()
	req, _ := http.NewRequest(method, w.base+strings.ReplaceAll(path, "{p}", w.pid), strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+w.key)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode != want {
		t.Fatalf("%s %s = %d %s, want %d", method, path, res.StatusCode, b, want)
	}
	return string(b)
}

func TestMetricsAfterRealTraffic(t *testing.T) {
	w := newMetricsWorld(t)
	serveURL, workerURL := "http://"+w.serveM+"/metrics", "http://"+w.workerM+"/metrics"
	// serve's counters live in this test process, which other tests share:
	// compare its readings before and after.
	before := scrapeMetrics(t, serveURL)

	for range 3 {
		w.call(t, "GET", "/healthz", "", 200)
	}
	w.call(t, "GET", "/no/such/page/"+w.pid, "", 404)
	w.call(t, "GET", "/v2/agent/{p}/job/nosuchjob", "", 404)
	now := time.Now().UTC().Add(-time.Minute).Format(time.RFC3339)
	w.call(t, "POST", "/v1/analytics/{p}/events", fmt.Sprintf(`{"events":[
		{"path":"/a","timestamp":%[1]q,"userAgent":"Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0","ip":"192.0.2.1"},
		{"path":"/b","timestamp":%[1]q,"userAgent":"Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0","ip":"192.0.2.2"},
		{"path":"/a","timestamp":%[1]q,"userAgent":"Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; ChatGPT-User/1.0; +https://openai.com/bot","ip":"192.0.2.3"}]}`, now), 200)

	// The browser tracker: a person counts, a crawler through this door does not.
	for _, ua := range []string{"Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0", "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)"} {
		req, _ := http.NewRequest("POST", w.base+"/api/event", strings.NewReader(fmt.Sprintf(`{"project":%q,"path":"/guide"}`, w.pid)))
		req.Header.Set("Origin", "https://docs.example.com")
		req.Header.Set("User-Agent", ua)
		req.Header.Set("Content-Type", "application/json")
		res, err := http.DefaultClient.Do(req)
		if err != nil || res.StatusCode != 202 {
			t.Fatalf("tracker event: %v %v, want 202", res, err)
		}
		res.Body.Close()
	}

	created := w.call(t, "POST", "/v2/agent/{p}/job", `{"prompt":"Explain key rotation."}`, 201)
	id := between(created, `"id":"`, `"`)
	polls := 0
	deadline := time.Now().Add(60 * time.Second)
	for {
		polls++
		j := w.call(t, "GET", "/v2/agent/{p}/job/"+id, "", 200)
		if !strings.Contains(j, `"status":"active"`) {
			if !strings.Contains(j, `"status":"completed"`) {
				t.Fatalf("job ended %s, want completed", j)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("job still active after 60s: %s", j)
		}
		time.Sleep(50 * time.Millisecond)
	}
	// The completed event's delivery is the last webhook this job sends.
	w.hooks.await(t, 30*time.Second, "the completed one last", func(got []string) bool {
		return len(got) > 0 && strings.Contains(got[len(got)-1], `"status":"completed"`)
	})

	// The receiver has the event before the sender has its answer and
	// counts it: wait for serve's and the worker's counts to catch up.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		delivered := scrapeMetrics(t, serveURL).value("folio_webhook_deliveries_total", "outcome", "delivered") -
			before.value("folio_webhook_deliveries_total", "outcome", "delivered") +
			scrapeMetrics(t, workerURL).value("folio_webhook_deliveries_total", "outcome", "delivered")
		if delivered >= float64(len(w.hooks.received())) || time.Now().After(deadline) {
			break
		}
	}
	after := scrapeMetrics(t, serveURL)
	delta := func(name string, labels ...string) float64 {
		return after.value(name, labels...) - before.value(name, labels...)
	}
	jobRoute := "/v2/agent/{projectId}/job/{id}"
	for _, c := range []struct {
		what      string
		got, want float64
	}{
		{"GET /healthz 200", delta("folio_http_requests_total", "route", "/healthz", "method", "GET", "code", "200"), 3},
		{"unmatched 404", delta("folio_http_requests_total", "route", "unmatched", "method", "GET", "code", "404"), 1},
		{"GET job 404", delta("folio_http_requests_total", "route", jobRoute, "method", "GET", "code", "404"), 1},
		{"GET job 200", delta("folio_http_requests_total", "route", jobRoute, "method", "GET", "code", "200"), float64(polls)},
		{"GET job durations", delta("folio_http_request_duration_seconds", "route", jobRoute, "method", "GET"), float64(polls + 1)},
		{"POST job 201", delta("folio_http_requests_total", "route", "/v2/agent/{projectId}/job", "method", "POST", "code", "201"), 1},
		{"POST events 200", delta("folio_http_requests_total", "route", "/v1/analytics/{projectId}/events", "method", "POST", "code", "200"), 1},
		{"human views from events", delta("folio_analytics_views_ingested_total", "class", "human", "source", "events"), 2},
		{"ai views from events", delta("folio_analytics_views_ingested_total", "class", "ai", "source", "events"), 1},
		{"views from the tracker", delta("folio_analytics_views_ingested_total", "source", "tracker"), 1},
		{"human views from the tracker", delta("folio_analytics_views_ingested_total", "class", "human", "source", "tracker"), 1},
		{"jobs completed", after.value("folio_jobs", "status", "completed"), 1},
		{"jobs active", after.value("folio_jobs", "status", "active"), 0},
		{"runs on serve (it has no worker)", delta("folio_agent_runs_total"), 0},
	} {
		if c.got != c.want {
			t.Errorf("serve: %s = %v, want %v", c.what, c.got, c.want)
		}
	}
	for _, name := range []string{"folio_http_requests_total", "folio_http_request_duration_seconds"} {
		for _, m := range after[name].GetMetric() {
			for _, l := range m.Label {
				if strings.Contains(l.GetValue(), w.pid) || strings.Contains(l.GetValue(), id) {
					t.Errorf("%s has a label with a raw id: %s=%s", name, l.GetName(), l.GetValue())
				}
			}
		}
	}
	for _, name := range []string{"asynq_queue_size", "asynq_tasks_processed_total", "asynq_tasks_failed_total", "asynq_queue_latency_seconds"} {
		if after[name] == nil {
			t.Errorf("serve: no %s (Asynq's queue collector)", name)
		}
	}
	if got := after.value("asynq_tasks_processed_total", "queue", "agent"); got < 1 {
		t.Errorf("serve: asynq_tasks_processed_total{queue=agent} = %v, want the run counted", got)
	}

	// The worker is a process of its own: its readings are its own work.
	wk := scrapeMetrics(t, workerURL)
	calls := float64(w.model.Calls())
	hooks := float64(len(w.hooks.received()))
	for _, c := range []struct {
		what      string
		got, want float64
	}{
		{"runs completed", wk.value("folio_agent_runs_total", "outcome", "completed"), 1},
		{"runs, any outcome", wk.value("folio_agent_runs_total"), 1},
		{"run durations", wk.value("folio_agent_run_duration_seconds"), 1},
		{"input tokens", wk.value("folio_model_tokens_total", "provider", "openai", "model", "test-model", "kind", "input"), 100 * calls},
		{"output tokens", wk.value("folio_model_tokens_total", "provider", "openai", "model", "test-model", "kind", "output"), 20 * calls},
	} {
		if c.got != c.want {
			t.Errorf("worker: %s = %v, want %v", c.what, c.got, c.want)
		}
	}
	// Webhooks go out from serve or the worker, whichever takes the task.
	if got := delta("folio_webhook_deliveries_total", "outcome", "delivered") + wk.value("folio_webhook_deliveries_total", "outcome", "delivered"); got != hooks {
		t.Errorf("webhooks delivered by serve and the worker: %v, want the %v received", got, hooks)
	}
	if got := delta("folio_webhook_deliveries_total", "outcome", "failed") + wk.value("folio_webhook_deliveries_total", "outcome", "failed"); got != 0 {
		t.Errorf("webhook deliveries failed: %v, want 0", got)
	}
	if calls < 1 || hooks < 2 {
		t.Errorf("model calls %v, webhook deliveries %v: the job did not go through", calls, hooks)
	}
	if wk["folio_jobs"] != nil || wk["folio_http_requests_total"] != nil {
		t.Error("the worker reports jobs per status or HTTP requests: serve does (summing would count jobs twice)")
	}
	if wk["asynq_queue_size"] == nil {
		t.Error("worker: no Asynq queue metrics")
	}

	// Only the metrics listener serves them, and only at /metrics.
	w.call(t, "GET", "/metrics", "", 404)
	if res, err := http.Get("http://" + w.serveM + "/"); err != nil || res.StatusCode != 404 {
		t.Errorf("GET / on the metrics listener: %v %v, want 404", res, err)
	}
}
