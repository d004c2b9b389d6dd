package dashboard

import (
	"strings"
	"time"

	"github.com/folio-docs/folio/codehost"
	"github.com/folio-docs/folio/components"
	"github.com/folio-docs/folio/jobs"
	"github.com/folio-docs/folio/model"
)

// The job pages' views, built from what the jobs service answered: the
// components render them and know no service.

// jobRow is j's line in the jobs list, named by its first prompt.
func jobRow(projectID string, j model.Job, prompt string) components.JobRow {
	return components.JobRow{Job: j, Prompt: prompt, Review: reviewLink(projectID, j)}
}

// showJob puts j and its conversation ms on the job page's view v, which
// holds what the request brought (a kept follow-up, an error).
func showJob(v components.JobView, projectID string, j model.Job, ms []jobs.Message, now time.Time) components.JobView {
	v.ProjectID, v.Job, v.Review, v.Now = projectID, j, reviewLink(projectID, j), now
	v.PromptLimit = jobs.MaxPromptLength
	v.Cursor, v.Events = jobs.CursorOf(j, ms).String(), []string{jobs.EventJob, jobs.EventMessage}
	v.Messages = make([]components.Message, len(ms))
	for i, m := range ms {
		v.Messages[i] = components.Message{Turn: m.Turn, Role: m.Role, Content: m.Content, ToolCalls: m.ToolCalls, ToolName: m.ToolName,
			IsError: m.IsError, Discarded: m.Discarded, Dropped: m.Dropped}
	}
	v.Summary, v.Problems = outcome(j)
	return v
}

// changesView is the review page of j's branch, whose changes are c.
// baseURL is FOLIO_BASE_URL, under which a local job's prLink names the
// page itself rather than a pull request.
func changesView(baseURL, projectID string, j model.Job, c codehost.Changes, now time.Time) components.ChangesView {
	v := components.ChangesView{ProjectID: projectID, Job: j, Additions: c.Additions(), Deletions: c.Deletions(), Now: now}
	v.Files = make([]components.DiffFile, len(c.Files))
	for i, f := range c.Files {
		lines := make([]components.DiffLine, len(f.Lines))
		for k, l := range f.Lines {
			lines[k] = components.DiffLine(l)
		}
		v.Files[i] = components.DiffFile{Path: f.Path, PreviousPath: f.PreviousPath, Status: f.Status,
			Additions: f.Additions, Deletions: f.Deletions, Binary: f.Binary, Lines: lines}
	}
	if link := jobs.PRLink(j); link != nil && *link != jobs.ChangesLink(baseURL, projectID, j.ID) {
		v.PR = *link
	}
	v.Summary, v.Problems = outcome(j)
	return v
}

// outcome is the agent's final answer of j's latest finished turn and the
// problems its checks still found then: "" and nil before a turn ends.
func outcome(j model.Job) (string, []components.Problem) {
	if j.Summary == nil {
		return "", nil
	}
	found := jobs.ParseProblems(j.Problems)
	problems := make([]components.Problem, len(found))
	for i, p := range found {
		problems[i] = components.Problem(p)
	}
	return *j.Summary, problems
}

// reviewLink is where j's change is reviewed, named: Folio's own review
// page for a job on a local repository (its prLink names the same page
// under FOLIO_BASE_URL), its pull request otherwise. nil while the job
// shows no prLink (none yet, or a turn under way).
func reviewLink(projectID string, j model.Job) *components.ReviewLink {
	link := jobs.PRLink(j)
	if link == nil {
		return nil
	}
	if kind, _, _ := codehost.ParseRepository(j.Repository); kind == codehost.KindLocal {
		l := &components.ReviewLink{URL: "/projects/" + projectID + "/jobs/" + j.ID + "/changes", Label: "Review changes"}
		if j.MergedAt != nil {
			l.Label = "Merged changes"
		}
		return l
	}
	l := &components.ReviewLink{URL: *link, Label: "Pull request"}
	if n := prNumber(*link); n != "" {
		l.Label += " #" + n
	}
	return l
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
