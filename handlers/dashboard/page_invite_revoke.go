package dashboard

import (
	"errors"
	"net/http"

	"github.com/gorilla/mux"

	"github.com/folio-docs/folio/components"
	"github.com/folio-docs/folio/model"
)

// InvitationRevoke withdraws one of the project's invitations; its link
// stops working at once.
func (d *Dashboard) InvitationRevoke(w http.ResponseWriter, r *http.Request) {
	p, ok := d.memberProject(w, r)
	if !ok {
		return
	}
	err := d.invites.Revoke(r.Context(), p.ID, mux.Vars(r)["invitationId"])
	switch {
	case errors.Is(err, model.ErrNotFound):
		d.pageError(w, r, http.StatusNotFound, nil)
	case errors.Is(err, model.ErrInvitationUsed):
		v := components.SettingsView{Form: d.formOf(p), Invites: components.InvitesView{
			Error: "This invitation has been used already, so there is nothing to revoke. Remove the member instead."}}
		d.renderSettings(w, r, http.StatusConflict, p, v)
	case err != nil:
		d.pageError(w, r, http.StatusInternalServerError, err)
	default:
		d.flash(r, "Invitation revoked. Its link no longer works.")
		redirect(w, r, "/projects/"+p.ID+"#invitations")
	}
}
