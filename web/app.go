package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"

	"github.com/redis/go-redis/v9"

	"github.com/folio-docs/folio/accounts"
	"github.com/folio-docs/folio/agent"
	"github.com/folio-docs/folio/analytics"
	"github.com/folio-docs/folio/auth"
	"github.com/folio-docs/folio/codehost/hosts"
	"github.com/folio-docs/folio/db"
	"github.com/folio-docs/folio/handlers/internalapi"
	"github.com/folio-docs/folio/jobs"
	"github.com/folio-docs/folio/projects"
	"github.com/folio-docs/folio/tasks"
)

// app holds Folio's assembled dependencies for one process.
type app struct {
	cfg  Config
	log  *slog.Logger
	db   *db.DB
	rdb  *redis.Client
	keys *auth.Keys
	// runner runs agent turns. Without one (a process that does not run
	// jobs) the worker leaves the agent queue alone rather than fail jobs.
	runner    agent.Runner
	queue     *tasks.Queue
	jobs      *jobs.Service
	analytics *analytics.Service
	// accounts creates users under the sign-up policy; invitations bring
	// them into projects.
	accounts    *accounts.Service
	invitations *accounts.Invitations
	// projects creates and changes projects for the operator's CLI;
	// adminProjects does the same for the dashboard's project admins,
	// within the repository policy.
	projects, adminProjects *projects.Service
	hosts                   hosts.Config // how code hosts are reached
}

// newLogger writes structured logs to stderr, as text or JSON.
func newLogger(cfg Config, e env) *slog.Logger {
	opts := &slog.HandlerOptions{Level: slog.LevelInfo}
	if cfg.LogFormat == "json" {
		return slog.New(slog.NewJSONHandler(e.stderr, opts))
	}
	return slog.New(slog.NewTextHandler(e.stderr, opts))
}

// redisLogger sends go-redis's own messages (failed dials and the like)
// through slog instead of its default unstructured stderr logger.
type redisLogger struct{ l *slog.Logger }

func (r redisLogger) Printf(ctx context.Context, format string, v ...any) {
	r.l.WarnContext(ctx, fmt.Sprintf(format, v...), "component", "redis")
}

// openApp loads configuration and opens and migrates the database; with
// withRedis it also connects to Redis (without requiring it to answer yet).
func openApp(ctx context.Context, e env, withRedis bool) (*app, error) {
	cfg, err := loadConfig(e.getenv)
	if err != nil {
		return nil, err
	}
	a := &app{cfg: cfg, log: newLogger(cfg, e)}
	a.db, err = db.Open(ctx, cfg.DBPath)
	if err != nil {
		return nil, &exitError{code: 1, msg: fmt.Sprintf("cannot open the database (FOLIO_DB=%s): %v", cfg.DBPath, err)}
	}
	// Where dashboard admins' local repositories live; see codehost.Policy.
	if err := os.MkdirAll(cfg.LocalRepos, 0o750); err != nil {
		_ = a.db.Close() // the folder's error is the one to report
		return nil, &exitError{code: 1, msg: fmt.Sprintf("cannot create FOLIO_LOCAL_REPOS=%s: %v", cfg.LocalRepos, err)}
	}
	if _, err := a.db.Migrate(ctx); err != nil {
		_ = a.db.Close() // the migration's error is the one to report
		return nil, &exitError{code: 1, msg: err.Error()}
	}
	if a.hosts, err = a.codeHosts(); err != nil {
		a.Close()
		return nil, &exitError{code: 1, msg: err.Error()}
	}
	if withRedis {
		opt, _ := redis.ParseURL(cfg.RedisURL) // validated by loadConfig
		a.rdb = redis.NewClient(opt)
		if a.runner, err = a.newRunner(); err != nil {
			a.Close()
			return nil, err
		}
	}
	if err := a.assemble(a.jobsConfig()); err != nil {
		a.Close()
		return nil, err
	}
	return a, nil
}

