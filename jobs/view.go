package jobs

import (
	"encoding/json"
	"time"

	"github.com/folio-docs/folio/doccheck"
	"github.com/folio-docs/folio/model"
)

// Job is a job as the API and webhooks show it: the seed's fields, with
// prLink and archivedAt null when empty (and prLink null while active),
// plus updatedAt, branch, usage and error.
type Job struct {
	ID         string          `json:"id"`
	Status     model.JobStatus `json:"status"`
	Source     Source          `json:"source"`
	Model      string          `json:"model"`
	PRLink     *string         `json:"prLink"`
	CreatedAt  time.Time       `json:"createdAt"`
	ArchivedAt *time.Time      `json:"archivedAt"`
	UpdatedAt  time.Time       `json:"updatedAt"`
	Branch     string          `json:"branch"`
	Usage      Usage           `json:"usage"`
	Error      *JobError       `json:"error,omitempty"`
	// Summary is the agent's final answer of its latest finished turn (null
	// before one ends); Problems what the checks still found then ([] when
	// clean). A job with problems is still completed: they say what is left.
	Summary  *string            `json:"summary"`
	Problems []doccheck.Problem `json:"problems"`
	// MergedAt is when the job's branch was merged into its ref: by Folio
	// (POST .../merge or the review page) or its pull request on GitHub;
	// null otherwise.
	MergedAt *time.Time `json:"mergedAt"`
}

// Usage is what a job's runs have used of the model, over all its turns.
type Usage struct {
	Steps  int   `json:"steps"`  // model calls
	Tokens int64 `json:"tokens"` // prompt and completion tokens
	// The tokens split: the prompts' (those read from the provider's prompt
	// cache and written to it among them) and the completions'.
	InputTokens      int64 `json:"inputTokens"`
	OutputTokens     int64 `json:"outputTokens"`
	CachedTokens     int64 `json:"cachedTokens"`
	CacheWriteTokens int64 `json:"cacheWriteTokens"`
	// CostUSD is what the runs cost in US dollars, at the prices configured
	// for the job's model (FOLIO_MODEL_PRICES); null when a run's price was
	// not known.
	CostUSD *float64 `json:"costUsd"`
}

