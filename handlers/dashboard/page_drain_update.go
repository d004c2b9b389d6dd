package dashboard

import (
	"context"
	"errors"
	"net/http"
	"strings"

	"github.com/folio-docs/folio/analytics"
	"github.com/folio-docs/folio/components"
	"github.com/folio-docs/folio/model"
)

// DrainSettings sets a project's drain secret and Vercel verification
// code (analytics.Service), the one rule the CLI applies too.
type DrainSettings interface {
	DrainSettings(ctx context.Context, projectID string) (model.DrainSettings, error)
	SetDrainSecret(ctx context.Context, projectID, secret string) (string, error)
	RemoveDrainSecret(ctx context.Context, projectID string) error
	SetVercelVerify(ctx context.Context, projectID, code string) error
}

// drainNames are the platforms' names on the settings page.
var drainNames = map[string]string{analytics.DrainVercel: "Vercel", analytics.DrainNetlify: "Netlify", analytics.DrainCloudflare: "Cloudflare Logpush"}

// DrainUpdate saves a project's drain settings (action save), makes a new
// drain secret and shows it this once (new: the answer is the page, not a
// redirect, as for a key), or removes the secret (remove).
func (d *Dashboard) DrainUpdate(w http.ResponseWriter, r *http.Request) {
	p, ok := d.memberProject(w, r)
	if !ok {
		return
	}
	ctx := r.Context()
	var err error
	v := components.DrainsView{}
	switch r.PostFormValue("action") {
	case "save":
		code := strings.TrimSpace(r.PostFormValue("vercel_verify"))
		err = d.drains.SetVercelVerify(ctx, p.ID, code)
		if secret := r.PostFormValue("drain_secret"); err == nil && secret != "" {
			_, err = d.drains.SetDrainSecret(ctx, p.ID, secret)
		}
		v.VercelVerify = code
	case "new":
		v.NewSecret, err = d.drains.SetDrainSecret(ctx, p.ID, "")
	case "remove":
		err = d.drains.RemoveDrainSecret(ctx, p.ID)
	default:
		err = model.Invalid("", "Choose what to do with the drain settings: save, make a new secret or remove it.")
	}
	var fields model.FieldErrors
	if errors.As(err, &fields) {
		v.Errors = fields
		d.renderSettings(w, r, http.StatusUnprocessableEntity, p, components.SettingsView{Form: d.formOf(p), Drains: v})
		return
	}
	if err != nil {
		d.pageError(w, r, http.StatusInternalServerError, err)
		return
	}
	if v.NewSecret != "" {
		d.renderSettings(w, r, http.StatusOK, p, components.SettingsView{Form: d.formOf(p), Drains: v})
		return
	}
	d.flash(r, "Drain settings saved.")
	redirect(w, r, "/projects/"+p.ID+"#drains")
}

// drainsView completes a settings page's drains card with the project's
// drain URLs and stored settings; a code just refused stays as typed.
func (d *Dashboard) drainsView(ctx context.Context, projectID string, v components.DrainsView) (components.DrainsView, error) {
	s, err := d.drains.DrainSettings(ctx, projectID)
	if err != nil {
		return v, err
	}
	v.URLs = drainURLs(d.baseURL, projectID)
	v.SecretSet = s.Secret != ""
	if v.Errors.Of(analytics.FieldVercelVerify) == "" {
		v.VercelVerify = s.VercelVerify
	}
	return v, nil
}

// drainURLs are a project's drain URLs, one a platform.
func drainURLs(baseURL, projectID string) []components.DrainURL {
	var urls []components.DrainURL
	for _, provider := range analytics.DrainProviders {
		urls = append(urls, components.DrainURL{Provider: provider, Name: drainNames[provider],
			URL: strings.TrimSuffix(baseURL, "/") + "/v1/analytics/" + projectID + "/drains/" + provider})
	}
	return urls
}
