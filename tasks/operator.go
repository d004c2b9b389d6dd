package tasks

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/hibiken/asynq"
)

// What an operator sees of the queue (folio queue), through Asynq's
// Inspector: never Asynq's Redis keys by hand.

// QueueCounts is how many tasks one queue holds in each state.
type QueueCounts struct {
	Queue                                                  string
	Pending, Active, Scheduled, Retry, Archived, Completed int
	Paused                                                 bool
}

// Counts reports Folio's queues, and any other queue Asynq knows in this
// Redis database, in a stable order; a queue never used counts zeros.
func (q *Queue) Counts() ([]QueueCounts, error) {
	names, err := q.inspector.Queues()
	if err != nil {
		return nil, fmt.Errorf("tasks: unable to list queues: %w", err)
	}
	ours := []string{QueueAgent, QueueWebhooks, QueueDefault}
	slices.Sort(names)
	for _, n := range names {
		if !slices.Contains(ours, n) {
			ours = append(ours, n)
		}
	}
	out := make([]QueueCounts, 0, len(ours))
	for _, name := range ours {
		if !slices.Contains(names, name) { // Asynq has never held a task of it
			out = append(out, QueueCounts{Queue: name})
			continue
		}
		info, err := q.inspector.GetQueueInfo(name)
		if err != nil {
			return nil, fmt.Errorf("tasks: unable to read queue %s: %w", name, err)
		}
		out = append(out, QueueCounts{Queue: name, Pending: info.Pending, Active: info.Active, Scheduled: info.Scheduled,
			Retry: info.Retry, Archived: info.Archived, Completed: info.Completed, Paused: info.Paused})
	}
	return out, nil
}

// DeadTask is a task Asynq archived: its retries are spent (or it was
// refused for good), and it runs again only when an operator says so.
type DeadTask struct {
	ID, Queue, Type string
	JobID           string // the job it was for, when it was for one
	LastErr         string
	LastFailedAt    time.Time
	Retried         int
	State           string // where the task is now: archived, retry, pending...
}

// Archived lists the dead tasks of every queue, oldest failure first.
func (q *Queue) Archived() ([]DeadTask, error) {
	counts, err := q.Counts()
	if err != nil {
		return nil, err
	}
	var out []DeadTask
	for _, c := range counts {
		for page := 1; c.Archived > 0; page++ {
			infos, err := q.inspector.ListArchivedTasks(c.Queue, asynq.PageSize(100), asynq.Page(page))
			if err != nil {
				return nil, fmt.Errorf("tasks: unable to list archived tasks of %s: %w", c.Queue, err)
			}
			for _, info := range infos {
				out = append(out, deadTask(info))
			}
			if len(infos) < 100 {
				break
			}
		}
	}
	slices.SortStableFunc(out, func(a, b DeadTask) int { return a.LastFailedAt.Compare(b.LastFailedAt) })
	return out, nil
}

// ErrNotDead refuses to run again a task that is not archived or waiting
// for a retry: it is pending, running, or done.
var ErrNotDead = errors.New("the task is neither archived nor waiting for a retry")

// ErrNoSuchTask is a task id no queue holds.
var ErrNoSuchTask = errors.New("no queue holds a task with this id")

// RunAgain moves an archived task (or one waiting for a retry) to pending,
// so a worker runs it as soon as one is free, and says what it was.
func (q *Queue) RunAgain(id string) (DeadTask, error) {
	counts, err := q.Counts()
	if err != nil {
		return DeadTask{}, err
	}
	for _, c := range counts {
		info, err := q.inspector.GetTaskInfo(c.Queue, id)
		if errors.Is(err, asynq.ErrTaskNotFound) || errors.Is(err, asynq.ErrQueueNotFound) {
			continue
		}
		if err != nil {
			return DeadTask{}, fmt.Errorf("tasks: unable to read task %s: %w", id, err)
		}
		t := deadTask(info)
		if info.State != asynq.TaskStateArchived && info.State != asynq.TaskStateRetry {
			return t, fmt.Errorf("tasks: task %s is %s: %w", id, t.State, ErrNotDead)
		}
		if err := q.inspector.RunTask(c.Queue, id); err != nil {
			return t, fmt.Errorf("tasks: unable to run task %s again: %w", id, err)
		}
		return t, nil
	}
	return DeadTask{}, fmt.Errorf("tasks: %s: %w", id, ErrNoSuchTask)
}

func deadTask(info *asynq.TaskInfo) DeadTask {
	// Every Folio payload that concerns a job names it as jobId.
	var p struct {
		JobID string `json:"jobId"`
	}
	_ = json.Unmarshal(info.Payload, &p) // a payload that names no job leaves JobID empty, which the list shows as such
	return DeadTask{ID: info.ID, Queue: info.Queue, Type: info.Type, JobID: p.JobID, LastErr: info.LastErr,
		LastFailedAt: info.LastFailedAt, Retried: info.Retried, State: info.State.String()}
}
