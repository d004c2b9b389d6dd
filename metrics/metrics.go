// Package metrics is what Folio tells Prometheus: the counters the rest of
// the code bumps at the points where things happen (a run ends, a model
// answers, views are stored, a webhook is delivered), and the handler that
// serves them, with the collectors read at scrape time, on the operator's
// own listener (FOLIO_METRICS_ADDR), never on the public address.
package metrics

import (
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// The process's own counters. They are process-wide like the work they
// count (a run, a model call), and registered into each Handler's registry;
// a counter only ever goes up, so sharing them holds no state to get wrong.
var (
	httpRequests = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "folio_http_requests_total",
		Help: "HTTP requests answered, by route template, method and status code.",
	}, []string{"route", "method", "code"})
	httpDuration = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "folio_http_request_duration_seconds",
		Help:    "Time to answer an HTTP request, by route template and method.",
		Buckets: prometheus.DefBuckets,
	}, []string{"route", "method"})
	agentRuns = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "folio_agent_runs_total",
		Help: "Agent runs ended in this process, by outcome: completed, failed, canceled, retried.",
	}, []string{"outcome"})
	agentRunDuration = prometheus.NewHistogram(prometheus.HistogramOpts{
		Name:    "folio_agent_run_duration_seconds",
		Help:    "Wall time of an agent run in this process, whatever its outcome.",
		Buckets: []float64{1, 5, 15, 30, 60, 120, 300, 600, 1200, 1800, 3600},
	})
	modelTokens = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "folio_model_tokens_total",
		Help: "Tokens the model providers reported, by provider, model and kind: input, output, and cached and cache_write, the part of input read from and written to the prompt cache.",
	}, []string{"provider", "model", "kind"})
	viewsIngested = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "folio_analytics_views_ingested_total",
		Help: "Page views stored, by traffic class and source (events, tracker, import).",
	}, []string{"class", "source"})
	eventStreams = prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "folio_job_event_streams",
		Help: "Job event streams (the API's GET .../events and the job pages' live updates) open in this process.",
	})
	webhookDeliveries = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "folio_webhook_deliveries_total",
		Help: "Project webhook delivery attempts, by outcome.",
	}, []string{"outcome"})
)

// Outcomes of an agent run (folio_agent_runs_total's outcome label).
const (
	RunCompleted = "completed"
	RunFailed    = "failed"
	RunCanceled  = "canceled"
	RunRetried   = "retried"
)

// Sources of page views (folio_analytics_views_ingested_total's source label).
const (
	SourceEvents  = "events"
	SourceTracker = "tracker"
	SourceImport  = "import"
	SourceDrain   = "drain"
)

// ViewClasses are folio_analytics_views_ingested_total's class labels: the
// names of analytics' classes, and "unknown" for a batch that does not say
// which it stored (an analytics test keeps them equal to the classes).
var ViewClasses = []string{"human", "ai", "aiSearch", "aiTraining", "bots", "unknown"}

// Outcomes of a webhook delivery attempt (folio_webhook_deliveries_total's
// outcome label).
const (
	WebhookDelivered = "delivered"
	WebhookFailed    = "failed" // will be tried again
	WebhookAbandoned = "abandoned"
)

// Model token kinds (folio_model_tokens_total's kind label). Input counts
// every prompt token; Cached and CacheWrite are the part of them the
// provider read from its prompt cache and wrote to it.
const (
	TokensInput      = "input"
	TokensOutput     = "output"
	TokensCached     = "cached"
	TokensCacheWrite = "cache_write"
)

// tokenKinds are folio_model_tokens_total's kinds.
var tokenKinds = []string{TokensInput, TokensOutput, TokensCached, TokensCacheWrite}

