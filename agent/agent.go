// Package agent runs an agent job's turn: the model's tool-calling loop over
// a git checkout of the project's repository, then the commit, the push and
// the pull request. The jobs queue (package tasks) calls it through Runner.
package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/folio-docs/folio/doccheck"
	"github.com/folio-docs/folio/model"
)

// Roles of a conversation message.
const (
	RoleUser      = "user"
	RoleAssistant = "assistant"
	RoleTool      = "tool"
)

// Message is one entry of a job's conversation, in order: a prompt, a model
// reply (text and/or tool calls), or a tool's result.
type Message struct {
	Role       string     `json:"role"`
	Content    string     `json:"content"`
	ToolCalls  []ToolCall `json:"toolCalls,omitempty"`
	ToolCallID string     `json:"toolCallId,omitempty"` // for RoleTool: the call answered
	ToolName   string     `json:"toolName,omitempty"`   // for RoleTool
	IsError    bool       `json:"isError,omitempty"`    // for RoleTool: the tool refused or failed
	// Usage is, for RoleAssistant, what the model call that produced the
	// message used: its Input is the size of that request.
	Usage     *Usage    `json:"usage,omitempty"`
	CreatedAt time.Time `json:"createdAt"`
}

// Usage counts the tokens of model calls. Input is every prompt token,
// those the provider read from its prompt cache (Cached) and wrote to it
// (CacheWrite) included; Output the completion's.
type Usage struct {
	Input      int64 `json:"inputTokens"`
	Cached     int64 `json:"cachedTokens"`
	CacheWrite int64 `json:"cacheWriteTokens"`
	Output     int64 `json:"outputTokens"`
}

// ToolCall is the model asking for one tool to run.
type ToolCall struct {
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

// Run is one turn of a job: everything the agent needs to continue it.
type Run struct {
	JobID   string
	Project model.Project
	Model   string // resolved: the project's model, or the configured default
	Branch  string // folio/<job id>
	PRLink  string // the job's pull request, if one exists already
	// History is the conversation so far, oldest first, ending with the
	// prompt(s) this turn answers. It holds no messages of failed attempts.
	History []Message
	// TokensUsed is what the job's earlier runs used (all turns and
	// attempts), counted against Config.JobMaxTokens.
	TokensUsed int64
	// LastAttempt: no retry follows if this run fails, so a failure of the
	// model provider ends it with its work kept (a draft pull request).
	LastAttempt bool
	// Deadline, if set, is when the run's time limit (TimeLimit, as the job
	// names it) runs out: the agent stops calling the model then and keeps
	// its work as a draft pull request, within the WrapUpTime the caller's
	// context leaves it after Deadline.
	Deadline  time.Time
	TimeLimit time.Duration
}

// WrapUpTime is how long a run stopped at its Deadline may take to commit,
// push and open its pull request: the caller's context must outlive the
// Deadline by that much.
const WrapUpTime = time.Minute

// Result is what a finished turn leaves behind.
type Result struct {
	PRLink  string // the pull request after this turn; empty if none exists
	Changed bool   // this turn committed changes
	Steps   int    // model calls made
	Tokens  int64  // tokens used (prompt + completion)
	// Usage splits Tokens; LargestRequest is the largest Input of one call.
	Usage          Usage
	LargestRequest int64
	// CostMicros is what the run cost in millionths of a US dollar, at the
	// model's configured price; nil when the model has none.
	CostMicros *int64
	// Summary is the agent's final answer of this turn; Problems what the
	// checks still found in the branch when the turn ended ([] when clean).
	Summary  string
	Problems []doccheck.Problem
}

// Recorder stores a new message of the conversation as soon as it exists,
// so a crash loses nothing already said.
type Recorder func(ctx context.Context, m Message) error

// Runner runs one turn of a job. It must honour ctx (timeout and cancel),
// and Run.Deadline if it can keep its work when time runs out.
// An error that is an *Error with Permanent set fails the job; any other
// error is transient and the turn may be retried from History.
type Runner interface {
	Run(ctx context.Context, run Run, record Recorder) (Result, error)
}

// Error is a failure with a stable code for the job's error.code.
type Error struct {
	Code      string // e.g. model_error, repository_error, config_missing, budget_exceeded
	Message   string // one human sentence, no secrets
	Permanent bool
	Err       error
}

func (e *Error) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("%s: %s: %v", e.Code, e.Message, e.Err)
	}
	return e.Code + ": " + e.Message
}

func (e *Error) Unwrap() error { return e.Err }

// IsPermanent reports whether err should fail the job rather than be retried.
func IsPermanent(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.Permanent
}

// addUsage counts a model call's tokens.
func (r *Result) addUsage(reply modelReply) {
	r.Tokens += reply.Tokens
	r.Usage.Input += reply.Input
	r.Usage.Cached += reply.Cached
	r.Usage.CacheWrite += reply.CacheWrite
	r.Usage.Output += reply.Output
	r.LargestRequest = max(r.LargestRequest, reply.Input)
}
