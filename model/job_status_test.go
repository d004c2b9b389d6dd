package model

import (
	"errors"
	"reflect"
	"testing"
	"time"
)

// Every question, with the statuses that answer yes; the others answer no.
func TestJobStatusQuestions(t *testing.T) {
	tests := []struct {
		name     string
		question func(JobStatus) bool
		yes      []JobStatus
	}{
		{"Valid: the contract's four", JobStatus.Valid, []JobStatus{JobActive, JobCompleted, JobFailed, JobArchived}},
		{"IsActive: the agent is working", JobStatus.IsActive, []JobStatus{JobActive}},
		{"IsDone: the turn ended and the job is not put away", JobStatus.IsDone, []JobStatus{JobCompleted, JobFailed}},
		{"IsFailed", JobStatus.IsFailed, []JobStatus{JobFailed}},
		{"IsArchived", JobStatus.IsArchived, []JobStatus{JobArchived}},
		{"CanFollowUp: all but archived", JobStatus.CanFollowUp, []JobStatus{JobActive, JobCompleted, JobFailed}},
		{"CanCancel: only active", JobStatus.CanCancel, []JobStatus{JobActive}},
		{"CanArchive: all but archived", JobStatus.CanArchive, []JobStatus{JobActive, JobCompleted, JobFailed}},
		{"CanMerge: a turn ended, not archived", JobStatus.CanMerge, []JobStatus{JobCompleted, JobFailed}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, s := range JobStatuses() {
				if got, want := tt.question(s), s.In(tt.yes...); got != want {
					t.Errorf("%s: got %v, want %v", s, got, want)
				}
			}
		})
	}
}

func TestJobStatusValid(t *testing.T) {
	for _, s := range []JobStatus{"", "paused", "Active"} {
		if s.Valid() {
			t.Errorf("%q is valid, want not: the contract has no such status", s)
		}
	}
}

func TestJobStatusIn(t *testing.T) {
	if !JobFailed.In(JobCompleted, JobFailed) || JobActive.In(JobCompleted, JobFailed) || JobActive.In() {
		t.Error("In does not say whether the status is one of those given")
	}
}

// Every transition of a status: the status it leads to, or why not.
func TestJobStatusTransitions(t *testing.T) {
	followUp := JobStatus.FollowUp
	cancel := JobStatus.Cancel
	fail := JobStatus.Fail
	archive := JobStatus.Archive
	merge := JobStatus.Merge
	endTurn := func(waiting bool) func(JobStatus) (JobStatus, error) {
		return func(s JobStatus) (JobStatus, error) { return s.EndTurn(waiting) }
	}
	tests := []struct {
		name       string
		transition func(JobStatus) (JobStatus, error)
		from, want JobStatus
		err        error
	}{
		{"a follow-up keeps an active job active", followUp, JobActive, JobActive, nil},
		{"a follow-up makes a completed job active", followUp, JobCompleted, JobActive, nil},
		{"a follow-up makes a failed job active", followUp, JobFailed, JobActive, nil},
		{"an archived job takes no follow-up", followUp, JobArchived, JobArchived, ErrJobArchived},
		{"a cancel fails an active job", cancel, JobActive, JobFailed, nil},
		{"a completed job is not cancelled", cancel, JobCompleted, JobCompleted, ErrJobNotActive},
		{"a failed job is not cancelled", cancel, JobFailed, JobFailed, ErrJobNotActive},
		{"an archived job is not cancelled", cancel, JobArchived, JobArchived, ErrJobArchived},
		{"a run's failure fails an active job", fail, JobActive, JobFailed, nil},
		{"a completed job has no run to fail", fail, JobCompleted, JobCompleted, ErrJobNotActive},
		{"an archived job has no run to fail", fail, JobArchived, JobArchived, ErrJobArchived},
		{"an active job is archived", archive, JobActive, JobArchived, nil},
		{"a completed job is archived", archive, JobCompleted, JobArchived, nil},
		{"a failed job is archived", archive, JobFailed, JobArchived, nil},
		{"an archived job is not archived again", archive, JobArchived, JobArchived, ErrJobArchived},
		{"a merge archives a completed job", merge, JobCompleted, JobArchived, nil},
		{"a merge archives a failed job", merge, JobFailed, JobArchived, nil},
		{"an active job's branch is busy", merge, JobActive, JobActive, ErrJobBusy},
		{"an archived job is not merged", merge, JobArchived, JobArchived, ErrJobArchived},
		{"a turn that ends with nothing waiting completes the job", endTurn(false), JobActive, JobCompleted, nil},
		{"a turn that ends with follow-ups waiting keeps the job active", endTurn(true), JobActive, JobActive, nil},
		{"a completed job has no turn to end", endTurn(false), JobCompleted, JobCompleted, ErrJobNotActive},
		{"an archived job has no turn to end", endTurn(true), JobArchived, JobArchived, ErrJobArchived},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.transition(tt.from)
			if got != tt.want || !errors.Is(err, tt.err) || (tt.err == nil) != (err == nil) {
				t.Errorf("from %s: got %s, %v; want %s, %v", tt.from, got, err, tt.want, tt.err)
			}
		})
	}
}

