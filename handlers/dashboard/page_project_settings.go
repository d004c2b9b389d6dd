package dashboard

import (
	"net/http"
	"time"

	"github.com/folio-docs/folio/components"
	"github.com/folio-docs/folio/model"
)

// ProjectSettings shows a project's settings and members.
func (d *Dashboard) ProjectSettings(w http.ResponseWriter, r *http.Request) {
	p, ok := d.memberProject(w, r)
	if !ok {
		return
	}
	d.renderSettings(w, r, http.StatusOK, p, components.SettingsView{Form: d.formOf(p)})
}

func (d *Dashboard) renderSettings(w http.ResponseWriter, r *http.Request, status int, p model.Project, v components.SettingsView) {
	members, err := d.projects.Members(r.Context(), p.ID)
	if err != nil {
		d.pageError(w, r, http.StatusInternalServerError, err)
		return
	}
	deliveries, err := d.store.WebhookDeliveries(r.Context(), p.ID, 10)
	if err != nil {
		d.pageError(w, r, http.StatusInternalServerError, err)
		return
	}
	if v.Drains, err = d.drainsView(r.Context(), p.ID, v.Drains); err != nil {
		d.pageError(w, r, http.StatusInternalServerError, err)
		return
	}
	if v.Invites, err = d.invitesView(r, p.ID, v.Invites); err != nil {
		d.pageError(w, r, http.StatusInternalServerError, err)
		return
	}
	v.Members, v.Signup, v.Deliveries, v.Now = members, d.accounts.Signup(), deliveries, time.Now()
	d.render(w, r, status, components.ProjectSettingsPage(d.projectShell(r, p, components.TabSettings, "Settings"), v))
}
