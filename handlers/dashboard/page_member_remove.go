package dashboard

import (
	"errors"
	"net/http"

	"github.com/gorilla/mux"

	"github.com/folio-docs/folio/components"
	"github.com/folio-docs/folio/model"
)

// MemberRemove takes a member out of the project. The only member stays,
// so no project is left without an admin; a member who removes themself
// goes to their projects, having no access to this one any more.
func (d *Dashboard) MemberRemove(w http.ResponseWriter, r *http.Request) {
	p, ok := d.memberProject(w, r)
	if !ok {
		return
	}
	userID := mux.Vars(r)["userId"]
	removed, err := d.projects.RemoveMember(r.Context(), p.ID, userID)
	switch {
	case errors.Is(err, model.ErrNotFound):
		d.pageError(w, r, http.StatusNotFound, nil)
		return
	case errors.Is(err, model.ErrLastMember):
		v := components.SettingsView{Form: d.formOf(p),
			MemberError: removed.Email + " is the only member, and a project keeps at least one. Invite someone else first."}
		d.renderSettings(w, r, http.StatusConflict, p, v)
		return
	case err != nil:
		d.pageError(w, r, http.StatusInternalServerError, err)
		return
	}
	if u, _ := currentUser(r.Context()); u.ID == userID {
		d.flash(r, "You left "+p.Name+".")
		redirect(w, r, "/projects")
		return
	}
	d.flash(r, removed.Email+" is no longer a member of "+p.Name+".")
	redirect(w, r, "/projects/"+p.ID+"#members")
}
