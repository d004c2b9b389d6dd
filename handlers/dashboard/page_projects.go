package dashboard

import (
	"net/http"

	"github.com/folio-docs/folio/components"
)

// Projects lists the signed-in admin's projects beside the form that
// creates one.
func (d *Dashboard) Projects(w http.ResponseWriter, r *http.Request) {
	d.renderProjects(w, r, http.StatusOK, components.ProjectForm{Ref: "main"})
}

func (d *Dashboard) renderProjects(w http.ResponseWriter, r *http.Request, status int, f components.ProjectForm) {
	u, _ := currentUser(r.Context())
	list, err := d.projects.ForUser(r.Context(), u.ID)
	if err != nil {
		d.pageError(w, r, http.StatusInternalServerError, err)
		return
	}
	d.render(w, r, status, components.ProjectsPage(d.shell(r, "Projects"), components.ProjectsView{Projects: list, Form: f}))
}
