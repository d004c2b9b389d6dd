package dashboard

import (
	"net/http"
	"time"

	"github.com/folio-docs/folio/components"
	"github.com/folio-docs/folio/handlers/httpx"
	"github.com/folio-docs/folio/model"
)

// JobChanges is the review page of a job's branch (a local job's prLink):
// the same changes GET .../changes answers, the agent's summary and
// problems, and the merge button.
func (d *Dashboard) JobChanges(w http.ResponseWriter, r *http.Request) {
	p, j, ok := d.memberJob(w, r)
	if !ok {
		return
	}
	d.renderChanges(w, r, http.StatusOK, p, j, "")
}

func (d *Dashboard) renderChanges(w http.ResponseWriter, r *http.Request, status int, p model.Project, j model.Job, problem string) {
	c, stored, err := d.jobs.Changes(r.Context(), p.ID, j.ID)
	if err == nil {
		j = stored
	} else {
		// The repository moved, the branch was deleted or the host is away: say so on the page.
		httpx.Logger(r.Context()).Warn("review page changes", "request_id", httpx.RequestID(r.Context()), "job_id", j.ID, "err", err)
		if problem == "" {
			problem = "Folio could not read this branch's changes from " + j.Repository + ": the repository or the branch may have moved, or the code host did not answer."
		}
	}
	v := changesView(d.baseURL, p.ID, j, c, time.Now())
	v.Error = problem
	d.render(w, r, status, components.JobChangesPage(d.projectShell(r, p, components.TabJobs, "Review changes"), v))
}
