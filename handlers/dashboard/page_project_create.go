package dashboard

import (
	"net/http"

	"github.com/folio-docs/folio/model"
)

// ProjectCreate creates a project whose first member is its creator.
func (d *Dashboard) ProjectCreate(w http.ResponseWriter, r *http.Request) {
	u, _ := currentUser(r.Context())
	p := model.Project{OwnerID: u.ID}
	projectForm(r, &p)
	p, err := d.projects.Create(r.Context(), p)
	if errs := projectErrors(err); len(errs) > 0 {
		f := d.formOf(p)
		f.Errors = errs
		d.renderProjects(w, r, http.StatusUnprocessableEntity, f)
		return
	}
	if err != nil {
		d.pageError(w, r, http.StatusInternalServerError, err)
		return
	}
	d.flash(r, "Project created. Generate an API key to call the API.")
	redirect(w, r, "/projects/"+p.ID+"/keys")
}
