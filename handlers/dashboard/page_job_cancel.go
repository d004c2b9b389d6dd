package dashboard

import (
	"net/http"
)

// JobCancel stops a running job; it fails with code canceled.
func (d *Dashboard) JobCancel(w http.ResponseWriter, r *http.Request) {
	p, j, ok := d.memberJob(w, r)
	if !ok {
		return
	}
	if _, err := d.jobs.Cancel(r.Context(), p.ID, j.ID); err != nil {
		d.refuseJobForm(w, r, p, j, "", err)
		return
	}
	d.flash(r, "Job cancelled.")
	redirect(w, r, "/projects/"+p.ID+"/jobs/"+j.ID)
}
