package dashboard

import (
	"errors"
	"net/http"
	"strings"

	"github.com/folio-docs/folio/components"
	"github.com/folio-docs/folio/model"
)

// InvitationCreate makes a one-time link for an email address to join the
// project, and shows it this once on the settings page. The answer is the
// page itself, not a redirect, so the link is never stored to be shown again.
func (d *Dashboard) InvitationCreate(w http.ResponseWriter, r *http.Request) {
	p, ok := d.memberProject(w, r)
	if !ok {
		return
	}
	email := strings.TrimSpace(r.PostFormValue("email"))
	refuse := func(msg string) {
		v := components.SettingsView{Form: d.formOf(p), Invites: components.InvitesView{Email: email, Error: msg}}
		d.renderSettings(w, r, http.StatusUnprocessableEntity, p, v)
	}
	u, _ := currentUser(r.Context())
	link, inv, err := d.invites.Create(r.Context(), p.ID, email, u.ID)
	switch {
	case errors.Is(err, model.ErrInvalidEmail):
		refuse("Enter an email address, such as ada@example.com.")
	case errors.Is(err, model.ErrAlreadyMember):
		refuse(inv.Email + " is already a member of this project.")
	case err != nil:
		d.pageError(w, r, http.StatusInternalServerError, err)
	default:
		v := components.SettingsView{Form: d.formOf(p), Invites: components.InvitesView{NewLink: link, NewEmail: inv.Email}}
		d.renderSettings(w, r, http.StatusCreated, p, v)
	}
}
