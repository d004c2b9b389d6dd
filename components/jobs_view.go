package components

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/folio-docs/folio/model"
)

// JobsPerPage is how many jobs the jobs page lists at a time.
const JobsPerPage = 20

// PollEvery is how often the jobs list asks for its jobs' statuses while one runs.
const PollEvery = "2s"

// LivePollEvery is how often a running job's page asks for itself besides
// its event stream's events: only a fallback.
const LivePollEvery = "30s"

// JobsView is a project's jobs page: the launch form and a page of jobs.
type JobsView struct {
	ProjectID   string
	Jobs        []JobRow
	Page        int // from 1
	HasMore     bool
	LaunchKey   string // the launch form's idempotency key: a double submit launches one job
	Prompt      string // the launch form's prompt, kept when it is refused
	PromptLimit int    // the longest prompt taken, in characters
	Error       string // why the launch was refused
	Now         time.Time
}

// JobRow is one job of the list with the prompt that started it.
type JobRow struct {
	Job    model.Job
	Prompt string
	Review *ReviewLink // nil while the job has no change to show
}

// ReviewLink is where a job's change is reviewed, and its name: Folio's
// own review page of a branch of a local repository, or the pull request.
type ReviewLink struct {
	URL, Label string
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
	ProjectID   string
	Job         model.Job
	Review      *ReviewLink // nil while the job has no change to show
	Messages    []Message
	FollowUp    string // the follow-up box's text, kept when it is refused
	PromptLimit int    // the longest follow-up taken, in characters
	Error       string // why the follow-up, archive or cancel was refused
	Now         time.Time
	// Cursor is where the page stands in the job's event stream: the
	// stream sends only what changed after it. Events names the stream's
	// events that change the page.
	Cursor string
	Events []string
	// Summary is the agent's final answer of its latest finished turn, and
	// Problems what the checks still found then (CONTRACT §2); empty
	// before a turn ends.
	Summary  string
	Problems []Problem
}

// Message is one entry of a job's conversation.
type Message struct {
	Turn      int
	Role      string // user, assistant or tool
	Content   string
	ToolCalls json.RawMessage // an assistant's calls, as the model made them
	ToolName  string          // the tool a result is of
	IsError   bool
	Discarded bool // said by a failed attempt: kept for the record only
	Dropped   bool // a follow-up dropped by a cancel or failure, never sent
}

// Problem is what the checks found wrong with a file of the job's change.
type Problem struct {
	Path         string
	Line, Column int // 0 when unknown
	Severity     string
	Message      string
}

// NoChanges reports whether the job finished its turn without changing a
// file: it is completed and has no pull request.
func (v JobView) NoChanges() bool { return v.Job.NoChanges() }

// streamTrigger is when a job page asks for its live part on the stream's
// events: a burst of them, as the agent works, is one request.
func (v JobView) streamTrigger() string {
	t := make([]string, len(v.Events))
	for i, e := range v.Events {
		t[i] = "sse:" + e + " delay:100ms"
	}
	return strings.Join(t, ", ")
}

// ChangesView is the review page of a job's branch: its diff against the
// ref (what GET .../changes answers), the merge button, and what the
// agent's latest turn said and left.
type ChangesView struct {
	ProjectID string
	Job       model.Job
	Files     []DiffFile // the branch against the job's ref
	Additions int        // lines added, over all files
	Deletions int
	PR        string // the pull request on GitHub, if the job has one
	Summary   string // as JobView's
	Problems  []Problem
	Error     string
	Now       time.Time
}

// DiffFile is one file of a diff.
type DiffFile struct {
	Path         string
	PreviousPath string // set when the file was renamed
	Status       string // added, modified, deleted or renamed
	Additions    int
	Deletions    int
	Binary       bool
	Lines        []DiffLine
}

// DiffLine is one line of a file's diff. Old and New are line numbers, 0
// where the line does not exist on that side.
type DiffLine struct {
	Kind     string // hunk, add, del, ctx or note
	Old, New int
	Text     string
}

// Merged reports whether the job's branch was merged (by Folio, or its
// pull request on GitHub): the page then shows the change that was merged.
func (v ChangesView) Merged() bool { return v.Job.MergedAt != nil }

// CanMerge reports whether the merge button is offered: the branch has
// changes, its turn has ended and the job is not archived.
func (v ChangesView) CanMerge() bool {
	return len(v.Files) > 0 && v.Job.Status.CanMerge()
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
		_ = json.Unmarshal(args, &fields) // arguments that are no object name no subject; they are shown as they came
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

// problemPlace is where a problem is: path, and line and column if known.
func problemPlace(p Problem) string {
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
	s := fmt.Sprintf("%d %s, %s tokens", j.Steps, calls, num(int(j.Tokens)))
	if j.CachedTokens > 0 {
		s += fmt.Sprintf(" (%s read from the prompt cache)", num(int(j.CachedTokens)))
	}
	if j.CostMicros != nil {
		s += fmt.Sprintf(", $%.4f", float64(*j.CostMicros)/1e6)
	}
	return s
}
