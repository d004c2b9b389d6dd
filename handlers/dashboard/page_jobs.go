package dashboard

import (
	"net/http"
	"strconv"
	"time"

	"github.com/folio-docs/folio/components"
	"github.com/folio-docs/folio/jobs"
	"github.com/folio-docs/folio/model"
)

// Jobs lists a project's jobs, newest first, under the form that launches
// one. Asked by the list itself (htmx polling while a job runs), it answers
// only the list.
func (d *Dashboard) Jobs(w http.ResponseWriter, r *http.Request) {
	p, ok := d.memberProject(w, r)
	if !ok {
		return
	}
	d.renderJobs(w, r, http.StatusOK, p, components.JobsView{Prompt: keptField(r.Context(), "prompt")})
}

func (d *Dashboard) renderJobs(w http.ResponseWriter, r *http.Request, status int, p model.Project, v components.JobsView) {
	page, err := strconv.Atoi(r.URL.Query().Get("page"))
	if err != nil || page < 1 || page > 100000 {
		page = 1
	}
	list, more, err := d.jobs.List(r.Context(), p.ID, "", components.JobsPerPage, (page-1)*components.JobsPerPage)
	if err != nil {
		d.pageError(w, r, http.StatusInternalServerError, err)
		return
	}
	v.ProjectID, v.Page, v.HasMore, v.Now, v.LaunchKey = p.ID, page, more, time.Now(), model.NewID()
	v.PromptLimit = jobs.MaxPromptLength
	// The first prompt names the job in the list.
	prompts, err := d.jobs.FirstPrompts(r.Context(), list)
	if err != nil {
		d.pageError(w, r, http.StatusInternalServerError, err)
		return
	}
	v.Jobs = make([]components.JobRow, len(list))
	for i, j := range list {
		v.Jobs[i] = jobRow(p.ID, j, prompts[j.ID])
	}
	if r.Header.Get("HX-Target") == "job-list" {
		d.render(w, r, status, components.JobList(v))
		return
	}
	d.render(w, r, status, components.JobsPage(d.projectShell(r, p, components.TabJobs, "Jobs"), v))
}
