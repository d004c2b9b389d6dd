package dashboard

import (
	"errors"
	"net/http"

	"github.com/folio-docs/folio/model"
)

// JobArchive archives a job from its page, stopping it if it runs.
func (d *Dashboard) JobArchive(w http.ResponseWriter, r *http.Request) {
	p, j, ok := d.memberJob(w, r)
	if !ok {
		return
	}
	if _, err := d.jobs.Archive(r.Context(), p.ID, j.ID); err != nil && !errors.Is(err, model.ErrJobArchived) {
		d.pageError(w, r, http.StatusInternalServerError, err)
		return
	}
	d.flash(r, "Job archived.")
	redirect(w, r, "/projects/"+p.ID+"/jobs/"+j.ID)
}
