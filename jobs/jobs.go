// Package jobs is the life of an agent job: creation and follow-ups under a
// rate limit and Idempotency-Key, the state machine of CONTRACT §2, the run
// of each turn through an agent.Runner, the sweep that keeps no job active
// forever, and the signed webhooks sent on every status change.
package jobs

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"regexp"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/redis/go-redis/v9"

	"github.com/folio-docs/folio/agent"
	"github.com/folio-docs/folio/codehost"
	"github.com/folio-docs/folio/model"
	"github.com/folio-docs/folio/tasks"
)

// Error codes a failed job carries in error.code (besides the agent's own).
const (
	CodeCanceled         = "canceled"
	CodeTimeout          = agent.CodeTimeout
	CodeRetriesExhausted = "retries_exhausted"
	CodeAgentError       = "agent_error"
)

// DefaultLease is how long a run's claim lasts unrenewed. With heartbeats
// every third of it and a sweep every tasks.SweepInterval, a run whose
// worker died is retried within DefaultLease+SweepInterval (CONTRACT §7: 30 s).
const DefaultLease = 15 * time.Second

// MaxPromptLength is the longest prompt accepted, in characters.
const MaxPromptLength = 32000

// CodeHosts opens a repository's code host, and says where the repository
// is, as a job's source.repository shows it.
type CodeHosts interface {
	Open(repository string) (codehost.Host, error)
	RepositoryURL(projectID, repository string) string
}

// Config tunes a Service; zero fields take the defaults shown.
type Config struct {
	JobTimeout time.Duration // time limit of one run: 30m
	// WrapUp is how long a run that reached JobTimeout may go on keeping
	// its work (commit, push, draft pull request): agent.WrapUpTime.
	WrapUp        time.Duration
	DefaultModel  string        // a job's model when its project names none
	Lease         time.Duration // a run unheard of this long is presumed dead: 15s, renewed every Lease/3
	MaxAttempts   int           // runs of one turn before the job fails: 5
	RecoveryGrace time.Duration // an unclaimed active job missing from Asynq this long is re-enqueued: 30s
	Limit         int           // creates (and, separately, follow-ups) per project per Window: 100
	Window        time.Duration // 1h
	HTTPClient    *http.Client  // for webhook deliveries: webhookClient's
	// A failed webhook delivery is retried after WebhookRetryBase (10s),
	// doubling up to WebhookRetryMax (1h), until the event would be older
	// than WebhookRetryFor (24h); then it is given up and the next goes.
	WebhookRetryBase time.Duration
	WebhookRetryMax  time.Duration
	WebhookRetryFor  time.Duration
	// Hosts reaches the code hosts, for a job's changes and its merge
	// (codehost/hosts.Config, built by the composition root); required by
	// those two. It also makes source.repository a URL; without it a job
	// shows its project's repository setting as it is.
	Hosts CodeHosts
	// Refs checks the ref a create asks for; Models lists the models one
	// may ask for. Either may be nil: the request is then not checked.
	Refs   RefChecker
	Models ModelCatalog
	// AllowPrivateWebhooks lets webhooks reach loopback and private
	// addresses (FOLIO_WEBHOOK_ALLOW_PRIVATE), for receivers on the same network.
	AllowPrivateWebhooks bool
}

func (c Config) withDefaults() Config {
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	def(&c.JobTimeout, 30*time.Minute)
	def(&c.WrapUp, agent.WrapUpTime)
	def(&c.Lease, DefaultLease)
	def(&c.RecoveryGrace, 30*time.Second)
	def(&c.Window, time.Hour)
	def(&c.WebhookRetryBase, 10*time.Second)
	def(&c.WebhookRetryMax, time.Hour)
	def(&c.WebhookRetryFor, 24*time.Hour)
	if c.MaxAttempts <= 0 {
		c.MaxAttempts = 5
	}
	if c.Limit <= 0 {
		c.Limit = 100
	}
	if c.HTTPClient == nil {
		c.HTTPClient = webhookClient(c.AllowPrivateWebhooks)
	}
	return c
}

// Service runs agent jobs.
type Service struct {
	db        Storage
	rdb       redis.UniversalClient // announces changes (ChangesChannel)
	hub       *Hub                  // this process's event streams
	queue     *tasks.Queue
	worker    *Worker // nil in a process that cannot run agents
	log       *slog.Logger
	cfg       Config
	creates   *Limiter
	followUps *Limiter
	models    modelCache
	views     viewCache // GET job's views, kept while the database is unchanged
	// unclaimedChecked is when Sweep last asked Asynq about unclaimed jobs
	// (Unix nanoseconds).
	unclaimedChecked atomic.Int64
}

