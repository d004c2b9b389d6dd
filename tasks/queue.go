package tasks

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/hibiken/asynq"
	"github.com/redis/go-redis/v9"
)

// Queue is the one place that puts work on Asynq and asks it about tasks.
type Queue struct {
	client    *asynq.Client
	inspector *asynq.Inspector
	// agentRunRetries is how often Asynq retries a run it enqueues before
	// it archives the task (AgentRunRetries unless set).
	agentRunRetries int
}

// NewQueue returns a Queue over rdb; it does not close rdb.
func NewQueue(rdb redis.UniversalClient) *Queue {
	return &Queue{client: asynq.NewClientFromRedisClient(rdb), inspector: asynq.NewInspectorFromRedisClient(rdb), agentRunRetries: AgentRunRetries}
}

// SetAgentRunRetries sets how often Asynq retries the runs q enqueues from
// now on before it archives them; set it once, before enqueuing.
func (q *Queue) SetAgentRunRetries(n int) { q.agentRunRetries = n }

// EnqueueAgentRun puts a run on the agent queue. A run already there is not
// an error: the same run is never enqueued twice.
func (q *Queue) EnqueueAgentRun(ctx context.Context, p AgentRun, timeout time.Duration) error {
	if p.EnqueuedAt == 0 {
		p.EnqueuedAt = time.Now().UnixMilli()
	}
	t, err := newAgentRunTask(p, timeout, q.agentRunRetries)
	if err != nil {
		return err
	}
	return q.enqueue(ctx, t)
}

// EnqueueWebhook asks for w's job's pending webhook events to be
// delivered at at (now if zero). The same occasion twice is one task.
func (q *Queue) EnqueueWebhook(ctx context.Context, w WebhookDelivery, at time.Time) error {
	t, err := NewWebhookDeliverTask(w, at)
	if err != nil {
		return err
	}
	return q.enqueue(ctx, t)
}

func (q *Queue) enqueue(ctx context.Context, t *asynq.Task) error {
	_, err := q.client.EnqueueContext(ctx, t)
	if err != nil && !errors.Is(err, asynq.ErrTaskIDConflict) {
		return fmt.Errorf("tasks: unable to enqueue %s: %w", t.Type(), err)
	}
	return nil
}

// CancelRun asks whichever worker runs p to cancel its context.
func (q *Queue) CancelRun(p AgentRun) error {
	if err := q.inspector.CancelProcessing(p.TaskID()); err != nil {
		return fmt.Errorf("tasks: unable to cancel %s: %w", p.TaskID(), err)
	}
	return nil
}

// RunState is what Asynq holds of a run.
type RunState int

const (
	RunMissing  RunState = iota // Asynq has no such task
	RunWaiting                  // pending, scheduled or waiting for a retry
	RunActive                   // a worker holds it
	RunArchived                 // Asynq gave up on it
)

// AgentRunState reports what Asynq holds of run p.
func (q *Queue) AgentRunState(p AgentRun) (RunState, error) {
	info, err := q.inspector.GetTaskInfo(QueueAgent, p.TaskID())
	switch {
	case errors.Is(err, asynq.ErrTaskNotFound), errors.Is(err, asynq.ErrQueueNotFound):
		return RunMissing, nil
	case err != nil:
		return 0, fmt.Errorf("tasks: unable to inspect %s: %w", p.TaskID(), err)
	}
	switch info.State {
	case asynq.TaskStateActive:
		return RunActive, nil
	case asynq.TaskStateArchived:
		return RunArchived, nil
	case asynq.TaskStateCompleted:
		return RunMissing, nil
	}
	return RunWaiting, nil
}

// Close releases the client and inspector (not the Redis client under them).
func (q *Queue) Close() error {
	return errors.Join(q.client.Close(), q.inspector.Close())
}
