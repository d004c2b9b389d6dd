package dashboard

import (
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/folio-docs/folio/auth"
	"github.com/folio-docs/folio/components"
	"github.com/folio-docs/folio/model"
)

// Keys shows a project's id and the API keys that open it.
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
	u, _ := currentUser(r.Context())
	mine, err := d.projects.ForUser(r.Context(), u.ID)
	if err != nil {
		d.pageError(w, r, http.StatusInternalServerError, err)
		return
	}
	names := make(map[string]string, len(mine))
	for _, m := range mine {
		names[m.ID] = m.Name
		if m.ID != p.ID {
			v.Others = append(v.Others, components.ProjectChoice{ID: m.ID, Name: m.Name})
		}
	}
	v.Access = make(map[string]components.KeyAccess, len(keys))
	for _, k := range keys {
		v.Access[k.ID] = keyAccess(k, p.ID, names)
	}
	v.ProjectID, v.ProjectName, v.Keys, v.KeyPrefix, v.Now = p.ID, p.Name, keys, auth.KeyPrefix, time.Now()
	d.render(w, r, status, components.KeysPage(d.projectShell(r, p, components.TabKeys, "API keys"), v))
}

// keyAccess says in words what k opens, seen from project here, naming the
// projects the viewer administers (names) and counting the others, and
// where k may be used from.
func keyAccess(k model.APIKey, here string, names map[string]string) components.KeyAccess {
	var a components.KeyAccess
	switch {
	case k.AllProjects && k.Creator != "":
		a.Projects = "All projects of " + k.Creator
	case k.AllProjects:
		a.Projects = "All projects of its creator"
	case len(k.Projects) == 1:
		a.Projects = "This project"
	default:
		named, others := []string{"This project"}, 0
		for _, id := range k.Projects {
			switch name, ok := names[id]; {
			case id == here:
			case ok:
				named = append(named, name)
			default:
				others++
			}
		}
		if others > 0 {
			named = append(named, fmt.Sprintf("%d more", others))
		}
		a.Projects = strings.Join(named, ", ")
	}
	a.IPs = "from any address"
	if len(k.AllowIPs) > 0 {
		ips := make([]string, len(k.AllowIPs))
		for i, p := range k.AllowIPs {
			ips[i] = p.String()
		}
		a.IPs = "from " + strings.Join(ips, ", ")
	}
	return a
}
