package dashboard

import (
	"net/http"

	"github.com/folio-docs/folio/components"
)

// ProjectUpdate saves a project's settings.
func (d *Dashboard) ProjectUpdate(w http.ResponseWriter, r *http.Request) {
	saved, ok := d.memberProject(w, r)
	if !ok {
		return
	}
	p := saved
	projectForm(r, &p)
	p, err := d.projects.Update(r.Context(), saved, p)
	if errs := projectErrors(err); len(errs) > 0 {
		f := d.formOf(p)
		f.Errors = errs
		// The header keeps the stored name until the change is saved.
		d.renderSettings(w, r, http.StatusUnprocessableEntity, saved, components.SettingsView{Form: f})
		return
	}
	if err != nil {
		d.pageError(w, r, http.StatusInternalServerError, err)
		return
	}
	d.flash(r, "Settings saved.")
	redirect(w, r, "/projects/"+p.ID)
}
