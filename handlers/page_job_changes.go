package handlers

import (
	"net/http"
	"time"

	"github.com/folio-docs/folio/codehost"
	"github.com/folio-docs/folio/codehost/local"
	"github.com/folio-docs/folio/components"
	"github.com/folio-docs/folio/db"
	"github.com/folio-docs/folio/jobs"
)

// JobChanges is the review page of a job on a local repository (its
// prLink): the branch's diff against the ref and the merge button. For a
// GitHub repository it links to the pull request.
func (d *Dashboard) JobChanges(w http.ResponseWriter, r *http.Request) {
	p, j, ok := d.memberJob(w, r)
	if !ok {
		return
	}
	d.renderChanges(w, r, http.StatusOK, p, j, "")
}

func (d *Dashboard) renderChanges(w http.ResponseWriter, r *http.Request, status int, p db.Project, j db.Job, problem string) {
	v := components.ChangesView{ProjectID: p.ID, Job: j, Error: problem, Now: time.Now()}
	kind, path, err := codehost.ParseRepository(j.Repository)
	v.Local = err == nil && kind == codehost.KindLocal
	if link := jobs.View(j).PRLink; link != nil && !v.Local {
		v.PR = *link
	}
	v.Merged = v.Local && j.MergedAt != nil && j.MergeHead != ""
	if v.Local && (j.Branch != "" || v.Merged) {
		var diff string
		var err error
		if v.Merged {
			// Once merged, the branch no longer differs from the ref: show
			// what the merge brought, from the commits recorded then.
			diff, err = local.MergedDiff(r.Context(), path, j.MergeBase, j.MergeHead)
		} else {
			diff, err = local.Diff(r.Context(), path, j.Ref, j.Branch)
		}
		if err != nil {
			// The repository moved or the branch was deleted: say so on the page.
			logger(r.Context()).Warn("review page diff", "request_id", RequestID(r.Context()), "job_id", j.ID, "err", err)
			v.Error = "Folio could not read this branch's diff from " + j.Repository + ": the repository or the branch may have moved."
		}
		v.Files = components.ParseDiff(diff)
	}
	d.render(w, r, status, components.JobChangesPage(d.projectShell(r, p, components.TabJobs, "Review changes"), v))
}
