package jobs

import (
	"encoding/json"
	"strconv"
	"time"
	"unicode/utf8"

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
func View(j model.Job) Job {
	v := Job{
		ID: j.ID, Status: j.Status, Source: Source{j.Repository, j.Ref}, Model: j.Model,
		CreatedAt: j.CreatedAt.UTC(), ArchivedAt: j.ArchivedAt, UpdatedAt: j.UpdatedAt.UTC(), Branch: j.Branch,
		Usage: Usage{Steps: j.Steps, Tokens: j.Tokens},
	}
	// The seed: prLink is null while the job is active. The stored link is
	// never cleared, so it shows again once a follow-up's turn ends.
	if j.PRLink != "" && !j.Status.IsActive() {
		link := j.PRLink // not &j.PRLink, which would move all of j to the heap
		v.PRLink = &link
	}
	if j.Status.IsFailed() && j.ErrorCode != "" {
		v.Error = &JobError{j.ErrorCode, j.ErrorMessage}
	}
	v.Summary, v.Problems, v.MergedAt = j.Summary, ParseProblems(j.Problems), j.MergedAt
	return v
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
	return v
}

// stamp is a time as the API writes it: RFC 3339 in UTC with milliseconds,
// always the same width, so the strings sort as the times do.
type stamp time.Time

const stampLayout = "2006-01-02T15:04:05.000Z"

func (s stamp) MarshalJSON() ([]byte, error) {
	return appendStamp(nil, time.Time(s)), nil
}

// MarshalJSON writes the job with its times as stamps.
func (j Job) MarshalJSON() ([]byte, error) {
	return j.AppendJSON(make([]byte, 0, 512)), nil
}

// AppendJSON appends the job's JSON to b: the bytes MarshalJSON gives, in
// the order encoding/json gave them when the job went through reflection
// (the stamps last), strings escaped as json.Marshal escapes them. It is
// written out because GET job, the polling endpoint, is the API's hottest
// path; TestJobJSONMatchesReflection holds it to the reflective form.
func (j Job) AppendJSON(b []byte) []byte {
	b = append(b, `{"id":`...)
	b = appendJSONString(b, j.ID)
	b = append(b, `,"status":`...)
	b = appendJSONString(b, string(j.Status))
	b = append(b, `,"source":{"repository":`...)
	b = appendJSONString(b, j.Source.Repository)
	b = append(b, `,"ref":`...)
	b = appendJSONString(b, j.Source.Ref)
	b = append(b, `},"model":`...)
	b = appendJSONString(b, j.Model)
	b = append(b, `,"prLink":`...)
	if j.PRLink != nil {
		b = appendJSONString(b, *j.PRLink)
	} else {
		b = append(b, "null"...)
	}
	b = append(b, `,"branch":`...)
	b = appendJSONString(b, j.Branch)
	b = append(b, `,"usage":{"steps":`...)
	b = strconv.AppendInt(b, int64(j.Usage.Steps), 10)
	b = append(b, `,"tokens":`...)
	b = strconv.AppendInt(b, j.Usage.Tokens, 10)
	b = append(b, '}')
	if j.Error != nil {
		b = append(b, `,"error":{"code":`...)
		b = appendJSONString(b, j.Error.Code)
		b = append(b, `,"message":`...)
		b = appendJSONString(b, j.Error.Message)
		b = append(b, '}')
	}
	b = append(b, `,"summary":`...)
	if j.Summary != nil {
		b = appendJSONString(b, *j.Summary)
	} else {
		b = append(b, "null"...)
	}
	b = append(b, `,"problems":`...)
	if j.Problems == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i, p := range j.Problems {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"path":`...)
			b = appendJSONString(b, p.Path)
			if p.Line != 0 {
				b = append(b, `,"line":`...)
				b = strconv.AppendInt(b, int64(p.Line), 10)
			}
			if p.Column != 0 {
				b = append(b, `,"column":`...)
				b = strconv.AppendInt(b, int64(p.Column), 10)
			}
			b = append(b, `,"severity":`...)
			b = appendJSONString(b, p.Severity)
			b = append(b, `,"message":`...)
			b = appendJSONString(b, p.Message)
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	b = append(b, `,"createdAt":`...)
	b = appendStamp(b, j.CreatedAt)
	b = append(b, `,"archivedAt":`...)
	if j.ArchivedAt != nil {
		b = appendStamp(b, *j.ArchivedAt)
	} else {
		b = append(b, "null"...)
	}
	b = append(b, `,"updatedAt":`...)
	b = appendStamp(b, j.UpdatedAt)
	b = append(b, `,"mergedAt":`...)
	if j.MergedAt != nil {
		b = appendStamp(b, *j.MergedAt)
	} else {
		b = append(b, "null"...)
	}
	return append(b, '}')
}

func appendStamp(b []byte, t time.Time) []byte {
	b = append(b, '"')
	b = t.UTC().AppendFormat(b, stampLayout)
	return append(b, '"')
}

// appendJSONString appends s as json.Marshal writes a string: quotes,
// backslashes, control characters and <, >, & escaped, invalid UTF-8 as
// U+FFFD, U+2028 and U+2029 escaped (encoding/json's appendString with
// HTML escaping on, which MarshalJSON's json.Marshal always had).
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '\\', '"':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	b = append(b, s[start:]...)
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
