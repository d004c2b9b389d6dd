package dashboard

import (
	"net/http"

	"github.com/folio-docs/folio/components"
)

// LogoutForm answers a link to /logout: signed in, a page to confirm;
// signed out, the sign-in page.
func (d *Dashboard) LogoutForm(w http.ResponseWriter, r *http.Request) {
	if _, ok := currentUser(r.Context()); !ok {
		redirect(w, r, "/login")
		return
	}
	d.render(w, r, http.StatusOK, components.LogoutPage(d.shell(r, "Sign out")))
}

// Logout ends the session.
func (d *Dashboard) Logout(w http.ResponseWriter, r *http.Request) {
	if err := d.sessions.Destroy(r.Context()); err != nil {
		d.pageError(w, r, http.StatusInternalServerError, err)
		return
	}
	redirect(w, r, "/login")
}
