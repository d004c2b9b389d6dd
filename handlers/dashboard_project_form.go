package handlers

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"

	"github.com/folio-docs/folio/codehost"
	"github.com/folio-docs/folio/components"
	"github.com/folio-docs/folio/db"
)

var (
	gitRef   = regexp.MustCompile(`^[A-Za-z0-9._/-]{1,200}$`)
	hostname = regexp.MustCompile(`^(\*\.)?([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)*[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(:[0-9]{1,5})?$`)
)

// RepositoryPolicy says which repositories admins may connect (see
// codehost.Policy): nil, or an error that says why not.
type RepositoryPolicy interface {
	Allow(repo string) error
}

// projectForm reads a project's fields from a posted form into p and says
// which are wrong. Fields absent from the form (the create form has no
// webhook) leave p's value alone. A repository that changes must pass repos.
func projectForm(r *http.Request, p *db.Project, repos RepositoryPolicy) components.FormErrors {
	errs := components.FormErrors{}
	has := func(name string) bool { _, ok := r.PostForm[name]; return ok }
	p.Name = strings.TrimSpace(r.PostFormValue("name"))
	if p.Name == "" || len(p.Name) > 100 {
		errs["name"] = "Give the project a name of up to 100 characters."
	}
	old := p.Repository
	p.Repository = strings.TrimSpace(r.PostFormValue("repository"))
	if _, _, err := codehost.ParseRepository(p.Repository); err != nil {
		errs["repository"] = "Use owner/name for GitHub, or an absolute path or file:// URL of a local git repository."
	} else if p.Repository != old {
		if err := repos.Allow(p.Repository); err != nil {
			errs["repository"] = "This server does not allow that repository: " + err.Error() + "."
		}
	}
	p.Ref = strings.TrimSpace(r.PostFormValue("ref"))
	if p.Ref == "" {
		p.Ref = "main"
	}
	if !gitRef.MatchString(p.Ref) || strings.Contains(p.Ref, "..") || strings.HasPrefix(p.Ref, "-") {
		errs["ref"] = "Give a branch name, such as main."
	}
	if has("model") {
		p.Model = strings.TrimSpace(r.PostFormValue("model"))
		if len(p.Model) > 200 || strings.ContainsAny(p.Model, " \t\r\n") {
			errs["model"] = "A model name has no spaces, such as gpt-4.1 or claude-sonnet-4-5."
		}
	}
	if has("webhook_url") {
		p.DraftPRs = r.PostFormValue("draft_prs") == "on"
		p.WebhookURL = strings.TrimSpace(r.PostFormValue("webhook_url"))
		if p.WebhookURL != "" {
			if u, err := url.Parse(p.WebhookURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
				errs["webhook_url"] = "Give an http:// or https:// URL, or leave it empty for no webhook."
			}
		}
		// An empty secret field keeps the stored secret: it is never sent back to the browser.
		if s := r.PostFormValue("webhook_secret"); s != "" {
			p.WebhookSecret = s
		}
		if p.WebhookURL != "" && p.WebhookSecret == "" {
			errs["webhook_secret"] = "Set a signing secret so the receiver can check deliveries come from Folio."
		}
	}
	if has("allowed_domains") {
		domains, bad := parseDomains(r.PostFormValue("allowed_domains"))
		p.AllowedDomains = strings.Join(domains, ",")
		if bad != "" {
			errs["allowed_domains"] = "“" + bad + "” is not a host name, such as docs.example.com or *.example.com."
		}
	}
	return errs
}

// parseDomains splits a list of hosts on commas and whitespace, lower-cases
// them and drops repeats; bad is the first that is not a host name.
func parseDomains(s string) (domains []string, bad string) {
	seen := map[string]bool{}
	for _, f := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' || r == '\n' || r == '\r' || r == '\t' }) {
		h := strings.ToLower(f)
		if !hostname.MatchString(h) {
			if bad == "" {
				bad = f
			}
			continue
		}
		if !seen[h] {
			seen[h] = true
			domains = append(domains, h)
		}
	}
	return domains, bad
}

// formOf is a project's settings as the form shows them.
func (d *Dashboard) formOf(p db.Project) components.ProjectForm {
	return components.ProjectForm{Name: p.Name, Repository: p.Repository, Ref: p.Ref, Model: p.Model, DefaultModel: d.defaultModel,
		DraftPRs: p.DraftPRs, WebhookURL: p.WebhookURL, WebhookSecretSet: p.WebhookSecret != "",
		AllowedDomains: strings.ReplaceAll(p.AllowedDomains, ",", "\n")}
}