// usageOf is j's usage as shown.
func usageOf(j model.Job) Usage {
	u := Usage{Steps: j.Steps, Tokens: j.Tokens, InputTokens: j.InputTokens, OutputTokens: j.OutputTokens,
		CachedTokens: j.CachedTokens, CacheWriteTokens: j.CacheWriteTokens}
	if j.CostMicros != nil {
		usd := float64(*j.CostMicros) / 1e6
		u.CostUSD = &usd
	}
	return u
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

// View shows a stored job, its source.repository the repository's URL
// (RepositoryURLs).
func (s *Service) View(j model.Job) Job {
	repo := j.Repository
	if s.cfg.Hosts != nil {
		repo = s.cfg.Hosts.RepositoryURL(j.ProjectID, j.Repository)
	}
	return view(j, repo)
}

// view shows j with repository as its source.repository.
func view(j model.Job, repository string) Job {
	v := Job{
		ID: j.ID, Status: j.Status, Source: Source{repository, j.Ref}, Model: j.Model,
		CreatedAt: j.CreatedAt.UTC(), ArchivedAt: j.ArchivedAt, UpdatedAt: j.UpdatedAt.UTC(), Branch: j.Branch,
		Usage: usageOf(j), PRLink: PRLink(j),
	}
	if j.Status.IsFailed() && j.ErrorCode != "" {
		v.Error = &JobError{j.ErrorCode, j.ErrorMessage}
	}
	v.Summary, v.Problems, v.MergedAt = j.Summary, ParseProblems(j.Problems), j.MergedAt
	return v
}

// PRLink is j's prLink as shown: null while the job is active, as the seed
// says. The stored link is never cleared, so it shows again once a
// follow-up's turn ends.
func PRLink(j model.Job) *string {
	if j.PRLink == "" || j.Status.IsActive() {
		return nil
	}
	link := j.PRLink // not &j.PRLink, which would move all of j to the heap
	return &link
}

// noProblems is the Problems of a clean job, shared: views never change it.
var noProblems = []doccheck.Problem{}

// ParseProblems reads a job's stored problems; what cannot be read counts
// as none rather than failing the read of the job.
func ParseProblems(stored string) []doccheck.Problem {
	if stored == "" || stored == "[]" {
		return noProblems
	}
	var ps []doccheck.Problem
	if json.Unmarshal([]byte(stored), &ps) != nil || ps == nil {
		return noProblems
	}
	return ps
}

// Message is one entry of a job's conversation as the API shows it.
type Message struct {
	ID         int64           `json:"-"` // the order it was recorded in (EventCursor.Message)
	Turn       int             `json:"turn"`
	Role       string          `json:"role"`
	Content    string          `json:"content"`
	ToolCalls  json.RawMessage `json:"toolCalls,omitempty"`
	ToolCallID string          `json:"toolCallId,omitempty"`
	ToolName   string          `json:"toolName,omitempty"`
	IsError    bool            `json:"isError,omitempty"`
	// Usage is, for an agent's reply, what its model call used (its
	// inputTokens are the size of that request).
	Usage json.RawMessage `json:"usage,omitempty"`
	// Discarded marks what a failed attempt said: kept for the record, but
	// not part of the history the agent continues from.
	Discarded bool `json:"discarded,omitempty"`
	// Dropped marks a queued follow-up dropped by a cancel or failure.
	Dropped   bool      `json:"dropped,omitempty"`
	CreatedAt time.Time `json:"createdAt"`
}

func messageView(j model.Job, m model.JobMessage) Message {
	v := Message{
		ID: m.ID, Turn: m.Turn, Role: m.Role, Content: m.Content, ToolCallID: m.ToolCallID, ToolName: m.ToolName,
		IsError: m.IsError, Dropped: m.Dropped, CreatedAt: m.CreatedAt,
		Discarded: m.Attempt != "" && !m.Kept && m.Attempt != j.LeaseOwner,
	}
	if m.ToolCalls != "" {
		v.ToolCalls = json.RawMessage(m.ToolCalls)
	}
	if m.Usage != "" {
		v.Usage = json.RawMessage(m.Usage)
	}
	return v
}

// stamp is a time as the API writes it: RFC 3339 in UTC with milliseconds,
// always the same width, so the strings sort as the times do.
type stamp time.Time

const stampLayout = "2006-01-02T15:04:05.000Z"

func (s stamp) MarshalJSON() ([]byte, error) {
	return appendStamp(nil, time.Time(s)), nil
}

// MarshalJSON writes the job through encoding/json with its times as
// stamps, which come last, after Job's other fields in their order: the
// bytes the API has always sent.
func (j Job) MarshalJSON() ([]byte, error) {
	type fields Job // Job without this method
	return json.Marshal(struct {
		fields
		CreatedAt  stamp  `json:"createdAt"`
		ArchivedAt *stamp `json:"archivedAt"`
		UpdatedAt  stamp  `json:"updatedAt"`
		MergedAt   *stamp `json:"mergedAt"`
	}{fields(j), stamp(j.CreatedAt), stampOf(j.ArchivedAt), stamp(j.UpdatedAt), stampOf(j.MergedAt)})
}

func stampOf(t *time.Time) *stamp {
	if t == nil {
		return nil
	}
	s := stamp(*t)
	return &s
}

func appendStamp(b []byte, t time.Time) []byte {
	b = append(b, '"')
	b = t.UTC().AppendFormat(b, stampLayout)
	return append(b, '"')
}

// MarshalJSON writes the message with its time as a stamp.
func (m Message) MarshalJSON() ([]byte, error) {
	type plain Message
	return json.Marshal(struct {
		plain
		CreatedAt stamp `json:"createdAt"`
	}{plain(m), stamp(m.CreatedAt)})
}
