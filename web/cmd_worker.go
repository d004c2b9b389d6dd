package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"runtime"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/folio-docs/folio/jobs"
	"github.com/folio-docs/folio/tasks"
)

// cmdWorker runs a worker only: beside serve, on its database (FOLIO_DB),
// or on any machine, through serve (FOLIO_SERVER_URL and
// FOLIO_WORKER_TOKEN). A worker that cannot work says why and exits before
// it takes a task.
func cmdWorker(ctx context.Context, args []string, e env) error {
	fs := newFlags("worker", "worker", e)
	if _, err := parseFlags(fs, args); err != nil {
		return err
	}
	cfg, err := loadConfig(e.getenv)
	if err != nil {
		return err
	}
	if cfg.ServerURL != "" {
		return runRemoteWorker(ctx, cfg, e)
	}
	if err := requireDatabase(cfg); err != nil {
		return err
	}
	a, err := openApp(ctx, e, true)
	if err != nil {
		return err
	}
	defer a.Close()
	worker, err := a.startWorker(ctx)
	if err != nil {
		return err
	}
	stopMetrics, err := a.startMetrics(ctx, false)
	if err != nil {
		worker.Shutdown()
		return err
	}
	defer stopMetrics()
	<-ctx.Done()
	a.log.Info("shutting down: the worker takes no new tasks")
	worker.Shutdown()
	return nil
}

// requireDatabase refuses to start a same-host worker without serve's
// database: an empty one of its own would take tasks it cannot run.
func requireDatabase(cfg Config) error {
	if _, err := os.Stat(cfg.DBPath); errors.Is(err, fs.ErrNotExist) {
		return &exitError{code: 1, msg: fmt.Sprintf("no database at FOLIO_DB=%s and no FOLIO_SERVER_URL: point FOLIO_DB at serve's database, or set FOLIO_SERVER_URL and FOLIO_WORKER_TOKEN to work for a serve on another machine", cfg.DBPath)}
	} else if err != nil {
		return &exitError{code: 1, msg: fmt.Sprintf("cannot open the database (FOLIO_DB=%s): %v", cfg.DBPath, err)}
	}
	return nil
}

// helloTimeout bounds the start-up check of a remote worker's serve.
const helloTimeout = 10 * time.Second

// runRemoteWorker runs agent turns for the serve at FOLIO_SERVER_URL: tasks
// from Redis, everything else through serve's internal API. It opens no
// database and needs no disk but its workspaces.
func runRemoteWorker(ctx context.Context, cfg Config, e env) error {
	if cfg.WorkerToken == "" {
		return &exitError{code: 1, msg: fmt.Sprintf("FOLIO_SERVER_URL=%s is set but FOLIO_WORKER_TOKEN is not: set it to the token serve has", redactURL(cfg.ServerURL))}
	}
	a := &app{cfg: cfg, log: newLogger(cfg, e)}
	store := jobs.NewRemoteStore(cfg.ServerURL, cfg.WorkerToken, nil)
	hctx, cancel := context.WithTimeout(ctx, helloTimeout)
	info, err := store.Hello(hctx)
	cancel()
	switch {
	case errors.Is(err, jobs.ErrWorkerToken):
		return &exitError{code: 1, msg: fmt.Sprintf("serve at FOLIO_SERVER_URL=%s refused FOLIO_WORKER_TOKEN: it is not serve's token, or serve has none set", redactURL(cfg.ServerURL))}
	case errors.Is(err, jobs.ErrWorkerAPIVersion):
		return &exitError{code: 1, msg: fmt.Sprintf("serve at FOLIO_SERVER_URL=%s is of another Folio release: %v; run the same release on serve and its workers", redactURL(cfg.ServerURL), err)}
	case err != nil:
		return &exitError{code: 1, msg: fmt.Sprintf("cannot reach serve at FOLIO_SERVER_URL=%s: %v", redactURL(cfg.ServerURL), err)}
	}
	// Links a run hands out are serve's, as from a worker beside it.
	a.cfg.BaseURL = info.BaseURL
	opt, _ := redis.ParseURL(cfg.RedisURL) // validated by loadConfig
	a.rdb = redis.NewClient(opt)
	defer a.rdb.Close()
	if err := a.requireRedis(ctx); err != nil {
		return err
	}
	if a.runner, err = a.newRunner(); err != nil {
		return &exitError{code: 1, msg: err.Error()}
	}
	w := jobs.NewWorker(store, a.runner, a.log, a.jobsConfig())
	// Only agent runs: webhooks and the sweep need the database, on serve.
	srv := tasks.NewWorker(a.rdb, a.log, max(4, 2*runtime.NumCPU()), tasks.QueueAgent)
	if err := srv.Start(tasks.NewServeMux(w, nil)); err != nil {
		return &exitError{code: 1, msg: fmt.Sprintf("cannot start the worker: %v", err)}
	}
	a.log.Info("worker started", "mode", "remote", "server_url", redactURL(cfg.ServerURL), "base_url", info.BaseURL)
	stopMetrics, err := a.startMetrics(ctx, false)
	if err != nil {
		srv.Shutdown()
		return err
	}
	defer stopMetrics()
	<-ctx.Done()
	a.log.Info("shutting down: the worker takes no new tasks")
	srv.Shutdown()
	return nil
}
