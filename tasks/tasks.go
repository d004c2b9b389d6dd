// Package tasks owns Folio's background work on the Asynq queue: the task
// types, their constructors, and the worker that runs them.
package tasks

import (
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/hibiken/asynq"
	"github.com/redis/go-redis/v9"
)

// Queues and their priorities.
const (
	QueueAgent    = "agent"
	QueueWebhooks = "webhooks"
	QueueDefault  = "default"
)

var priorities = map[string]int{QueueAgent: 6, QueueWebhooks: 3, QueueDefault: 1}

// PollInterval is how often an idle worker looks for new tasks. Asynq's
// default of a second would dominate the create→pickup latency.
const PollInterval = 10 * time.Millisecond

// DelayedCheckInterval is how often a worker moves tasks whose time has
// come (retries, scheduled webhook deliveries) to their queue: a retry is
// late by at most this. Asynq's default of 5 s would stretch short retry
// delays many times over; a check is one cheap script per queue.
const DelayedCheckInterval = 100 * time.Millisecond

// NewWorker returns an Asynq server over rdb that processes Folio's queues,
// or only the named ones: a process with no agent runner leaves the agent
// queue alone, so its jobs wait there rather than fail.
func NewWorker(rdb redis.UniversalClient, log *slog.Logger, concurrency int, queues ...string) *Worker {
	q := priorities
	if len(queues) > 0 {
		q = map[string]int{}
		for _, name := range queues {
			q[name] = priorities[name]
		}
	}
	return &Worker{Server: asynq.NewServerFromRedisClient(rdb, asynq.Config{
		Concurrency:              concurrency,
		Queues:                   q,
		Logger:                   asynqLogger{log},
		BaseContext:              context.Background,
		TaskCheckInterval:        PollInterval,
		DelayedTaskCheckInterval: DelayedCheckInterval,
		RetryDelayFunc:           retryDelay,
	})}
}

// Worker is an Asynq server whose Shutdown returns only when every handler
// it started has returned. Asynq's own Shutdown stops waiting for a handler
// whose task passed its deadline or lease, or after its shutdown timeout,
// and leaves it running; the process would then close the database under it.
type Worker struct {
	*asynq.Server
	running sync.WaitGroup
}

// Start processes tasks with h, counting each handler while it runs.
func (w *Worker) Start(h asynq.Handler) error {
	return w.Server.Start(asynq.HandlerFunc(func(ctx context.Context, t *asynq.Task) error {
		w.running.Add(1)
		defer w.running.Done()
		return h.ProcessTask(ctx, t)
	}))
}

// Shutdown stops taking tasks, then waits for the handlers still running:
// Asynq has cancelled their contexts by the time its Shutdown returns.
func (w *Worker) Shutdown() {
	w.Server.Shutdown()
	w.running.Wait()
}

// retryDelay backs off per task type: webhooks double from 10 s up to an
// hour (so about 30 tries cover a day); agent runs from 5 s up to 5 minutes.
func retryDelay(n int, _ error, t *asynq.Task) time.Duration {
	if t.Type() == TypeWebhookDeliver {
		return Backoff(n, 10*time.Second, time.Hour)
	}
	return Backoff(n, 5*time.Second, 5*time.Minute)
}

// Backoff is the wait before retry n (from 0): base doubled n times, at
// most ceiling, plus up to a tenth more so retries of many spread out.
func Backoff(n int, base, ceiling time.Duration) time.Duration {
	d := base << min(max(n, 0), 20)
	if d <= 0 || d > ceiling {
		d = ceiling
	}
	return d + rand.N(d/10+1) // #nosec G404 -- jitter only spreads retries apart; nothing depends on guessing it
}

// asynqLogger sends Asynq's own logs through slog.
type asynqLogger struct{ l *slog.Logger }

func (a asynqLogger) Debug(args ...any) { a.l.Debug(fmt.Sprint(args...), "component", "asynq") }
func (a asynqLogger) Info(args ...any)  { a.l.Info(fmt.Sprint(args...), "component", "asynq") }
func (a asynqLogger) Warn(args ...any)  { a.l.Warn(fmt.Sprint(args...), "component", "asynq") }
func (a asynqLogger) Error(args ...any) { a.l.Error(fmt.Sprint(args...), "component", "asynq") }
func (a asynqLogger) Fatal(args ...any) {
	a.l.Error(fmt.Sprint(args...), "component", "asynq", "fatal", true)
}
