package dashboard

import (
	"net/http"
	"strings"
)

// JobMessage sends a follow-up from the job page (jobs.Service.Message, as
// the API's POST /job/{id}/message).
func (d *Dashboard) JobMessage(w http.ResponseWriter, r *http.Request) {
	p, j, ok := d.memberJob(w, r)
	if !ok {
		return
	}
	prompt := strings.TrimSpace(r.PostFormValue("prompt"))
	if _, err := d.jobs.Message(r.Context(), p.ID, j.ID, prompt); err != nil {
		d.refuseJobForm(w, r, p, j, prompt, err)
		return
	}
	d.flash(r, "Follow-up sent.")
	redirect(w, r, "/projects/"+p.ID+"/jobs/"+j.ID)
}
