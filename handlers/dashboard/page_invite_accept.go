package dashboard

import (
	"net/http"
)

// InvitationAccept makes the signed-in user a member of the project of an
// invitation made for their email address.
func (d *Dashboard) InvitationAccept(w http.ResponseWriter, r *http.Request) {
	u, _ := currentUser(r.Context())
	inv, err := d.invites.Accept(r.Context(), r.PostFormValue("invite"), u)
	if err != nil {
		if !d.invitationRefused(w, r, inv, err) {
			d.pageError(w, r, http.StatusInternalServerError, err)
		}
		return
	}
	d.flash(r, "You joined "+inv.ProjectName+".")
	redirect(w, r, "/projects/"+inv.ProjectID)
}
