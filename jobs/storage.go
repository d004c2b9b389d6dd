package jobs

import (
	"context"
	"time"

	"github.com/folio-docs/folio/model"
)

// Storage is what the Service keeps in the database: the jobs and their
// conversations, the claims of their runs, their webhook events, and the
// projects they belong to. *db.DB implements it; the composition root
// passes it to New. (Store is the narrower view a Worker has of it,
// local or remote.)
type Storage interface {
	JobRecords
	RunRecords
	WebhookRecords
	// ProjectByID finds a project (model.ErrNotFound if none).
	ProjectByID(ctx context.Context, id string) (model.Project, error)
}

// JobRecords create, read and change jobs as their owners ask: the
// create, the follow-ups, the views, archive, cancel and merge. The
// transitions apply model.Job's rules atomically and return its errors.
type JobRecords interface {
	// CreateJob stores a new active job with its first prompt and, when
	// idem is given, the key that created it (model.ErrConflict if a live
	// one of the project exists).
	CreateJob(ctx context.Context, j model.Job, prompt string, idem *model.IdempotencyKey) (model.Job, error)
	// DeleteJob removes a job that could not be enqueued.
	DeleteJob(ctx context.Context, id string) error
	// IdempotencyKeyByKey finds a project's live Idempotency-Key.
	IdempotencyKeyByKey(ctx context.Context, projectID, key string) (model.IdempotencyKey, error)
	// JobByID finds a job of a project.
	JobByID(ctx context.Context, projectID, id string) (model.Job, error)
	// JobViewByID reads only what a job's view shows (GET job's read).
	JobViewByID(ctx context.Context, projectID, id string) (model.Job, error)
	// JobProjectID is the project of a job known by its id alone.
	JobProjectID(ctx context.Context, id string) (string, error)
	// ListJobs lists a project's jobs newest first, and whether more follow.
	ListJobs(ctx context.Context, projectID string, status model.JobStatus, limit, offset int) ([]model.Job, bool, error)
	// FirstPrompts maps jobs to their first prompts.
	FirstPrompts(ctx context.Context, jobIDs []string) (map[string]string, error)
	// JobMessages is a job's conversation; with keptOnly, only the history
	// the agent continues from, up to turn upTo.
	JobMessages(ctx context.Context, jobID string, keptOnly bool, upTo int) ([]model.JobMessage, error)
	// JobMessagesAfter is what was recorded of a job's conversation after
	// the message with id after.
	JobMessagesAfter(ctx context.Context, jobID string, after int64) ([]model.JobMessage, error)
	// AddJobPrompt stores a follow-up; started reports a new turn to enqueue.
	AddJobPrompt(ctx context.Context, projectID, id, prompt string, idem *model.IdempotencyKey) (j model.Job, started bool, err error)
	ArchiveJob(ctx context.Context, projectID, id string) (model.Job, error)
	CancelJob(ctx context.Context, projectID, id, code, message string) (model.Job, error)
	// MergeJob records a job's merge and archives it; archived reports
	// whether this call archived it.
	MergeJob(ctx context.Context, projectID, id, commit, diff string) (j model.Job, archived bool, err error)
	// MergedDiff is the diff a merged job brought ("" if none).
	MergedDiff(ctx context.Context, id string) (string, error)
	// DataVersion changes whenever the database does; ok is false when no
	// read may be kept (the view cache's guard).
	DataVersion() (v uint64, ok bool)
}

// RunRecords hold the runs of jobs' turns: the claim one attempt holds,
// what it records, how it ends, and the runs the sweep finds lost. Every
// write of an attempt carries its owner and changes nothing once the claim
// is gone (ok false).
type RunRecords interface {
	ClaimJobRun(ctx context.Context, id string, turn, recovery int, owner string, leaseUntil time.Time) (j model.Job, ok bool, err error)
	ExtendJobLease(ctx context.Context, id, owner string, until time.Time) (bool, error)
	ReleaseJobRun(ctx context.Context, id, owner string) (bool, error)
	AddJobMessage(ctx context.Context, m model.JobMessage) error
	AddJobUsage(ctx context.Context, id string, u model.RunUsage) error
	// FinishJobRun ends owner's turn; next reports a follow-up turn to enqueue.
	FinishJobRun(ctx context.Context, id, owner string, out model.TurnOutcome) (j model.Job, next, ok bool, err error)
	// FailJobRun fails the job owner runs ("" for whoever runs it).
	FailJobRun(ctx context.Context, id, owner, code, message string) (j model.Job, ok bool, err error)
	// ExpiredJobRuns and UnclaimedJobs are the sweep's lost runs.
	ExpiredJobRuns(ctx context.Context, t time.Time) ([]model.Job, error)
	UnclaimedJobs(ctx context.Context, t time.Time) ([]model.Job, error)
	// RecoverJobRun moves a lost run to a new recovery; ok says this call won.
	RecoverJobRun(ctx context.Context, id string, turn, recovery int) (bool, error)
}

// WebhookRecords hold the webhook events of status changes and the log of
// their deliveries, delivered one at a time per job under a lease.
type WebhookRecords interface {
	// ClaimWebhookEvent gives owner the job's oldest pending event if due.
	ClaimWebhookEvent(ctx context.Context, jobID, owner string, leaseUntil time.Time) (e model.WebhookEvent, ok bool, err error)
	// FinishWebhookEvent logs an attempt (if logged) and sets e's state
	// while owner still holds it.
	FinishWebhookEvent(ctx context.Context, e model.WebhookEvent, owner, state string, retryAt time.Time, logged *model.WebhookDelivery) (ok bool, err error)
	// StalledWebhookEvents lists the pending events nothing is delivering.
	StalledWebhookEvents(ctx context.Context, t time.Time, limit int) ([]model.WebhookEvent, error)
	WebhookDeliveries(ctx context.Context, projectID string, limit int) ([]model.WebhookDelivery, error)
}
