package handlers

import (
	"net/http"

	"github.com/folio-docs/folio/components"
)

// JobCancel stops a running job; it fails with code canceled.
func (d *Dashboard) JobCancel(w http.ResponseWriter, r *http.Request) {
	p, j, ok := d.memberJob(w, r)
	if !ok {
		return
	}
	if _, err := d.jobs.Cancel(r.Context(), p.ID, j.ID); err != nil {
		status, msg := jobFormError(err)
		if status == http.StatusInternalServerError {
			d.pageError(w, r, status, err)
			return
		}
		if now, err := d.jobs.Get(r.Context(), p.ID, j.ID); err == nil {
			j = now // the refusal may be news: show the job as it is
		}
		d.renderJob(w, r, status, p, j, components.JobView{Error: msg})
		return
	}
	d.flash(r, "Job cancelled.")
	redirect(w, r, "/projects/"+p.ID+"/jobs/"+j.ID)
}
