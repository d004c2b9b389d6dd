package model

import (
	"time"
)

// Job is an agent job. It works in turns: Turn is the turn being worked on
// (or the last one); Recovery and Attempts count re-enqueues and starts of
// that turn; LeaseOwner holds the attempt running it until LeaseUntil.
type Job struct {
	ID           string
	ProjectID    string
	Status       JobStatus
	Repository   string
	Ref          string
	Model        string
	Branch       string
	PRLink       string
	ErrorCode    string
	ErrorMessage string
	Turn         int
	Recovery     int
	Attempts     int
	LeaseOwner   string
	LeaseUntil   *time.Time
	CreatedAt    time.Time
	UpdatedAt    time.Time
	ArchivedAt   *time.Time
	Steps        int   // model calls of all runs
	Tokens       int64 // tokens of all runs: InputTokens + OutputTokens
	// InputTokens and OutputTokens split Tokens; CachedTokens (read from
	// the provider's prompt cache) and CacheWriteTokens (written to it) are
	// part of InputTokens. Jobs run before they were counted have them 0.
	InputTokens      int64
	OutputTokens     int64
	CachedTokens     int64
	CacheWriteTokens int64
	// CostMicros is what the runs cost, in millionths of a US dollar; nil
	// once a run's cost could not be known (no price for its model).
	CostMicros *int64
	// Summary is the agent's final answer of the latest finished turn (nil
	// before one ends); Problems the JSON array of what the checks still
	// found then ("[]" when clean).
	Summary     *string
	Problems    string
	MergedAt    *time.Time // when the job's branch was merged, by Folio or its pull request on GitHub
	MergeCommit string     // the merge's commit: the ref's head after it
	// StatusChanges counts the job's status changes: the sequence of its
	// latest webhook event.
	StatusChanges int
}

// JobMessage is one stored message of a job's conversation. ToolCalls is
// the JSON array the agent produced. Attempt is empty for prompts.
type JobMessage struct {
	ID         int64
	JobID      string
	Turn       int
	Attempt    string
	Role       string
	Content    string
	ToolCalls  string
	ToolCallID string
	ToolName   string
	IsError    bool
	Kept       bool // part of the history the agent continues from
	Dropped    bool // a follow-up dropped by a cancel or failure
	// Usage is, for an agent's reply, the JSON of what its model call used
	// (agent.Usage); "" otherwise.
	Usage     string
	CreatedAt time.Time
}

// RunUsage is what one run (an attempt of a turn) used of the model, added
// to its job's totals.
type RunUsage struct {
	Steps                                     int
	Tokens, Input, Output, Cached, CacheWrite int64
	CostMicros                                *int64 // nil: the run's cost is not known
}
