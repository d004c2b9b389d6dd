package jobs

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/folio-docs/folio/agent"
	"github.com/folio-docs/folio/doccheck"
	"github.com/folio-docs/folio/model"
	"github.com/folio-docs/folio/tasks"
)

// Store is all that running a turn needs of Folio's storage: claim the
// turn, keep the claim alive, read what the agent works from, record what
// it says and uses, and end the turn. A Worker depends on nothing else, so
// it runs the same beside the database (LocalStore) or on another machine
// through serve's internal API (package jobs/remote).
//
// owner names one attempt at a turn; every write of an attempt carries it,
// and a write of an attempt that lost its claim changes nothing.
type Store interface {
	// ClaimRun gives owner the right to run the turn named by run for
	// lease; ok is false when the job moved on or another attempt holds it.
	ClaimRun(ctx context.Context, run tasks.AgentRun, owner string, lease time.Duration) (j model.Job, ok bool, err error)
	// ExtendLease renews owner's claim for lease; false means it is gone.
	ExtendLease(ctx context.Context, jobID, owner string, lease time.Duration) (bool, error)
	// ReleaseRun gives the turn back for a retry; false means the claim was gone.
	ReleaseRun(ctx context.Context, jobID, owner string) (bool, error)
	// Project is the project a job belongs to, as the agent needs it.
	Project(ctx context.Context, projectID string) (model.Project, error)
	// History is the conversation the agent continues from, up to turn.
	History(ctx context.Context, jobID string, turn int) ([]agent.Message, error)
	// AddMessage records a message owner's attempt at turn produced.
	AddMessage(ctx context.Context, jobID string, turn int, owner string, m agent.Message) error
	// AddUsage adds what an attempt used of the model to the job.
	AddUsage(ctx context.Context, jobID string, u model.RunUsage) error
	// FinishRun ends owner's successful turn with its result, and does what
	// follows (the next turn's enqueue, the webhook event).
	FinishRun(ctx context.Context, jobID, owner string, res agent.Result) error
	// FailRun fails the job owner runs ("" for whoever runs it), and sends
	// the webhook event.
	FailRun(ctx context.Context, jobID, owner, code, message string) error
}

// LocalStore is the Store over this process's database: the one the
// in-process and same-host workers use, and the one serve's internal API
// answers remote workers with.
func (s *Service) LocalStore() Store { return localStore{s} }

type localStore struct{ s *Service }

var _ Store = localStore{}

func (l localStore) ClaimRun(ctx context.Context, run tasks.AgentRun, owner string, lease time.Duration) (model.Job, bool, error) {
	return l.s.db.ClaimJobRun(ctx, run.JobID, run.Turn, run.Recovery, owner, time.Now().Add(lease))
}

func (l localStore) ExtendLease(ctx context.Context, jobID, owner string, lease time.Duration) (bool, error) {
	return l.s.db.ExtendJobLease(ctx, jobID, owner, time.Now().Add(lease))
}

func (l localStore) ReleaseRun(ctx context.Context, jobID, owner string) (bool, error) {
	return l.s.db.ReleaseJobRun(ctx, jobID, owner)
}

func (l localStore) Project(ctx context.Context, projectID string) (model.Project, error) {
	return l.s.db.ProjectByID(ctx, projectID)
}

func (l localStore) History(ctx context.Context, jobID string, turn int) ([]agent.Message, error) {
	ms, err := l.s.db.JobMessages(ctx, jobID, true, turn)
	if err != nil {
		return nil, err
	}
	history := make([]agent.Message, len(ms))
	for i, m := range ms {
		history[i] = agent.Message{Role: m.Role, Content: m.Content, ToolCallID: m.ToolCallID, ToolName: m.ToolName, IsError: m.IsError, CreatedAt: m.CreatedAt}
		if m.ToolCalls != "" {
			if err := json.Unmarshal([]byte(m.ToolCalls), &history[i].ToolCalls); err != nil {
				return nil, fmt.Errorf("jobs: unable to read tool calls of job %s: %w", jobID, err)
			}
		}
	}
	return history, nil
}

func (l localStore) AddMessage(ctx context.Context, jobID string, turn int, owner string, m agent.Message) error {
	calls := ""
	if len(m.ToolCalls) > 0 {
		b, err := json.Marshal(m.ToolCalls)
		if err != nil {
			return fmt.Errorf("jobs: unable to encode tool calls: %w", err)
		}
		calls = string(b)
	}
	at := m.CreatedAt
	if at.IsZero() {
		at = time.Now()
	}
	usage := ""
	if m.Usage != nil {
		b, err := json.Marshal(m.Usage)
		if err != nil {
			return fmt.Errorf("jobs: unable to encode a reply's usage: %w", err)
		}
		usage = string(b)
	}
	if err := l.s.db.AddJobMessage(ctx, model.JobMessage{
		JobID: jobID, Turn: turn, Attempt: owner, Role: m.Role, Content: m.Content, ToolCalls: calls,
		ToolCallID: m.ToolCallID, ToolName: m.ToolName, IsError: m.IsError, CreatedAt: at, Usage: usage,
	}); err != nil {
		return err
	}
	l.s.changed(ctx, jobID)
	return nil
}

func (l localStore) AddUsage(ctx context.Context, jobID string, u model.RunUsage) error {
	return l.s.db.AddJobUsage(ctx, jobID, u)
}

func (l localStore) FinishRun(ctx context.Context, jobID, owner string, res agent.Result) error {
	return l.s.finishRun(ctx, jobID, owner, res)
}

func (l localStore) FailRun(ctx context.Context, jobID, owner, code, message string) error {
	_, err := l.s.failRun(ctx, jobID, owner, code, message)
	return err
}

// finishRun records a successful turn and starts the next if follow-ups
// wait, or sends the job's completion event.
func (s *Service) finishRun(ctx context.Context, id, owner string, res agent.Result) error {
	problems := res.Problems
	if problems == nil {
		problems = []doccheck.Problem{}
	}
	pj, err := json.Marshal(problems)
	if err != nil {
		return fmt.Errorf("jobs: unable to encode the problems of job %s: %w", id, err)
	}
	j, next, ok, err := s.db.FinishJobRun(ctx, id, owner, model.TurnOutcome{PRLink: res.PRLink, Summary: res.Summary, Problems: string(pj)})
	if ok {
		s.changed(ctx, j.ID) // the turn's messages kept, and the status, outcome or next turn
	}
	switch {
	case err != nil:
		return err
	case !ok:
	case next:
		if err := s.enqueueRun(ctx, j); err != nil {
			s.log.Warn("unable to enqueue the next turn; the sweep will", "job_id", j.ID, "err", err)
		}
	default:
		s.notify(ctx, j)
	}
	return nil
}

// failRun fails the job owner runs ("" for whoever runs it); ok says
// whether it did.
func (s *Service) failRun(ctx context.Context, id, owner, code, message string) (bool, error) {
	j, ok, err := s.db.FailJobRun(ctx, id, owner, code, message)
	if err != nil {
		return false, err
	}
	if ok {
		s.log.Info("job failed", "job_id", j.ID, "code", code)
		s.changed(ctx, j.ID)
		s.notify(ctx, j)
	}
	return ok, nil
}
