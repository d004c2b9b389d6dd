package dashboard

import (
	"net/http"

	"github.com/folio-docs/folio/components"
)

// APIDocs is the API reference. It is public, like the OpenAPI document it
// renders: people integrating with Folio need it before they have a login.
func (d *Dashboard) APIDocs(w http.ResponseWriter, r *http.Request) {
	d.render(w, r, http.StatusOK, components.APIDocsPage(d.shell(r, "API reference")))
}

// Home sends a visitor to their projects, or to sign in.
func (d *Dashboard) Home(w http.ResponseWriter, r *http.Request) {
	redirect(w, r, "/projects")
}
