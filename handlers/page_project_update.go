package handlers

import (
	"net/http"

	"github.com/folio-docs/folio/components"
)

// ProjectUpdate saves a project's settings.
func (d *Dashboard) ProjectUpdate(w http.ResponseWriter, r *http.Request) {
	p, ok := d.memberProject(w, r)
	if !ok {
		return
	}
	saved := p
	if errs := projectForm(r, &p, d.repos); errs.Has() {
		f := d.formOf(p)
		f.Errors = errs
		// The header keeps the stored name until the change is saved.
		d.renderSettings(w, r, http.StatusUnprocessableEntity, saved, components.SettingsView{Form: f})
		return
	}
	if _, err := d.store.UpdateProject(r.Context(), p); err != nil {
		d.pageError(w, r, http.StatusInternalServerError, err)
		return
	}
	d.flash(r, "Settings saved.")
	redirect(w, r, "/projects/"+p.ID)
}
