package model

import (
	"errors"
	"slices"
	"time"
)

// JobStatus is where a job stands (CONTRACT §2): active while a turn is
// under way or waits for a worker, completed or failed once its latest
// turn ended, archived once put away for good. Its questions and
// transitions, and Job's below, are the job's state machine: db applies
// what they decide and decides nothing itself.
type JobStatus string

// Job statuses (CONTRACT §2).
const (
	JobActive    JobStatus = "active"
	JobCompleted JobStatus = "completed"
	JobFailed    JobStatus = "failed"
	JobArchived  JobStatus = "archived"
)

// Why a job refused a transition. Handlers answer them in the contract's
// words; the messages are for logs.
var (
	ErrJobArchived  = errors.New("job is archived")
	ErrJobNotActive = errors.New("job is not active")
	ErrJobBusy      = errors.New("the agent is still working on the job's branch")
	// ErrJobRunLost refuses an attempt a run that is not, or no longer,
	// its own: the job moved to another turn or recovery, or another
	// attempt holds the lease.
	ErrJobRunLost = errors.New("the job's run is not this attempt's")
)

// JobStatuses lists every status in the contract's order.
func JobStatuses() []JobStatus { return []JobStatus{JobActive, JobCompleted, JobFailed, JobArchived} }

func (s JobStatus) String() string { return string(s) }

// Valid reports whether s is one of the contract's statuses.
func (s JobStatus) Valid() bool { return s.In(JobStatuses()...) }

// In reports whether s is one of statuses.
func (s JobStatus) In(statuses ...JobStatus) bool { return slices.Contains(statuses, s) }

// IsActive reports whether the agent is working on the job: a turn is
// under way or waits for a worker.
func (s JobStatus) IsActive() bool { return s == JobActive }

// IsDone reports whether the job's latest turn ended, completed or
// failed, and it is not archived: it waits for a follow-up, a merge or an
// archive.
func (s JobStatus) IsDone() bool { return s.In(JobCompleted, JobFailed) }

// IsFailed reports whether the job's latest turn failed (or was cancelled).
func (s JobStatus) IsFailed() bool { return s == JobFailed }

// IsArchived reports whether the job was put away: it takes nothing more.
func (s JobStatus) IsArchived() bool { return s == JobArchived }

// CanFollowUp reports whether the job takes a follow-up prompt.
func (s JobStatus) CanFollowUp() bool { _, err := s.FollowUp(); return err == nil }

// CanCancel reports whether the job can be cancelled.
func (s JobStatus) CanCancel() bool { _, err := s.Cancel(); return err == nil }

// CanArchive reports whether the job can be archived.
func (s JobStatus) CanArchive() bool { _, err := s.Archive(); return err == nil }

// CanMerge reports whether the job's branch may be merged into its ref.
func (s JobStatus) CanMerge() bool { _, err := s.Merge(); return err == nil }

// FollowUp is the status after a follow-up prompt: active, whether the
// prompt starts a turn or waits for the one under way to end. An archived
// job takes none.
func (s JobStatus) FollowUp() (JobStatus, error) {
	if s == JobArchived {
		return s, ErrJobArchived
	}
	return JobActive, nil
}

// Cancel is the status after a cancel: an active job fails. Only an active
// job can be cancelled.
func (s JobStatus) Cancel() (JobStatus, error) { return s.Fail() }

// Fail is the status after the job's run fails or is cancelled: failed.
// Only an active job has a run to fail.
func (s JobStatus) Fail() (JobStatus, error) {
	if err := s.running(); err != nil {
		return s, err
	}
	return JobFailed, nil
}

// Archive is the status after an archive: archived, from any other status.
func (s JobStatus) Archive() (JobStatus, error) {
	if s == JobArchived {
		return s, ErrJobArchived
	}
	return JobArchived, nil
}

// Merge is the status after Folio merges the job's branch: archived. Only
// a job whose turn ended is merged: an active job's branch is still being
// written (ErrJobBusy).
func (s JobStatus) Merge() (JobStatus, error) {
	switch s {
	case JobArchived:
		return s, ErrJobArchived
	case JobActive:
		return s, ErrJobBusy
	}
	return JobArchived, nil
}

// EndTurn is the status after an active job's turn ends well: still
// active when follow-ups wait for the next turn, completed otherwise.
func (s JobStatus) EndTurn(waiting bool) (JobStatus, error) {
	if err := s.running(); err != nil {
		return s, err
	}
	if waiting {
		return JobActive, nil
	}
	return JobCompleted, nil
}

// running is nil if the job has a run (it is active), or why not.
func (s JobStatus) running() error {
	switch s {
	case JobActive:
		return nil
	case JobArchived:
		return ErrJobArchived
	}
	return ErrJobNotActive
}

// NoChanges reports whether the job finished its turn without changing a
// file: it is completed and has no pull request and no merge.
func (j Job) NoChanges() bool {
	return j.Status == JobCompleted && j.PRLink == "" && j.MergedAt == nil
}

// TurnOutcome is what a finished turn leaves on its job: the pull request
// link (empty keeps the one stored), the agent's final answer and the
// problems the checks still found (a JSON array).
type TurnOutcome struct {
	PRLink   string
	Summary  string
	Problems string
}

// The transitions of a job below return the job as it is after the change
// at t, or why it is refused; j itself is not changed.

