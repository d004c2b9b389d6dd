package components

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/folio-docs/folio/codehost"
	"github.com/folio-docs/folio/doccheck"
	"github.com/folio-docs/folio/jobs"
	"github.com/folio-docs/folio/model"
)

// JobsPerPage is how many jobs the jobs page lists at a time.
const JobsPerPage = 20

// PollEvery is how often the jobs list asks for its jobs' statuses while one runs.
const PollEvery = "2s"

// LivePollEvery is how often a running job's page asks for itself besides
// its event stream's events: only a fallback.
const LivePollEvery = "30s"

// streamTrigger is when a job page asks for its live part on the stream's
// events: a burst of them, as the agent works, is one request.
const streamTrigger = "sse:" + jobs.EventJob + " delay:100ms, sse:" + jobs.EventMessage + " delay:100ms"

// JobsView is a project's jobs page: the launch form and a page of jobs.
type JobsView struct {
	ProjectID string
	Jobs      []JobRow
	Page      int // from 1
	HasMore   bool
	LaunchKey string // the launch form's idempotency key: a double submit launches one job
	Prompt    string // the launch form's prompt, kept when it is refused
	Error     string // why the launch was refused
	Now       time.Time
}

// JobRow is one job of the list with the prompt that started it.
type JobRow struct {
	Job    model.Job
	Prompt string
}

// AnyActive reports whether a job of the page is still running, so the
// list keeps asking for news.
func (v JobsView) AnyActive() bool {
	for _, r := range v.Jobs {
		if r.Job.Status.IsActive() {
			return true
		}
	}
	return false
}

// JobView is one job's page: its conversation and what can be done with it.
type JobView struct {
	ProjectID string
	Job       model.Job
	Messages  []jobs.Message
	FollowUp  string // the follow-up box's text, kept when it is refused
	Error     string // why the follow-up, archive or cancel was refused
	Now       time.Time
	// Cursor is where the page stands in the job's event stream: the
	// stream sends only what changed after it.
	Cursor jobs.EventCursor
	// Summary is the agent's final answer of its latest finished turn, and
	// Problems what the checks still found then (CONTRACT §2); empty
	// before a turn ends.
	Summary  string
	Problems []doccheck.Problem
}

// NoChanges reports whether the job finished its turn without changing a
// file: it is completed and has no pull request.
func (v JobView) NoChanges() bool { return v.Job.NoChanges() }

// ChangesView is the review page of a job's branch: its diff against the
// ref (what GET .../changes answers), the merge button, and what the
// agent's latest turn said and left.
type ChangesView struct {
	ProjectID string
	Job       jobs.Job // as the API shows it: summary, problems, mergedAt
	Ref       string
	Changes   codehost.Changes
	PR        string // the pull request on GitHub, if the job has one
	Error     string
	Now       time.Time
}

// Merged reports whether the job's branch was merged (by Folio, or its
// pull request on GitHub): the page then shows the change that was merged.
func (v ChangesView) Merged() bool { return v.Job.MergedAt != nil }

// deref is *s, or "" for nil.
func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// DiffFile is one file of a diff (codehost parses them).
type DiffFile = codehost.FileChange

// CanMerge reports whether the merge button is offered: the branch has
// changes, its turn has ended and the job is not archived.
func (v ChangesView) CanMerge() bool {
	return len(v.Changes.Files) > 0 && v.Job.Status.CanMerge()
}

// toolCall is one call of an assistant message, arguments pretty-printed.
type toolCall struct {
	Name    string
	Subject string // the argument that says what the call is about (a path, a query)
	Args    string
}

// toolCalls reads a message's tool calls for display.
func toolCalls(raw json.RawMessage) []toolCall {
	var calls []struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	}
	if len(raw) == 0 || json.Unmarshal(raw, &calls) != nil {
		return nil
	}
	out := make([]toolCall, len(calls))
	for i, c := range calls {
		args := c.Arguments
		var s string
		if json.Unmarshal(args, &s) == nil { // some providers send the arguments as a JSON string
			args = json.RawMessage(s)
		}
		var pretty bytes.Buffer
		if json.Indent(&pretty, args, "", "  ") != nil {
			pretty.Reset()
			pretty.Write(args)
		}
		var fields map[string]any
		json.Unmarshal(args, &fields)
		subject := ""
		for _, k := range []string{"path", "file", "query", "pattern", "url"} {
			if v, ok := fields[k].(string); ok {
				subject = v
				break
			}
		}
		out[i] = toolCall{Name: c.Name, Subject: subject, Args: pretty.String()}
	}
	return out
}

