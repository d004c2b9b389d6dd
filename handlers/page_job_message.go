package handlers

import (
	"net/http"
	"strings"

	"github.com/folio-docs/folio/components"
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
		status, msg := jobFormError(err)
		if status == http.StatusInternalServerError {
			d.pageError(w, r, status, err)
			return
		}
		if now, err := d.jobs.Get(r.Context(), p.ID, j.ID); err == nil {
			j = now // the refusal may be news: show the job as it is
		}
		d.renderJob(w, r, status, p, j, components.JobView{FollowUp: prompt, Error: msg})
		return
	}
	d.flash(r, "Follow-up sent.")
	redirect(w, r, "/projects/"+p.ID+"/jobs/"+j.ID)
}
