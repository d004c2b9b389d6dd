package tasks

import (
	"context"
	"log/slog"
	"time"
)

// SweepInterval is how often serve (and a same-host worker) reconciles
// active jobs with Asynq: often, so a dead worker's run is retried soon;
// each sweep is an indexed look-up that finds nothing when all is well.
const SweepInterval = 2 * time.Second

// RunSweep calls sweep now and then every interval until ctx ends. Sweeps
// on several workers at once are safe: each repair is a conditional update.
func RunSweep(ctx context.Context, log *slog.Logger, interval time.Duration, sweep func(context.Context) error) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		if err := sweep(ctx); err != nil && ctx.Err() == nil {
			log.Warn("sweep of active jobs failed", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
