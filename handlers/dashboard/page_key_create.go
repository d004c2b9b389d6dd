package dashboard

import (
	"errors"
	"net/http"
	"strings"

	"github.com/folio-docs/folio/auth"
	"github.com/folio-docs/folio/components"
	"github.com/folio-docs/folio/model"
)

// KeyCreate issues a key and shows it, this once, on the keys page. The
// key opens the page's project and, as chosen, the user's others or all of
// them (now and later), from the addresses allowed. The answer is the page
// itself, not a redirect, so the key is never stored anywhere to be shown
// again.
func (d *Dashboard) KeyCreate(w http.ResponseWriter, r *http.Request) {
	p, ok := d.memberProject(w, r)
	if !ok {
		return
	}
	u, _ := currentUser(r.Context())
	f := components.KeyForm{Name: strings.TrimSpace(r.PostFormValue("name")), Scope: r.PostFormValue("scope"), Expiry: r.PostFormValue("expiry"),
		Also: r.PostForm["projects"], AllProjects: r.PostFormValue("all_projects") == "on", AllowIPs: strings.TrimSpace(r.PostFormValue("allow_ip"))}
	nk := auth.NewKey{Name: f.Name, Scope: f.Scope, Expiry: f.Expiry, AllProjects: f.AllProjects, CreatedBy: u.ID, AllowIPs: f.AllowIPs}
	if !f.AllProjects {
		nk.Projects = append([]string{p.ID}, f.Also...)
	}
	plain, rec, err := d.keys.Create(r.Context(), nk)
	var fields model.FieldErrors
	switch {
	case errors.Is(err, model.ErrKeyName):
		f.Errors = model.Invalid("name", auth.KeyNameRule)
	case errors.Is(err, model.ErrKeyOptions):
		f.Errors = model.Invalid("", "Choose a scope (read, ingest or write) and an expiry from the lists.")
	case errors.As(err, &fields):
		f.Errors = fields
	}
	if f.Errors != nil {
		d.renderKeys(w, r, http.StatusUnprocessableEntity, p, components.KeysView{Form: f})
		return
	}
	if err != nil {
		d.pageError(w, r, http.StatusInternalServerError, err)
		return
	}
	d.renderKeys(w, r, http.StatusCreated, p, components.KeysView{NewKey: plain, NewName: rec.Name,
		Form: components.KeyForm{Scope: f.Scope, Expiry: f.Expiry}})
}
