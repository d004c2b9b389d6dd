package jobs

import (
	"encoding/json"
	"time"

	"github.com/folio-docs/folio/db"
)

// Job is a job as the API and webhooks show it: the seed's fields, with
// prLink and archivedAt null when empty (and prLink null while active),
// plus updatedAt, branch, usage and error.
type Job struct {
	ID         string     `json:"id"`
	Status     string     `json:"status"`
	Source     Source     `json:"source"`
	Model      string     `json:"model"`
	PRLink     *string    `json:"prLink"`
	CreatedAt  time.Time  `json:"createdAt"`
	ArchivedAt *time.Time `json:"archivedAt"`
	UpdatedAt  time.Time  `json:"updatedAt"`
	Branch     string     `json:"branch"`
	Usage      Usage      `json:"usage"`
	Error      *JobError  `json:"error,omitempty"`
}

// Usage is what a job's runs have used of the model, over all its turns.
type Usage struct {
	Steps  int   `json:"steps"`  // model calls
	Tokens int64 `json:"tokens"` // prompt and completion tokens
}

// Source is the repository and ref a job works on.
type Source struct {
	Repository string `json:"repository"`
	Ref        string `json:"ref"`
}

// JobError is why a job failed.
type JobError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// View shows a stored job.
func View(j db.Job) Job {
	v := Job{
		ID: j.ID, Status: j.Status, Source: Source{j.Repository, j.Ref}, Model: j.Model,
		CreatedAt: j.CreatedAt.UTC(), ArchivedAt: j.ArchivedAt, UpdatedAt: j.UpdatedAt.UTC(), Branch: j.Branch,
		Usage: Usage{Steps: j.Steps, Tokens: j.Tokens},
	}
	// The seed: prLink is null while the job is active. The stored link is
	// never cleared, so it shows again once a follow-up's turn ends.
	if j.PRLink != "" && j.Status != db.JobActive {
		v.PRLink = &j.PRLink
	}
	if j.Status == db.JobFailed && j.ErrorCode != "" {
		v.Error = &JobError{j.ErrorCode, j.ErrorMessage}
	}
	return v
}

// Message is one entry of a job's conversation as the API shows it.
type Message struct {
	Turn       int             `json:"turn"`
	Role       string          `json:"role"`
	Content    string          `json:"content"`
	ToolCalls  json.RawMessage `json:"toolCalls,omitempty"`
	ToolCallID string          `json:"toolCallId,omitempty"`
	ToolName   string          `json:"toolName,omitempty"`
	IsError    bool            `json:"isError,omitempty"`
	// Discarded marks what a failed attempt said: kept for the record, but
	// not part of the history the agent continues from.
	Discarded bool `json:"discarded,omitempty"`
	// Dropped marks a queued follow-up dropped by a cancel or failure.
	Dropped   bool      `json:"dropped,omitempty"`
	CreatedAt time.Time `json:"createdAt"`
}

func messageView(j db.Job, m db.JobMessage) Message {
	v := Message{
		Turn: m.Turn, Role: m.Role, Content: m.Content, ToolCallID: m.ToolCallID, ToolName: m.ToolName,
		IsError: m.IsError, Dropped: m.Dropped, CreatedAt: m.CreatedAt,
		Discarded: m.Attempt != "" && !m.Kept && m.Attempt != j.LeaseOwner,
	}
	if m.ToolCalls != "" {
		v.ToolCalls = json.RawMessage(m.ToolCalls)
	}
	return v
}

// stamp is a time as the API writes it: RFC 3339 in UTC with milliseconds,
// always the same width, so the strings sort as the times do.
type stamp time.Time

const stampLayout = "2006-01-02T15:04:05.000Z"

func (s stamp) MarshalJSON() ([]byte, error) {
	return []byte(`"` + time.Time(s).UTC().Format(stampLayout) + `"`), nil
}

func stampOf(t *time.Time) *stamp {
	if t == nil {
		return nil
	}
	s := stamp(*t)
	return &s
}

// MarshalJSON writes the job with its times as stamps.
func (j Job) MarshalJSON() ([]byte, error) {
	type plain Job
	return json.Marshal(struct {
		plain
		CreatedAt  stamp  `json:"createdAt"`
		ArchivedAt *stamp `json:"archivedAt"`
		UpdatedAt  stamp  `json:"updatedAt"`
	}{plain(j), stamp(j.CreatedAt), stampOf(j.ArchivedAt), stamp(j.UpdatedAt)})
}

// MarshalJSON writes the message with its time as a stamp.
func (m Message) MarshalJSON() ([]byte, error) {
	type plain Message
	return json.Marshal(struct {
		plain
		CreatedAt stamp `json:"createdAt"`
	}{plain(m), stamp(m.CreatedAt)})
}