// excerpt shortens s to about n characters on one line.
func excerpt(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n]) + "…"
}

// jobTitle is the job's first prompt, shortened, or its id.
func jobTitle(v JobView) string {
	for _, m := range v.Messages {
		if m.Role == "user" {
			return excerpt(m.Content, 90)
		}
	}
	return "Job " + v.Job.ID
}

func jobURL(projectID, jobID string) string { return "/projects/" + projectID + "/jobs/" + jobID }

func jobsPageURL(projectID string, page int) string {
	if page <= 1 {
		return "/projects/" + projectID + "/jobs"
	}
	return "/projects/" + projectID + "/jobs?page=" + strconv.Itoa(page)
}

// statusLabel says a status as the page shows it.
func statusLabel(status string) string {
	if model.JobStatus(status).IsActive() {
		return "running"
	}
	return status
}

// JobMerged is the state pages show for a job whose branch was merged, by
// Folio or its pull request on GitHub: archived, as the API says, but told
// apart from a job merely put away.
const JobMerged = "merged"

// jobState is the state a page shows for j: its status, or JobMerged.
func jobState(j model.Job) string {
	if j.MergedAt != nil {
		return JobMerged
	}
	return j.Status.String()
}

// prNumber reads the number of a GitHub pull request's URL
// (https://github.com/o/r/pull/12), or "" when it is not one.
func prNumber(link string) string {
	_, n, ok := strings.Cut(link, "/pull/")
	n = strings.TrimSuffix(n, "/")
	if !ok || n == "" || strings.Trim(n, "0123456789") != "" {
		return ""
	}
	return n
}

// prLabel names the link to a job's change in words: Folio's own review
// page of a local repository, or the pull request by its number.
func prLabel(j model.Job, link string) string {
	if kind, _, _ := codehost.ParseRepository(j.Repository); kind == codehost.KindLocal {
		if j.MergedAt != nil {
			return "Merged changes"
		}
		return "Review changes"
	}
	if n := prNumber(link); n != "" {
		return "Pull request #" + n
	}
	return "Pull request"
}

// problemPlace is where a problem is: path, and line and column if known.
func problemPlace(p doccheck.Problem) string {
	switch {
	case p.Line > 0 && p.Column > 0:
		return fmt.Sprintf("%s:%d:%d", p.Path, p.Line, p.Column)
	case p.Line > 0:
		return fmt.Sprintf("%s:%d", p.Path, p.Line)
	}
	return p.Path
}

func lineNo(n int) string {
	if n == 0 {
		return ""
	}
	return strconv.Itoa(n)
}

// deliveryOK reports whether a webhook delivery was answered with a 2xx.
func deliveryOK(d model.WebhookDelivery) bool { return d.StatusCode >= 200 && d.StatusCode < 300 }

func deliveryStatus(d model.WebhookDelivery) string {
	if d.StatusCode == 0 {
		return "no answer"
	}
	return strconv.Itoa(d.StatusCode)
}

// reviewURL is where a job's change is reviewed: Folio's own page for a
// local repository (the job's prLink names the same page under
// FOLIO_BASE_URL), the pull request otherwise.
func reviewURL(projectID string, j model.Job, prLink string) string {
	if kind, _, _ := codehost.ParseRepository(j.Repository); kind == codehost.KindLocal {
		return jobURL(projectID, j.ID) + "/changes"
	}
	return prLink
}

func diffSign(kind string) string {
	switch kind {
	case "add":
		return "+"
	case "del":
		return "-"
	}
	return " "
}

// usage says what a job's runs have used of the model.
func usage(j model.Job) string {
	if j.Steps == 0 {
		return "none yet"
	}
	calls := "model calls"
	if j.Steps == 1 {
		calls = "model call"
	}
	return fmt.Sprintf("%d %s, %s tokens", j.Steps, calls, num(int(j.Tokens)))
}
