package components

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/folio-docs/folio/agent"
	"github.com/folio-docs/folio/codehost"
	"github.com/folio-docs/folio/db"
	"github.com/folio-docs/folio/jobs"
)

// JobsPerPage is how many jobs the jobs page lists at a time.
const JobsPerPage = 20

// PollEvery is how often a page with an active job asks for its status.
const PollEvery = "2s"

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
	Job    db.Job
	Prompt string
}

// AnyActive reports whether a job of the page is still running, so the
// list keeps asking for news.
func (v JobsView) AnyActive() bool {
	for _, r := range v.Jobs {
		if r.Job.Status == db.JobActive {
			return true
		}
	}
	return false
}

// JobView is one job's page: its conversation and what can be done with it.
type JobView struct {
	ProjectID string
	Job       db.Job
	Messages  []jobs.Message
	FollowUp  string // the follow-up box's text, kept when it is refused
	Error     string // why the follow-up, archive or cancel was refused
	Now       time.Time
	// Summary is the agent's final answer of its latest finished turn, and
	// Problems what the checks still found then (CONTRACT §2); empty
	// before a turn ends.
	Summary  string
	Problems []agent.Problem
}

// NoChanges reports whether the job finished its turn without changing a
// file: it is completed and has no pull request.
func (v JobView) NoChanges() bool {
	return v.Job.Status == db.JobCompleted && v.Job.PRLink == "" && v.Job.MergedAt == nil
}

// ChangesView is the local review page of a job's branch.
type ChangesView struct {
	ProjectID string
	Job       db.Job
	Merged    bool   // Files is what Folio merged into the ref (Job.MergedAt is set)
	Local     bool   // the repository is on this machine; otherwise PR links to GitHub
	PR        string // the pull request on GitHub
	Files     []DiffFile
	Error     string
	Now       time.Time
}

// Additions and Deletions total the diff.
func (v ChangesView) Additions() (n int) {
	for _, f := range v.Files {
		n += f.Added
	}
	return n
}

func (v ChangesView) Deletions() (n int) {
	for _, f := range v.Files {
		n += f.Deleted
	}
	return n
}

// CanMerge reports whether the merge button is offered: the branch has
// changes, its turn has ended and the job is not archived.
func (v ChangesView) CanMerge() bool {
	return v.Local && len(v.Files) > 0 && (v.Job.Status == db.JobCompleted || v.Job.Status == db.JobFailed)
}

// DiffFile is one file of a unified diff.
type DiffFile struct {
	Name    string
	OldName string // set when the file was renamed
	Change  string // added, deleted, renamed or modified
	Binary  bool
	Added   int
	Deleted int
	Lines   []DiffLine
}

// DiffLine is one line of a file's diff. Old and New are line numbers, 0
// where the line does not exist on that side.
type DiffLine struct {
	Kind string // hunk, add, del, ctx or note
	Old  int
	New  int
	Text string
}