func (a *app) jobsConfig() jobs.Config {
	h := a.hosts
	h.BaseURL = a.cfg.BaseURL
	return jobs.Config{JobTimeout: a.cfg.JobTimeout, DefaultModel: a.cfg.Model, AllowPrivateWebhooks: a.cfg.WebhookAllowPrivate, Hosts: h}
}

// classifier is the traffic classifier of the lists embedded in the
// binary, built once a process: it is the same for every assemble (the
// tests and their in-process commands assemble hundreds), and building it
// takes a quarter of a second of CPU. It is safe for concurrent use.
var classifier = sync.OnceValues(analytics.NewClassifier)

// assemble builds the services over a.db and, when there is one, a.rdb.
// It is the one place they are built, for serve, worker, the CLI and tests.
func (a *app) assemble(jcfg jobs.Config) error {
	a.keys = auth.NewKeys(a.db)
	a.invitations = accounts.NewInvitations(a.db, a.cfg.BaseURL)
	a.accounts = accounts.New(a.db, a.cfg.Signup, a.invitations)
	a.projects = projects.NewService(a.db, a.projectValidator())
	a.adminProjects = projects.NewService(a.db, a.adminProjectValidator())
	cls, err := classifier()
	if err != nil {
		return fmt.Errorf("analytics: unable to build the traffic classifier: %w", err)
	}
	a.analytics = analytics.NewService(a.db, cls)
	if jcfg.Refs == nil {
		jcfg.Refs = a.projectValidator()
	}
	if mc, ok := a.runner.(jobs.ModelCatalog); ok && jcfg.Models == nil {
		jcfg.Models = mc // the provider's model list checks a create's model
	}
	if a.rdb != nil {
		a.queue = tasks.NewQueue(a.rdb)
		if a.cfg.AgentRunRetries != nil {
			a.queue.SetAgentRunRetries(*a.cfg.AgentRunRetries)
		}
		a.jobs = jobs.New(a.db, a.rdb, a.queue, a.runner, a.log, jcfg)
	}
	return nil
}

func (a *app) Close() {
	if a.jobs != nil {
		a.jobs.EndStreams()
	}
	if a.queue != nil {
		_ = a.queue.Close() // asynq's client and inspector share a.rdb, closed next; their Close only says it cannot close a shared connection
	}
	if a.rdb != nil {
		if err := a.rdb.Close(); err != nil {
			a.log.Warn("closing the Redis client", "err", err)
		}
	}
	if err := a.db.Close(); err != nil {
		a.log.Warn("closing the database", "err", err)
	}
}

// redisPinger adapts the Redis client to api.Pinger.
type redisPinger struct{ c *redis.Client }

func (p redisPinger) Ping(ctx context.Context) error { return p.c.Ping(ctx).Err() }

// requireRedis fails with one clear line when Redis does not answer.
func (a *app) requireRedis(ctx context.Context) error {
	if err := a.rdb.Ping(ctx).Err(); err != nil {
		return &exitError{code: 1, msg: fmt.Sprintf("cannot reach Redis at FOLIO_REDIS_URL=%s: %v", redactURL(a.cfg.RedisURL), err)}
	}
	return nil
}

// gitHooksDir holds the hooks of pushes over /git/ (internalapi.GitHTTP).
func (a *app) gitHooksDir() string { return filepath.Join(a.cfg.DataDir, "git-hooks") }

// writeGitHooks writes the pre-receive hook that keeps remote workers'
// pushes to folio/* branches.
func (a *app) writeGitHooks() error {
	dir := a.gitHooksDir()
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return &exitError{code: 1, msg: fmt.Sprintf("cannot create %s: %v", dir, err)}
	}
	if err := os.WriteFile(filepath.Join(dir, "pre-receive"), []byte(internalapi.PreReceiveHook), 0o750); err != nil { // #nosec G306 -- git runs the hook, so it must be executable; it holds no secret
		return &exitError{code: 1, msg: fmt.Sprintf("cannot write the git hook in %s: %v", dir, err)}
	}
	return nil
}
