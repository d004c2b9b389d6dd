package dashboard

import (
	"net/http"
	"time"

	"github.com/folio-docs/folio/auth"
	"github.com/folio-docs/folio/components"
	"github.com/folio-docs/folio/model"
)

// Keys shows a project's id and API keys.
func (d *Dashboard) Keys(w http.ResponseWriter, r *http.Request) {
	p, ok := d.memberProject(w, r)
	if !ok {
		return
	}
	d.renderKeys(w, r, http.StatusOK, p, components.KeysView{Form: components.KeyForm{Scope: model.ScopeWrite, Expiry: "90d"}})
}

func (d *Dashboard) renderKeys(w http.ResponseWriter, r *http.Request, status int, p model.Project, v components.KeysView) {
	keys, err := d.keys.List(r.Context(), p.ID)
	if err != nil {
		d.pageError(w, r, http.StatusInternalServerError, err)
		return
	}
	v.ProjectID, v.Keys, v.KeyPrefix, v.Now = p.ID, keys, auth.KeyPrefix, time.Now()
	d.render(w, r, status, components.KeysPage(d.projectShell(r, p, components.TabKeys, "API keys"), v))
}
