package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/folio-docs/folio/tasks"
)

// cmdQueue shows the Asynq queues to an operator and runs a dead task
// again: `folio queue`, `folio queue archived`, `folio queue retry TASK_ID`.
// It needs Redis only, not the database.
func cmdQueue(ctx context.Context, args []string, e env) error {
	fs := newFlags("queue", "queue [archived | retry TASK_ID]", e)
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	cfg, err := loadConfig(e.getenv)
	if err != nil {
		return err
	}
	opt, _ := redis.ParseURL(cfg.RedisURL) // validated by loadConfig
	rdb := redis.NewClient(opt)
	defer rdb.Close()
	if err := rdb.Ping(ctx).Err(); err != nil {
		return &exitError{code: 1, msg: fmt.Sprintf("cannot reach Redis at FOLIO_REDIS_URL=%s: %v", redactURL(cfg.RedisURL), err)}
	}
	q := tasks.NewQueue(rdb)
	defer q.Close()

	switch {
	case len(pos) == 0:
		return printQueueCounts(q, e)
	case pos[0] == "archived" && len(pos) == 1:
		return printArchived(q, e)
	case pos[0] == "retry" && len(pos) == 2:
		t, err := q.RunAgain(pos[1])
		switch {
		case errors.Is(err, tasks.ErrNoSuchTask):
			return &exitError{code: 1, msg: fmt.Sprintf("no queue holds a task %s (see folio queue archived)", pos[1])}
		case errors.Is(err, tasks.ErrNotDead):
			return &exitError{code: 1, msg: fmt.Sprintf("task %s is %s, not archived or waiting for a retry: nothing to run again", t.ID, t.State)}
		case err != nil:
			return err
		}
		fmt.Fprintf(e.stdout, "task %s (%s%s) moved from %s to pending in queue %s: a worker runs it next\n", t.ID, t.Type, jobOf(t), t.State, t.Queue)
		if t.Type == tasks.TypeAgentRun {
			fmt.Fprintln(e.stderr, "note: a run of a job that has moved on since (recovered, finished, cancelled or archived) does nothing")
		}
		return nil
	}
	return usageError(fs, "want no argument, archived, or retry TASK_ID")
}

func jobOf(t tasks.DeadTask) string {
	if t.JobID == "" {
		return ""
	}
	return ", job " + t.JobID
}

func printQueueCounts(q *tasks.Queue, e env) error {
	counts, err := q.Counts()
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "QUEUE\tPENDING\tACTIVE\tSCHEDULED\tRETRY\tARCHIVED\tCOMPLETED\t")
	for _, c := range counts {
		name := c.Queue
		if c.Paused {
			name += " (paused)"
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\t%d\t\n", name, c.Pending, c.Active, c.Scheduled, c.Retry, c.Archived, c.Completed)
	}
	return tw.Flush()
}

func printArchived(q *tasks.Queue, e env) error {
	dead, err := q.Archived()
	if err != nil {
		return err
	}
	if len(dead) == 0 {
		fmt.Fprintln(e.stderr, "no archived tasks")
		return nil
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "TASK ID\tQUEUE\tTYPE\tJOB ID\tRETRIED\tFAILED AT\tLAST ERROR")
	for _, t := range dead {
		job := t.JobID
		if job == "" {
			job = "-"
		}
		at := "-"
		if !t.LastFailedAt.IsZero() {
			at = t.LastFailedAt.UTC().Format(time.RFC3339)
		}
		// One line a task, whatever the error said.
		msg := strings.Join(strings.Fields(t.LastErr), " ")
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%s\t%s\n", t.ID, t.Queue, t.Type, job, t.Retried, at, msg)
	}
	return tw.Flush()
}
