package handlers

import (
	"errors"
	"net/http"
	"strings"

	"github.com/folio-docs/folio/auth"
	"github.com/folio-docs/folio/components"
	"github.com/folio-docs/folio/db"
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
	if existing, err := d.store.UserByEmail(r.Context(), email); err == nil {
		member, err := d.store.IsProjectMember(r.Context(), p.ID, existing.ID)
		if err != nil {
			d.pageError(w, r, http.StatusInternalServerError, err)
			return
		}
		if member {
			refuse(existing.Email + " is already a member of this project.")
			return
		}
	} else if !errors.Is(err, db.ErrNotFound) {
		d.pageError(w, r, http.StatusInternalServerError, err)
		return
	}
	u, _ := currentUser(r.Context())
	link, inv, err := d.invites.Create(r.Context(), p.ID, email, u.ID)
	if errors.Is(err, auth.ErrInvalidEmail) {
		refuse("Enter an email address, such as ada@example.com.")
		return
	}
	if err != nil {
		d.pageError(w, r, http.StatusInternalServerError, err)
		return
	}
	v := components.SettingsView{Form: d.formOf(p), Invites: components.InvitesView{NewLink: link, NewEmail: inv.Email}}
	d.renderSettings(w, r, http.StatusCreated, p, v)
}
