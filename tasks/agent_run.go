package tasks

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/hibiken/asynq"
)

// TypeAgentRun runs one turn of an agent job.
const TypeAgentRun = "agent:run"

// AgentRun names the turn to run: a job, its turn, and which recovery of
// that turn this task is (0 unless the sweep re-enqueued it). EnqueuedAt
// (Unix milliseconds) lets the worker log its pickup latency.
type AgentRun struct {
	JobID      string `json:"jobId"`
	Turn       int    `json:"turn"`
	Recovery   int    `json:"recovery"`
	EnqueuedAt int64  `json:"enqueuedAt,omitempty"`
}

// TaskID is the run's Asynq task id: the same run is never enqueued twice.
func (p AgentRun) TaskID() string {
	return fmt.Sprintf("run:%s:%d:%d", p.JobID, p.Turn, p.Recovery)
}

// AgentRunRetries bounds Asynq's own retries of a run by default
// (FOLIO_AGENT_RUN_RETRIES); the job's attempt count in SQLite is what
// fails a job that keeps failing.
const AgentRunRetries = 25

// runTimeoutGrace lets a run that reached its time limit record the failure
// before Asynq's own timeout (in whole seconds) takes the task back.
const runTimeoutGrace = 30 * time.Second

// NewAgentRunTask builds the task of a run with the most time it may take
// (its time limit and the time to keep its work after it).
func NewAgentRunTask(p AgentRun, timeout time.Duration) (*asynq.Task, error) {
	return newAgentRunTask(p, timeout, AgentRunRetries)
}

func newAgentRunTask(p AgentRun, timeout time.Duration, retries int) (*asynq.Task, error) {
	body, err := json.Marshal(p)
	if err != nil {
		return nil, fmt.Errorf("tasks: unable to encode %s: %w", TypeAgentRun, err)
	}
	return asynq.NewTask(TypeAgentRun, body,
		asynq.Queue(QueueAgent), asynq.Timeout(timeout+runTimeoutGrace), asynq.TaskID(p.TaskID()), asynq.MaxRetry(retries)), nil
}

// JobRunner runs a turn; an error asks for a retry.
type JobRunner interface {
	RunJob(ctx context.Context, p AgentRun) error
}

func handleAgentRun(r JobRunner) asynq.HandlerFunc {
	return func(ctx context.Context, t *asynq.Task) error {
		var p AgentRun
		if err := json.Unmarshal(t.Payload(), &p); err != nil {
			return fmt.Errorf("tasks: bad %s payload: %v: %w", TypeAgentRun, err, asynq.SkipRetry)
		}
		return r.RunJob(ctx, p)
	}
}
