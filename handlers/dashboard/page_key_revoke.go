package dashboard

import (
	"errors"
	"net/http"

	"github.com/folio-docs/folio/model"
	"github.com/gorilla/mux"
)

// KeyRevoke revokes one of the project's keys; it stops working at once.
func (d *Dashboard) KeyRevoke(w http.ResponseWriter, r *http.Request) {
	p, ok := d.memberProject(w, r)
	if !ok {
		return
	}
	err := d.keys.Revoke(r.Context(), p.ID, mux.Vars(r)["keyId"])
	if errors.Is(err, model.ErrNotFound) {
		d.pageError(w, r, http.StatusNotFound, nil)
		return
	}
	if err != nil {
		d.pageError(w, r, http.StatusInternalServerError, err)
		return
	}
	d.flash(r, "Key revoked. Requests with it are refused from now on.")
	redirect(w, r, "/projects/"+p.ID+"/keys")
}
