// Package tasks owns Folio's background work on the Asynq queue: the task
// types, their constructors, and the worker that runs them.
package tasks

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/hibiken/asynq"
	"github.com/redis/go-redis/v9"
)

// Queues and their priorities.
const (
	QueueAgent    = "agent"
	QueueWebhooks = "webhooks"
	QueueDefault  = "default"
)

// NewWorker returns an Asynq server over rdb that processes Folio's queues.
func NewWorker(rdb redis.UniversalClient, log *slog.Logger, concurrency int) *asynq.Server {
	return asynq.NewServerFromRedisClient(rdb, asynq.Config{
		Concurrency: concurrency,
		Queues:      map[string]int{QueueAgent: 6, QueueWebhooks: 3, QueueDefault: 1},
		Logger:      asynqLogger{log},
		BaseContext: context.Background,
	})
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
