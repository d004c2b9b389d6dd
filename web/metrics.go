package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/hibiken/asynq"
	asynqmetrics "github.com/hibiken/asynq/x/metrics"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/folio-docs/folio/metrics"
)

// startMetrics serves GET /metrics on FOLIO_METRICS_ADDR, if set, until ctx
// ends: the process's own counters, Asynq's queues and, with jobs, the jobs
// per status (serve only, so that summing over serve and its workers counts
// each job once). The returned func stops it.
func (a *app) startMetrics(ctx context.Context, jobs bool) (stop func(), err error) {
	if a.cfg.MetricsAddr == "" {
		return func() {}, nil
	}
	var cs []prometheus.Collector
	if jobs && a.db != nil {
		cs = append(cs, metrics.NewJobsCollector(a.db))
	}
	var inspector *asynq.Inspector
	if a.rdb != nil {
		inspector = asynq.NewInspectorFromRedisClient(a.rdb)
		cs = append(cs, asynqmetrics.NewQueueMetricsCollector(inspector))
	}
	closeInspector := func() {
		if inspector != nil {
			_ = inspector.Close() // it shares a.rdb, which app.Close closes; its Close only says it cannot close a shared connection
		}
	}
	metrics.KnownModel(a.cfg.ModelProvider, a.cfg.Model)
	reg, err := metrics.NewRegistry(cs...)
	if err != nil {
		closeInspector()
		return nil, fmt.Errorf("metrics: %w", err)
	}
	ln, err := net.Listen("tcp", a.cfg.MetricsAddr)
	if err != nil {
		closeInspector()
		return nil, &exitError{code: 1, msg: fmt.Sprintf("cannot listen on FOLIO_METRICS_ADDR=%s: %v", a.cfg.MetricsAddr, err)}
	}
	srv := &http.Server{Handler: metrics.Handler(reg), ReadHeaderTimeout: 10 * time.Second}
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			a.log.Error("metrics listener stopped", "err", err)
		}
	}()
	a.log.Info("metrics serving", "addr", ln.Addr().String())
	return func() {
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		if err := srv.Shutdown(sctx); err != nil {
			a.log.Warn("the metrics listener did not stop within 5s", "err", err)
		}
		closeInspector()
	}, nil
}
