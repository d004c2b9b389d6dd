package dashboard

import (
	"context"
	"errors"
	"net/http"
	"strings"

	"github.com/folio-docs/folio/components"
	"github.com/folio-docs/folio/model"
)

// ProjectService creates and changes projects and their members, with the
// checks of projects.Validator (projects.Service).
type ProjectService interface {
	ForMember(ctx context.Context, id, userID string) (model.Project, error)
	ForUser(ctx context.Context, userID string) ([]model.Project, error)
	Create(ctx context.Context, p model.Project) (model.Project, error)
	Update(ctx context.Context, old, p model.Project) (model.Project, error)
	Members(ctx context.Context, projectID string) ([]model.Member, error)
	AddMember(ctx context.Context, projectID, email string) (model.User, error)
	RemoveMember(ctx context.Context, projectID, userID string) (model.User, error)
}

// projectForm reads a project's fields from a posted form into p. Fields
// absent from the form (the create form has no webhook) leave p's value
// alone.
func projectForm(r *http.Request, p *model.Project) {
	has := func(name string) bool { _, ok := r.PostForm[name]; return ok }
	p.Name = strings.TrimSpace(r.PostFormValue("name"))
	p.Repository = strings.TrimSpace(r.PostFormValue("repository"))
	p.Ref = strings.TrimSpace(r.PostFormValue("ref"))
	if p.Ref == "" {
		p.Ref = "main"
	}
	if has("model") {
		p.Model = strings.TrimSpace(r.PostFormValue("model"))
	}
	if has("webhook_url") {
		p.DraftPRs = r.PostFormValue("draft_prs") == "on"
		p.WebhookURL = strings.TrimSpace(r.PostFormValue("webhook_url"))
		// An empty secret field keeps the stored secret: it is never sent back to the browser.
		if s := r.PostFormValue("webhook_secret"); s != "" {
			p.WebhookSecret = s
		}
	}
	if has("allowed_domains") {
		p.AllowedDomains = r.PostFormValue("allowed_domains")
	}
}

// projectErrors are the settings projects refused; none when err is no
// such refusal.
func projectErrors(err error) model.FieldErrors {
	var refused model.FieldErrors
	errors.As(err, &refused)
	return refused
}

// formOf is a project's settings as the form shows them.
func (d *Dashboard) formOf(p model.Project) components.ProjectForm {
	return components.ProjectForm{Name: p.Name, Repository: p.Repository, Ref: p.Ref, Model: p.Model, DefaultModel: d.defaultModel,
		DraftPRs: p.DraftPRs, WebhookURL: p.WebhookURL, WebhookSecretSet: p.WebhookSecret != "",
		AllowedDomains: strings.ReplaceAll(p.AllowedDomains, ",", "\n")}
}
