package dashboard

import (
	"net/http"
	"strings"

	"github.com/folio-docs/folio/components"
	"github.com/folio-docs/folio/handlers/httpx"
)

// JobCreate launches a job with the form's prompt, the same call as the
// API's POST /job under the same rate limit. The form carries an
// idempotency key, so a double submit launches one job.
func (d *Dashboard) JobCreate(w http.ResponseWriter, r *http.Request) {
	p, ok := d.memberProject(w, r)
	if !ok {
		return
	}
	prompt := strings.TrimSpace(r.PostFormValue("prompt"))
	key := r.PostFormValue("idempotency_key")
	if len(key) > httpx.MaxIdempotencyKey {
		key = ""
	}
	_, err := d.jobs.Create(r.Context(), p.ID, prompt, key)
	if err != nil {
		status, msg := jobFormError(err)
		if status == http.StatusInternalServerError {
			d.pageError(w, r, status, err)
			return
		}
		d.renderJobs(w, r, status, p, components.JobsView{Prompt: prompt, Error: msg})
		return
	}
	d.flash(r, "Job launched. Its status updates here as the agent works.")
	redirect(w, r, "/projects/"+p.ID+"/jobs")
}