// New returns a Service. runner may be nil in a process that only serves
// the API; RunJob then refuses to run (the job stays queued).
func New(d Storage, rdb redis.UniversalClient, queue *tasks.Queue, runner agent.Runner, log *slog.Logger, cfg Config) *Service {
	cfg = cfg.withDefaults()
	s := &Service{
		db: d, rdb: rdb, hub: NewHub(rdb, log), queue: queue, log: log, cfg: cfg,
		creates:   NewLimiter(rdb, "folio:ratelimit:create:", cfg.Limit, cfg.Window),
		followUps: NewLimiter(rdb, "folio:ratelimit:message:", cfg.Limit, cfg.Window),
	}
	if runner != nil {
		s.worker = NewWorker(s.LocalStore(), runner, log, cfg)
	}
	return s
}

var modelName = regexp.MustCompile(`^\S+$`)

func checkPrompt(p string) error {
	switch n := utf8.RuneCountInString(p); {
	case n == 0:
		return model.Invalid("prompt", "Field \"prompt\" is required and must not be empty.")
	case n > MaxPromptLength:
		return model.Invalid("prompt", fmt.Sprintf("Field \"prompt\" must be at most %d characters; it has %d.", MaxPromptLength, n))
	}
	return nil
}

// runOf names the run a job is on.
func runOf(j model.Job) tasks.AgentRun {
	return tasks.AgentRun{JobID: j.ID, Turn: j.Turn, Recovery: j.Recovery}
}

func (s *Service) enqueueRun(ctx context.Context, j model.Job) error {
	return s.queue.EnqueueAgentRun(ctx, runOf(j), s.cfg.JobTimeout+s.cfg.WrapUp)
}

// Get returns a job of a project.
func (s *Service) Get(ctx context.Context, projectID, id string) (model.Job, error) {
	return s.db.JobByID(ctx, projectID, id)
}

// List returns a project's jobs newest first, and whether more follow.
func (s *Service) List(ctx context.Context, projectID string, status model.JobStatus, limit, offset int) ([]model.Job, bool, error) {
	return s.db.ListJobs(ctx, projectID, status, limit, offset)
}

// FirstPrompts maps each listed job to its first prompt.
func (s *Service) FirstPrompts(ctx context.Context, list []model.Job) (map[string]string, error) {
	ids := make([]string, len(list))
	for i, j := range list {
		ids[i] = j.ID
	}
	return s.db.FirstPrompts(ctx, ids)
}

// Archive archives a job, stopping its run if one is under way.
func (s *Service) Archive(ctx context.Context, projectID, id string) (model.Job, error) {
	j, err := s.db.ArchiveJob(ctx, projectID, id)
	if err != nil {
		return model.Job{}, err
	}
	s.stopRun(j)
	s.changed(ctx, j.ID)
	s.notify(ctx, j)
	return j, nil
}

// Cancel stops an active job's run and fails it with code canceled; its
// queued follow-ups are dropped.
func (s *Service) Cancel(ctx context.Context, projectID, id string) (model.Job, error) {
	j, err := s.db.CancelJob(ctx, projectID, id, CodeCanceled, "The job was cancelled.")
	if err != nil {
		return model.Job{}, err
	}
	s.stopRun(j)
	s.changed(ctx, j.ID)
	s.notify(ctx, j)
	return j, nil
}

// stopRun asks the worker running j's turn to stop at once. It is best
// effort: a run that misses the signal loses its lease within Lease/3.
func (s *Service) stopRun(j model.Job) {
	if err := s.queue.CancelRun(runOf(j)); err != nil {
		s.log.Warn("unable to signal the run to stop", "job_id", j.ID, "err", err)
	}
}

// Messages returns a job's conversation.
func (s *Service) Messages(ctx context.Context, projectID, id string) ([]Message, error) {
	j, err := s.db.JobByID(ctx, projectID, id)
	if err != nil {
		return nil, err
	}
	ms, err := s.db.JobMessages(ctx, j.ID, false, 0)
	if err != nil {
		return nil, err
	}
	out := make([]Message, len(ms))
	for i, m := range ms {
		out[i] = messageView(j, m)
	}
	return out, nil
}