// zeroKnownSeries creates every series whose labels are known in advance,
// at 0, so that each is exposed before its first event and a query over it
// (a rate, an alert on an increase) finds it rather than nothing.
// Prometheus' instrumentation advice: "avoid missing metrics". The HTTP
// series are not among them: their code is whatever a handler answered.
func zeroKnownSeries() {
	for _, o := range []string{RunCompleted, RunFailed, RunCanceled, RunRetried} {
		agentRuns.WithLabelValues(o)
	}
	for _, o := range []string{WebhookDelivered, WebhookFailed, WebhookAbandoned} {
		webhookDeliveries.WithLabelValues(o)
	}
	for _, c := range ViewClasses {
		for _, s := range []string{SourceEvents, SourceTracker, SourceImport, SourceDrain} {
			viewsIngested.WithLabelValues(c, s)
		}
	}
}

// KnownModel exposes folio_model_tokens_total at 0 for the model the
// process is configured with, before its first call.
func KnownModel(provider, model string) {
	for _, k := range tokenKinds {
		modelTokens.WithLabelValues(provider, model, k)
	}
}

// Tokens is what one model call used: Input every prompt token, Cached and
// CacheWrite among them.
type Tokens struct {
	Input, Cached, CacheWrite, Output int64
}

// AgentRun counts one run that ended with outcome after d.
func AgentRun(outcome string, d time.Duration) {
	agentRuns.WithLabelValues(outcome).Inc()
	agentRunDuration.Observe(d.Seconds())
}

// ModelTokens counts what one model call used, as the provider reported it.
func ModelTokens(provider, model string, t Tokens) {
	for k, n := range map[string]int64{TokensInput: t.Input, TokensOutput: t.Output, TokensCached: t.Cached, TokensCacheWrite: t.CacheWrite} {
		if n > 0 {
			modelTokens.WithLabelValues(provider, model, k).Add(float64(n))
		}
	}
}

// ViewsIngested counts n page views of one class stored from source.
func ViewsIngested(class, source string, n int) {
	if n > 0 {
		viewsIngested.WithLabelValues(class, source).Add(float64(n))
	}
}

// WebhookDelivery counts one delivery attempt of a project webhook.
func WebhookDelivery(outcome string) {
	webhookDeliveries.WithLabelValues(outcome).Inc()
}

// EventStreamOpened counts a job event stream opened.
func EventStreamOpened() { eventStreams.Inc() }

// EventStreamClosed counts a job event stream closed.
func EventStreamClosed() { eventStreams.Dec() }

// UnmatchedRoute is the route label of a request no route took, so that
// probes of random paths do not grow the label set.
const UnmatchedRoute = "unmatched"

// HTTP records one answered request. route is the matched route's template
// ("" when none matched).
func HTTP(route, method string, code int, d time.Duration) {
	if route == "" {
		route = UnmatchedRoute
	}
	method = knownMethod(method)
	httpRequests.WithLabelValues(route, method, statusCode(code)).Inc()
	httpDuration.WithLabelValues(route, method).Observe(d.Seconds())
}

// knownMethod bounds the method label: any other method is "other".
func knownMethod(m string) string {
	switch m {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete, http.MethodOptions:
		return m
	}
	return "other"
}

// codes spares the common status codes a conversion per request.
var codes = func() map[int]string {
	m := map[int]string{}
	for c := 100; c < 600; c++ {
		m[c] = strconv.Itoa(c)
	}
	return m
}()

func statusCode(c int) string {
	if s, ok := codes[c]; ok {
		return s
	}
	return "other"
}

// NewRegistry holds the process's counters, their known series at 0 until
// they count, Go's and the process's own metrics, and the collectors given
// (read when scraped: jobs per status, Asynq's queues).
func NewRegistry(cs ...prometheus.Collector) (*prometheus.Registry, error) {
	zeroKnownSeries()
	reg := prometheus.NewRegistry()
	all := append([]prometheus.Collector{
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		httpRequests, httpDuration, agentRuns, agentRunDuration, modelTokens, viewsIngested, webhookDeliveries, eventStreams,
	}, cs...)
	for _, c := range all {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	return reg, nil
}

// Handler serves reg's metrics in Prometheus' exposition formats at GET
// /metrics, and nothing else.
func Handler(reg *prometheus.Registry) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{Registry: reg}))
	return mux
}