// FollowUp takes a follow-up prompt at t. On a completed or failed job it
// starts the next turn (started), with the error and any lease cleared;
// an active job is left as it is, its prompt waiting for the turn after
// the current one.
func (j Job) FollowUp(t time.Time) (next Job, started bool, err error) {
	status, err := j.Status.FollowUp()
	if err != nil || j.Status.IsActive() {
		return j, false, err
	}
	j.Status, j.Turn, j.Recovery, j.Attempts, j.ErrorCode, j.ErrorMessage = status, j.Turn+1, 0, 0, "", ""
	j.LeaseOwner, j.LeaseUntil, j.UpdatedAt = "", nil, t
	return j, true, nil
}

// Archive puts the job away at t; a run under way loses its lease.
func (j Job) Archive(t time.Time) (Job, error) {
	status, err := j.Status.Archive()
	if err != nil {
		return j, err
	}
	j.Status, j.ArchivedAt, j.UpdatedAt, j.LeaseOwner, j.LeaseUntil = status, &t, t, "", nil
	return j, nil
}

// RecordMerge records at t that the job's branch was merged with commit —
// by Folio, or its pull request on GitHub — and archives the job as
// Archive does, whatever its state: archived says whether this archived
// it. A job archived before keeps its archivedAt (its pull request was
// merged after it was put away). A merge is recorded once: again is
// ErrJobArchived.
func (j Job) RecordMerge(commit string, t time.Time) (next Job, archived bool, err error) {
	if j.MergedAt != nil {
		return j, false, ErrJobArchived
	}
	if !j.Status.IsArchived() {
		if j, err = j.Archive(t); err != nil {
			return j, false, err
		}
		archived = true
	}
	j.UpdatedAt, j.MergedAt, j.MergeCommit = t, &t, commit
	return j, archived, nil
}

// Fail fails the job's run at t with code and message, freeing its lease:
// the run of owner, or ("" ) whoever runs it, for a cancel or the sweep.
func (j Job) Fail(owner, code, message string, t time.Time) (Job, error) {
	status, err := j.Status.Fail()
	if err != nil {
		return j, err
	}
	if owner != "" && j.LeaseOwner != owner {
		return j, ErrJobRunLost
	}
	j.Status, j.ErrorCode, j.ErrorMessage, j.UpdatedAt, j.LeaseOwner, j.LeaseUntil = status, code, message, t, "", nil
	return j, nil
}

// Claim gives attempt owner the run of the job's turn and recovery until
// `until`, at t, and counts the attempt. Only an active job on that turn
// and recovery whose lease is free or ran out is claimed, so a job runs at
// most once at a time on any number of workers.
func (j Job) Claim(turn, recovery int, owner string, until, t time.Time) (Job, error) {
	if err := j.Status.running(); err != nil {
		return j, err
	}
	if j.Turn != turn || j.Recovery != recovery || (j.LeaseOwner != "" && j.LeaseUntil != nil && !j.LeaseUntil.Before(t)) {
		return j, ErrJobRunLost
	}
	j.LeaseOwner, j.LeaseUntil, j.Attempts, j.UpdatedAt = owner, &until, j.Attempts+1, t
	return j, nil
}

// ExtendLease keeps owner's run alive until `until`.
func (j Job) ExtendLease(owner string, until time.Time) (Job, error) {
	if err := j.heldBy(owner); err != nil {
		return j, err
	}
	j.LeaseUntil = &until
	return j, nil
}

// Release gives up owner's run after a transient failure, so a retry can
// claim the turn.
func (j Job) Release(owner string) (Job, error) {
	if err := j.heldBy(owner); err != nil {
		return j, err
	}
	j.LeaseOwner, j.LeaseUntil = "", nil
	return j, nil
}

// Recover moves an active job whose run of turn and recovery was lost
// (its worker died or its task vanished) to a new recovery of the same
// turn at t, freeing its lease. A job that moved on is ErrJobRunLost: only
// one caller recovers a given (turn, recovery).
func (j Job) Recover(turn, recovery int, t time.Time) (Job, error) {
	if err := j.Status.running(); err != nil {
		return j, err
	}
	if j.Turn != turn || j.Recovery != recovery {
		return j, ErrJobRunLost
	}
	j.Recovery, j.LeaseOwner, j.LeaseUntil, j.UpdatedAt = j.Recovery+1, "", nil, t
	return j, nil
}

// EndTurn ends owner's successful turn at t with what it left: the pull
// request link if given (a link is never cleared), the agent's answer and
// the problems ("[]" when none). The job starts its next turn when
// follow-ups are waiting (next), or becomes completed.
func (j Job) EndTurn(owner string, out TurnOutcome, waiting bool, t time.Time) (job Job, next bool, err error) {
	if err := j.heldBy(owner); err != nil {
		return j, false, err
	}
	status, err := j.Status.EndTurn(waiting)
	if err != nil {
		return j, false, err
	}
	if out.PRLink != "" {
		j.PRLink = out.PRLink
	}
	if out.Problems == "" {
		out.Problems = "[]"
	}
	j.Status, j.Summary, j.Problems = status, &out.Summary, out.Problems
	j.UpdatedAt, j.LeaseOwner, j.LeaseUntil = t, "", nil
	if waiting {
		j.Turn, j.Recovery, j.Attempts = j.Turn+1, 0, 0
	}
	return j, waiting, nil
}

// heldBy is nil if attempt owner holds the job's run, or why not.
func (j Job) heldBy(owner string) error {
	if err := j.Status.running(); err != nil {
		return err
	}
	if j.LeaseOwner != owner {
		return ErrJobRunLost
	}
	return nil
}