// The sentinels' messages are what callers logged before they lived here.
func TestJobErrorMessages(t *testing.T) {
	for err, want := range map[error]string{
		ErrJobArchived:  "job is archived",
		ErrJobNotActive: "job is not active",
		ErrJobBusy:      "the agent is still working on the job's branch",
	} {
		if err.Error() != want {
			t.Errorf("error %q, want %q", err, want)
		}
	}
}

func TestJobNoChanges(t *testing.T) {
	merged := time.Now()
	tests := []struct {
		name string
		job  Job
		want bool
	}{
		{"completed without a pull request", Job{Status: JobCompleted}, true},
		{"completed with a pull request", Job{Status: JobCompleted, PRLink: "https://pr/1"}, false},
		{"completed and merged", Job{Status: JobCompleted, MergedAt: &merged}, false},
		{"still active", Job{Status: JobActive}, false},
		{"failed", Job{Status: JobFailed}, false},
		{"archived", Job{Status: JobArchived}, false},
	}
	for _, tt := range tests {
		if got := tt.job.NoChanges(); got != tt.want {
			t.Errorf("%s: NoChanges() = %v, want %v", tt.name, got, tt.want)
		}
	}
}

// Every transition of a job: the job it leaves, or why it is refused (and
// then the job unchanged).
func TestJobTransitions(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	t1 := t0.Add(time.Minute)
	until := t1.Add(15 * time.Second)
	past, later := t1.Add(-time.Second), t1.Add(time.Second)
	summary := "Done."
	merged := t0

	// running is an active job on turn 2, recovery 1, whose run attempt
	// "a" holds until later.
	running := Job{ID: "j", Status: JobActive, Turn: 2, Recovery: 1, Attempts: 3, LeaseOwner: "a", LeaseUntil: &later, UpdatedAt: t0, PRLink: "https://pr/1"}
	with := func(j Job, change func(*Job)) Job {
		change(&j)
		return j
	}
	completed := with(running, func(j *Job) { j.Status, j.LeaseOwner, j.LeaseUntil = JobCompleted, "", nil })
	failed := with(completed, func(j *Job) { j.Status, j.ErrorCode, j.ErrorMessage = JobFailed, "timeout", "Too slow." })
	archived := with(completed, func(j *Job) { j.Status, j.ArchivedAt = JobArchived, &t0 })
	unleased := with(running, func(j *Job) { j.LeaseOwner, j.LeaseUntil = "", nil })
	expired := with(running, func(j *Job) { j.LeaseUntil = &past })

	type result struct {
		job  Job
		flag bool // started, archived or next, for the transitions that say
	}
	followUp := func(j Job) (result, error) { n, started, err := j.FollowUp(t1); return result{n, started}, err }
	archive := func(j Job) (result, error) { n, err := j.Archive(t1); return result{job: n}, err }
	recordMerge := func(j Job) (result, error) {
		n, archived, err := j.RecordMerge("c0ffee", t1)
		return result{n, archived}, err
	}
	fail := func(owner string) func(Job) (result, error) {
		return func(j Job) (result, error) {
			n, err := j.Fail(owner, "canceled", "Stopped.", t1)
			return result{job: n}, err
		}
	}
	claim := func(turn, recovery int) func(Job) (result, error) {
		return func(j Job) (result, error) {
			n, err := j.Claim(turn, recovery, "b", until, t1)
			return result{job: n}, err
		}
	}
	extend := func(owner string) func(Job) (result, error) {
		return func(j Job) (result, error) { n, err := j.ExtendLease(owner, until); return result{job: n}, err }
	}
	release := func(owner string) func(Job) (result, error) {
		return func(j Job) (result, error) { n, err := j.Release(owner); return result{job: n}, err }
	}
	recover := func(turn, recovery int) func(Job) (result, error) {
		return func(j Job) (result, error) { n, err := j.Recover(turn, recovery, t1); return result{job: n}, err }
	}
	endTurn := func(owner string, out TurnOutcome, waiting bool) func(Job) (result, error) {
		return func(j Job) (result, error) {
			n, next, err := j.EndTurn(owner, out, waiting, t1)
			return result{n, next}, err
		}
	}
	done := TurnOutcome{Summary: summary, Problems: `[{"path":"a.mdx"}]`}

	tests := []struct {
		name       string
		transition func(Job) (result, error)
		from       Job
		want       result // the job after, when err is nil
		err        error
	}{
		{"a follow-up on a completed job starts the next turn", followUp, completed,
			result{with(completed, func(j *Job) { j.Status, j.Turn, j.Recovery, j.Attempts, j.UpdatedAt = JobActive, 3, 0, 0, t1 }), true}, nil},
		{"a follow-up on a failed job starts the next turn without the error", followUp, failed,
			result{with(completed, func(j *Job) { j.Status, j.Turn, j.Recovery, j.Attempts, j.UpdatedAt = JobActive, 3, 0, 0, t1 }), true}, nil},
		{"a follow-up on an active job waits: the job is unchanged", followUp, running, result{running, false}, nil},
		{"a follow-up on an archived job is refused", followUp, archived, result{}, ErrJobArchived},

		{"an archive stops the run and frees its lease", archive, running,
			result{job: with(running, func(j *Job) {
				j.Status, j.ArchivedAt, j.UpdatedAt, j.LeaseOwner, j.LeaseUntil = JobArchived, &t1, t1, "", nil
			})}, nil},
		{"an archive puts a failed job away", archive, failed,
			result{job: with(failed, func(j *Job) { j.Status, j.ArchivedAt, j.UpdatedAt = JobArchived, &t1, t1 })}, nil},
		{"an archived job is not archived again", archive, archived, result{}, ErrJobArchived},

		{"a merge archives a completed job", recordMerge, completed,
			result{with(completed, func(j *Job) {
				j.Status, j.ArchivedAt, j.UpdatedAt, j.MergedAt, j.MergeCommit = JobArchived, &t1, t1, &t1, "c0ffee"
			}), true}, nil},
		{"a merge archives an active job (GitHub merged its pull request)", recordMerge, running,
			result{with(running, func(j *Job) {
				j.Status, j.ArchivedAt, j.UpdatedAt, j.MergedAt, j.MergeCommit, j.LeaseOwner, j.LeaseUntil = JobArchived, &t1, t1, &t1, "c0ffee", "", nil
			}), true}, nil},
		{"a merge of an archived job keeps its archivedAt", recordMerge, archived,
			result{with(archived, func(j *Job) { j.UpdatedAt, j.MergedAt, j.MergeCommit = t1, &t1, "c0ffee" }), false}, nil},
		{"a merge is recorded once", recordMerge, with(archived, func(j *Job) { j.MergedAt = &merged }), result{}, ErrJobArchived},

		{"a cancel fails an active job and frees its lease", fail(""), running,
			result{job: with(running, func(j *Job) {
				j.Status, j.ErrorCode, j.ErrorMessage, j.UpdatedAt, j.LeaseOwner, j.LeaseUntil = JobFailed, "canceled", "Stopped.", t1, "", nil
			})}, nil},
		{"the run's owner fails it", fail("a"), running,
			result{job: with(running, func(j *Job) {
				j.Status, j.ErrorCode, j.ErrorMessage, j.UpdatedAt, j.LeaseOwner, j.LeaseUntil = JobFailed, "canceled", "Stopped.", t1, "", nil
			})}, nil},
		{"another attempt does not fail the run", fail("b"), running, result{}, ErrJobRunLost},
		{"a completed job is not failed", fail(""), completed, result{}, ErrJobNotActive},
		{"an archived job is not failed", fail(""), archived, result{}, ErrJobArchived},

		{"a free run is claimed and the attempt counted", claim(2, 1), unleased,
			result{job: with(running, func(j *Job) { j.LeaseOwner, j.LeaseUntil, j.Attempts, j.UpdatedAt = "b", &until, 4, t1 })}, nil},
		{"a run whose lease ran out is claimed", claim(2, 1), expired,
			result{job: with(running, func(j *Job) { j.LeaseOwner, j.LeaseUntil, j.Attempts, j.UpdatedAt = "b", &until, 4, t1 })}, nil},
		{"a run under a live lease is not claimed", claim(2, 1), running, result{}, ErrJobRunLost},
		{"a lease that ends at this very moment is still live", claim(2, 1), with(running, func(j *Job) { j.LeaseUntil = &t1 }), result{}, ErrJobRunLost},
		{"another turn's run is not claimed", claim(1, 1), unleased, result{}, ErrJobRunLost},
		{"another recovery's run is not claimed", claim(2, 0), unleased, result{}, ErrJobRunLost},
		{"a completed job's run is not claimed", claim(2, 1), completed, result{}, ErrJobNotActive},
		{"an archived job's run is not claimed", claim(2, 1), archived, result{}, ErrJobArchived},

		{"the owner extends its lease", extend("a"), running, result{job: with(running, func(j *Job) { j.LeaseUntil = &until })}, nil},
		{"another attempt does not extend the lease", extend("b"), running, result{}, ErrJobRunLost},
		{"a failed job's lease is not extended", extend("a"), with(failed, func(j *Job) { j.LeaseOwner = "a" }), result{}, ErrJobNotActive},
		{"an archived job's lease is not extended", extend("a"), with(archived, func(j *Job) { j.LeaseOwner = "a" }), result{}, ErrJobArchived},

		{"the owner releases its run", release("a"), running, result{job: unleased}, nil},
		{"another attempt does not release the run", release("b"), running, result{}, ErrJobRunLost},
		{"a completed job has no run to release", release(""), completed, result{}, ErrJobNotActive},

		{"a lost run is recovered on the same turn", recover(2, 1), expired,
			result{job: with(unleased, func(j *Job) { j.Recovery, j.UpdatedAt = 2, t1 })}, nil},
		{"a job that moved to another turn is not recovered", recover(1, 1), expired, result{}, ErrJobRunLost},
		{"a job already recovered is not recovered again", recover(2, 0), expired, result{}, ErrJobRunLost},
		{"a failed job is not recovered", recover(2, 1), failed, result{}, ErrJobNotActive},
		{"an archived job is not recovered", recover(2, 1), archived, result{}, ErrJobArchived},

		{"a turn that ends with nothing waiting completes the job", endTurn("a", done, false), running,
			result{with(completed, func(j *Job) { j.UpdatedAt, j.Summary, j.Problems = t1, &summary, done.Problems }), false}, nil},
		{"a turn that ends with follow-ups waiting starts the next", endTurn("a", done, true), running,
			result{with(unleased, func(j *Job) {
				j.Turn, j.Recovery, j.Attempts, j.UpdatedAt, j.Summary, j.Problems = 3, 0, 0, t1, &summary, done.Problems
			}), true}, nil},
		{"a turn's pull request link replaces the stored one", endTurn("a", TurnOutcome{PRLink: "https://pr/2", Summary: summary}, false), running,
			result{with(completed, func(j *Job) { j.PRLink, j.UpdatedAt, j.Summary, j.Problems = "https://pr/2", t1, &summary, "[]" }), false}, nil},
		{"a turn with no link keeps the stored one, and no problems are []", endTurn("a", TurnOutcome{Summary: summary}, false), running,
			result{with(completed, func(j *Job) { j.UpdatedAt, j.Summary, j.Problems = t1, &summary, "[]" }), false}, nil},
		{"another attempt's turn does not end the job's", endTurn("b", done, false), running, result{}, ErrJobRunLost},
		{"an unclaimed job's turn is not ended by an attempt", endTurn("a", done, false), unleased, result{}, ErrJobRunLost},
		{"a cancelled job's turn does not end", endTurn("a", done, false), with(failed, func(j *Job) { j.LeaseOwner = "a" }), result{}, ErrJobNotActive},
		{"an archived job's turn does not end", endTurn("a", done, false), with(archived, func(j *Job) { j.LeaseOwner = "a" }), result{}, ErrJobArchived},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := tt.from
			got, err := tt.transition(tt.from)
			if tt.err != nil {
				if !errors.Is(err, tt.err) {
					t.Fatalf("err = %v, want %v", err, tt.err)
				}
				if !reflect.DeepEqual(got.job, before) || got.flag {
					t.Fatalf("a refused transition changed the job:\n got %+v\nwant %+v", got.job, before)
				}
				return
			}
			if err != nil {
				t.Fatalf("err = %v, want none", err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got  %+v\nwant %+v", got, tt.want)
			}
			if !reflect.DeepEqual(tt.from, before) {
				t.Errorf("the transition changed the job it was asked of")
			}
		})
	}
}
