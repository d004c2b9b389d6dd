package handlers

import "net/http"

// Logout ends the session.
func (d *Dashboard) Logout(w http.ResponseWriter, r *http.Request) {
	if err := d.sessions.Destroy(r.Context()); err != nil {
		d.pageError(w, r, http.StatusInternalServerError, err)
		return
	}
	redirect(w, r, "/login")
}
