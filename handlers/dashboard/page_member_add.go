package dashboard

import (
	"errors"
	"net/http"
	"strings"

	"github.com/folio-docs/folio/components"
	"github.com/folio-docs/folio/model"
)

// MemberAdd makes an existing user a member of the project.
func (d *Dashboard) MemberAdd(w http.ResponseWriter, r *http.Request) {
	p, ok := d.memberProject(w, r)
	if !ok {
		return
	}
	email := strings.TrimSpace(r.PostFormValue("email"))
	u, err := d.projects.AddMember(r.Context(), p.ID, email)
	if errors.Is(err, model.ErrNoAccount) {
		v := components.SettingsView{Form: d.formOf(p), MemberEmail: email,
			MemberError: "No Folio account has this email. They need an account before they can be added."}
		d.renderSettings(w, r, http.StatusUnprocessableEntity, p, v)
		return
	}
	if err != nil {
		d.pageError(w, r, http.StatusInternalServerError, err)
		return
	}
	d.flash(r, u.Email+" is now a member of "+p.Name+".")
	redirect(w, r, "/projects/"+p.ID+"#members")
}
