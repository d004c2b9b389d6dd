package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"runtime"
	"time"

	"github.com/hibiken/asynq"

	"github.com/folio-docs/folio/tasks"
)

const shutdownGrace = 30 * time.Second

func cmdServe(ctx context.Context, args []string, e env) error {
	fs := newFlags("serve", "serve", e)
	if _, err := parseFlags(fs, args); err != nil {
		return err
	}
	a, err := openApp(ctx, e, true)
	if err != nil {
		return err
	}
	defer a.Close()

	stopMetrics, err := a.startMetrics(ctx, true)
	if err != nil {
		return err
	}
	defer stopMetrics()

	if !a.cfg.Worker {
		// Agent runs are left to `folio worker`s; webhook deliveries and the
		// sweep that recovers dead runs need this database, so they stay.
		a.runner = nil
	}
	worker, err := a.startWorker(ctx)
	if err != nil {
		return err
	}
	if err := a.writeGitHooks(); err != nil {
		return err
	}

	ln, err := net.Listen("tcp", a.cfg.Addr)
	if err != nil {
		return &exitError{code: 1, msg: fmt.Sprintf("cannot listen on FOLIO_ADDR=%s: %v", a.cfg.Addr, err)}
	}
	srv := &http.Server{
		Handler:           a.routes(),
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       time.Minute,
		IdleTimeout:       2 * time.Minute,
	}
	// Event streams never go idle: Shutdown ends them, or it would wait out its grace.
	srv.RegisterOnShutdown(a.jobs.EndStreams)
	a.log.Info("folio serving", "addr", ln.Addr().String(), "base_url", a.cfg.BaseURL, "worker", a.cfg.Worker, "db", a.cfg.DBPath)

	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	go a.analyticsInBackground(ctx)
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	a.log.Info("shutting down: finishing in-flight requests")
	sctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	err = srv.Shutdown(sctx)
	worker.Shutdown()
	// The next start-up reads the index from its snapshot, not every view.
	if serr := a.analytics.SaveSnapshots(sctx); serr != nil {
		a.log.Error("analytics: unable to save the index snapshot", "err", serr)
	}
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	a.log.Info("stopped")
	return err
}

// analyticsCatchUp is how often serve reads the views stored since into
// the analytics indexes and writes the snapshots that are due.
const analyticsCatchUp = time.Minute

// analyticsInBackground loads the analytics indexes, then keeps them up
// with the database until ctx ends: a server whose views nobody queries
// still restarts from a recent snapshot.
func (a *app) analyticsInBackground(ctx context.Context) {
	a.preloadAnalytics(ctx)
	t := time.NewTicker(analyticsCatchUp)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if err := a.analytics.CatchUp(ctx); err != nil && ctx.Err() == nil {
			a.log.Error("analytics: unable to keep the index up to date", "err", err)
		}
	}
}

// preloadAnalytics loads the analytics index while serving starts, so the
// first export does not pay for it; queries meanwhile wait for their site.
// Each site's load is logged with where it began: a load that read every
// view from the database (no snapshot, or one refused) says why.
func (a *app) preloadAnalytics(ctx context.Context) {
	start := time.Now()
	loads, err := a.analytics.Preload(ctx)
	for _, l := range loads {
		args := []any{"project", l.Project, "views_read", l.Read, "took", l.Took.Round(time.Millisecond)}
		switch {
		case l.Snapshot == nil:
			args = append(args, "snapshot", "used")
		case errors.Is(l.Snapshot, fs.ErrNotExist):
			args = append(args, "snapshot", "none on disk")
		default:
			args = append(args, "snapshot", "refused: "+l.Snapshot.Error())
		}
		a.log.Info("analytics index loaded", args...)
	}
	if err != nil {
		if ctx.Err() == nil {
			a.log.Error("analytics: index preload failed; queries load it on demand", "err", err)
		}
		return
	}
	a.log.Info("analytics indexes loaded", "sites", len(loads), "took", time.Since(start).Round(time.Millisecond))
}

// startWorker starts the Asynq worker; it stops taking tasks on Shutdown.
func (a *app) startWorker(ctx context.Context) (*tasks.Worker, error) {
	var queues []string
	if a.runner != nil {
		if err := a.requireRedis(ctx); err != nil {
			return nil, err
		}
	} else {
		// serve without agents starts while Redis is down (/readyz says so).
		// Without a runner, agent runs stay queued (and jobs active) until a
		// worker that has one picks them up.
		queues = []string{tasks.QueueWebhooks, tasks.QueueDefault}
		a.log.Info("this process runs no agent: agent jobs wait in the queue for a worker")
	}
	srv := tasks.NewWorker(a.rdb, a.log, max(4, 2*runtime.NumCPU()), queues...)
	if err := srv.Start(a.taskHandlers()); err != nil {
		return nil, &exitError{code: 1, msg: fmt.Sprintf("cannot start the worker: %v", err)}
	}
	go tasks.RunSweep(ctx, a.log, tasks.SweepInterval, a.jobs.Sweep)
	a.log.Info("worker started")
	return srv, nil
}

// taskHandlers routes each task type to what runs it.
func (a *app) taskHandlers() *asynq.ServeMux {
	if a.runner == nil {
		return tasks.NewServeMux(nil, a.jobs)
	}
	return tasks.NewServeMux(a.jobs, a.jobs)
}

func cmdMigrate(ctx context.Context, args []string, e env) error {
	fs := newFlags("migrate", "migrate", e)
	if _, err := parseFlags(fs, args); err != nil {
		return err
	}
	cfg, err := loadConfig(e.getenv)
	if err != nil {
		return err
	}
	d, err := openDB(ctx, cfg)
	if err != nil {
		return err
	}
	defer d.Close()
	applied, err := d.Migrate(ctx)
	if err != nil {
		return err
	}
	for _, name := range applied {
		fmt.Fprintf(e.stderr, "applied %s\n", name)
	}
	if len(applied) == 0 {
		fmt.Fprintln(e.stderr, "database is up to date")
	}
	return nil
}
