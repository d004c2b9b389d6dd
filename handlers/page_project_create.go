package handlers

import (
	"net/http"

	"github.com/folio-docs/folio/db"
)

// ProjectCreate creates a project whose first member is its creator.
func (d *Dashboard) ProjectCreate(w http.ResponseWriter, r *http.Request) {
	u, _ := currentUser(r.Context())
	p := db.Project{OwnerID: u.ID}
	if errs := projectForm(r, &p, d.repos); errs.Has() {
		f := d.formOf(p)
		f.Errors = errs
		d.renderProjects(w, r, http.StatusUnprocessableEntity, f)
		return
	}
	p, err := d.store.CreateProject(r.Context(), p)
	if err != nil {
		d.pageError(w, r, http.StatusInternalServerError, err)
		return
	}
	d.flash(r, "Project created. Generate an API key to call the API.")
	redirect(w, r, "/projects/"+p.ID+"/keys")
}
