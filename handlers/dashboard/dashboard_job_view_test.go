package dashboard

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/folio-docs/folio/codehost"
	"github.com/folio-docs/folio/components"
	"github.com/folio-docs/folio/doccheck"
	"github.com/folio-docs/folio/internal/testenv"
	"github.com/folio-docs/folio/model"
)

// problemsJSON is problems as a job stores them.
func problemsJSON(t *testing.T, problems ...doccheck.Problem) string {
	t.Helper()
	b, err := json.Marshal(problems)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestDiffIsEscaped(t *testing.T) {
	var b strings.Builder
	summary := "Fixed the <b>guide</b>."
	j := model.Job{ID: "j", Status: model.JobCompleted, Repository: "/srv/docs", Ref: "main", Branch: "folio/j",
		Summary: &summary, Problems: problemsJSON(t, doccheck.Problem{Path: "guide.md", Line: 3, Column: 1, Severity: "error", Message: "<unclosed> tag"})}
	v := changesView("", "p", j, codehost.Changes{Files: codehost.ParseDiff(testenv.SampleDiff)}, time.Now())
	if err := components.JobChangesPage(components.Shell{Title: "Review", Project: &model.Project{ID: "p"}}, v).Render(context.Background(), &b); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "<script>alert") || !strings.Contains(b.String(), "&lt;script&gt;alert(1)&lt;/script&gt;") {
		t.Error("a diff line reached the page unescaped")
	}
	if !strings.Contains(b.String(), `id="merge"`) {
		t.Error("a completed local job's review page offers no merge")
	}
	if !strings.Contains(b.String(), "Fixed the &lt;b&gt;guide&lt;/b&gt;.") || !strings.Contains(b.String(), "<code>guide.md:3:1</code>") || !strings.Contains(b.String(), "&lt;unclosed&gt; tag") {
		t.Error("the review page does not show the summary and problems, escaped")
	}
}

func TestPullRequestLabel(t *testing.T) {
	merged := time.Now()
	for _, c := range []struct {
		name string
		job  model.Job
		link string
		want string
	}{
		{"local", model.Job{Repository: "/srv/docs"}, "https://folio.example/projects/p/jobs/j/changes", "Review changes"},
		{"local, merged", model.Job{Repository: "/srv/docs", MergedAt: &merged}, "https://folio.example/projects/p/jobs/j/changes", "Merged changes"},
		{"GitHub", model.Job{Repository: "acme/docs"}, "https://github.com/acme/docs/pull/12", "Pull request #12"},
		{"GitHub Enterprise", model.Job{Repository: "acme/docs"}, "https://git.acme.example/acme/docs/pull/7/", "Pull request #7"},
		{"not a pull request URL", model.Job{Repository: "acme/docs"}, "https://github.com/acme/docs/compare/main...folio/j", "Pull request"},
		{"pull path with junk", model.Job{Repository: "acme/docs"}, "https://github.com/acme/docs/pull/12/files", "Pull request"},
	} {
		c.job.Status, c.job.PRLink = model.JobCompleted, c.link
		if got := reviewLink("p", c.job); got == nil || got.Label != c.want {
			t.Errorf("%s: the link to %q is %+v, want it named %q", c.name, c.link, got, c.want)
		}
	}
}

func renderJob(t *testing.T, j model.Job) string {
	t.Helper()
	var b strings.Builder
	if err := components.JobLive(showJob(components.JobView{}, "p", j, nil, time.Now())).Render(context.Background(), &b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func TestJobPageShowsSummaryAndProblems(t *testing.T) {
	summary := "Added a page on <rotating> keys."
	j := model.Job{ID: "j", Status: model.JobCompleted, Repository: "acme/docs", Ref: "main",
		PRLink: "https://github.com/acme/docs/pull/3", Summary: &summary,
		Problems: problemsJSON(t,
			doccheck.Problem{Path: "keys.mdx", Line: 4, Column: 2, Severity: doccheck.SeverityError, Message: "Unclosed <Note> tag."},
			doccheck.Problem{Path: "docs.json", Severity: doccheck.SeverityWarning, Message: "keys is not in the navigation."},
		)}
	page := renderJob(t, j)
	for _, want := range []string{`class="job-summary">Added a page on &lt;rotating&gt; keys.</p>`, "Problems left", "keys.mdx:4:2", "Unclosed &lt;Note&gt; tag.",
		`class="badge badge-warning"`, "docs.json</code>", "Pull request #3"} {
		if !strings.Contains(page, want) {
			t.Errorf("the job page lacks %q:\n%s", want, page)
		}
	}
	j.Problems = "[]"
	if page := renderJob(t, j); !strings.Contains(page, "The checks found no problem.") {
		t.Error("a clean turn does not say its checks found nothing")
	}
	j.Summary = nil
	if page := renderJob(t, j); strings.Contains(page, "job-outcome") {
		t.Error("a job without a finished turn shows an empty summary")
	}
}

func TestNoChangesNote(t *testing.T) {
	quiet := model.Job{ID: "j", Status: model.JobCompleted, Repository: "/srv/docs", Ref: "main"}
	if page := renderJob(t, quiet); !strings.Contains(page, "job-no-changes") {
		t.Error("a completed job without a pull request has no \"no changes\" note")
	}
	changed := quiet
	changed.PRLink = "http://folio.test/projects/p/jobs/j/changes"
	active := quiet
	active.Status = model.JobActive
	for _, j := range []model.Job{changed, active} {
		if page := renderJob(t, j); strings.Contains(page, "job-no-changes") {
			t.Errorf("a %s job with prLink %q says it changed nothing", j.Status, j.PRLink)
		}
	}
}