// ParseDiff splits git's unified diff into files and numbered lines.
func ParseDiff(diff string) []DiffFile {
	var files []DiffFile
	var f *DiffFile
	inHunk := false
	oldN, newN := 0, 0
	for _, line := range strings.Split(strings.TrimSuffix(diff, "\n"), "\n") {
		if strings.HasPrefix(line, "diff --git ") {
			files = append(files, DiffFile{Change: "modified", Name: gitDiffName(line)})
			f, inHunk = &files[len(files)-1], false
			continue
		}
		if f == nil {
			continue
		}
		if !inHunk || strings.HasPrefix(line, "@@ ") {
			switch {
			case strings.HasPrefix(line, "@@ "):
				inHunk = true
				oldN, newN = hunkStarts(line)
				f.Lines = append(f.Lines, DiffLine{Kind: "hunk", Text: line})
			case strings.HasPrefix(line, "new file mode"):
				f.Change = "added"
			case strings.HasPrefix(line, "deleted file mode"):
				f.Change = "deleted"
			case strings.HasPrefix(line, "rename from "):
				f.Change, f.OldName = "renamed", strings.TrimPrefix(line, "rename from ")
			case strings.HasPrefix(line, "rename to "):
				f.Name = strings.TrimPrefix(line, "rename to ")
			case strings.HasPrefix(line, "+++ b/"):
				f.Name = strings.TrimPrefix(line, "+++ b/")
			case strings.HasPrefix(line, "Binary files "):
				f.Binary = true
			}
			continue
		}
		switch {
		case strings.HasPrefix(line, "+"):
			f.Added++
			f.Lines = append(f.Lines, DiffLine{Kind: "add", New: newN, Text: line[1:]})
			newN++
		case strings.HasPrefix(line, "-"):
			f.Deleted++
			f.Lines = append(f.Lines, DiffLine{Kind: "del", Old: oldN, Text: line[1:]})
			oldN++
		case strings.HasPrefix(line, `\`):
			f.Lines = append(f.Lines, DiffLine{Kind: "note", Text: strings.TrimSpace(line[1:])})
		default:
			f.Lines = append(f.Lines, DiffLine{Kind: "ctx", Old: oldN, New: newN, Text: strings.TrimPrefix(line, " ")})
			oldN++
			newN++
		}
	}
	return files
}

// gitDiffName reads b/NAME from "diff --git a/NAME b/NAME"; the +++ line
// or a rename line corrects it when there is one.
func gitDiffName(line string) string {
	rest := strings.TrimPrefix(line, "diff --git ")
	if i := strings.LastIndex(rest, " b/"); i >= 0 {
		return rest[i+3:]
	}
	return rest
}

// hunkStarts reads the first old and new line numbers of "@@ -a,b +c,d @@".
func hunkStarts(line string) (oldN, newN int) {
	for _, field := range strings.Fields(line)[1:] {
		n, _ := strconv.Atoi(strings.SplitN(field[1:], ",", 2)[0])
		switch field[0] {
		case '-':
			oldN = n
		case '+':
			return oldN, n
		}
	}
	return oldN, newN
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
	if status == db.JobActive {
		return "running"
	}
	return status
}

// JobMerged is the state pages show for a job whose branch Folio merged:
// archived, as the API says, but told apart from a job merely put away.
const JobMerged = "merged"

// jobState is the state a page shows for j: its status, or JobMerged.
func jobState(j db.Job) string {
	if j.MergedAt != nil {
		return JobMerged
	}
	return j.Status
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
func prLabel(j db.Job, link string) string {
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
func problemPlace(p agent.Problem) string {
	switch {
	case p.Line > 0 && p.Column > 0:
		return fmt.Sprintf("%s:%d:%d", p.Path, p.Line, p.Column)
	case p.Line > 0:
		return fmt.Sprintf("%s:%d", p.Path, p.Line)
	}
	return p.Path
}

func shortSHA(s string) string {
	if len(s) > 10 {
		return s[:10]
	}
	return s
}

func lineNo(n int) string {
	if n == 0 {
		return ""
	}
	return strconv.Itoa(n)
}

func diffStat(added, deleted int) string { return fmt.Sprintf("+%d −%d", added, deleted) }

// deliveryOK reports whether a webhook delivery was answered with a 2xx.
func deliveryOK(d db.WebhookDelivery) bool { return d.StatusCode >= 200 && d.StatusCode < 300 }

func deliveryStatus(d db.WebhookDelivery) string {
	if d.StatusCode == 0 {
		return "no answer"
	}
	return strconv.Itoa(d.StatusCode)
}

// reviewURL is where a job's change is reviewed: Folio's own page for a
// local repository (the job's prLink names the same page under
// FOLIO_BASE_URL), the pull request otherwise.
func reviewURL(projectID string, j db.Job, prLink string) string {
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
func usage(j db.Job) string {
	if j.Steps == 0 {
		return "none yet"
	}
	calls := "model calls"
	if j.Steps == 1 {
		calls = "model call"
	}
	return fmt.Sprintf("%d %s, %s tokens", j.Steps, calls, num(int(j.Tokens)))
}
