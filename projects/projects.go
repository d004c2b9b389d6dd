// Package projects creates and changes projects and their members, and
// decides what a valid project is. Its Validator checks a project's
// settings — name, repository, ref, model, webhook and the hosts allowed to
// send analytics — the same way for the dashboard, the operator's CLI and
// the API, and asks the code host whether the repository and the ref exist,
// so settings that cannot work are refused when they are made rather than
// when a job runs. Its Service is what the dashboard and the CLI call.
package projects

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"regexp"
	"strings"
	"time"

	"github.com/folio-docs/folio/codehost"
	"github.com/folio-docs/folio/codehost/hosts"
	"github.com/folio-docs/folio/model"
)

// Fields of a project, named as the dashboard's form names them.
const (
	FieldName          = "name"
	FieldRepository    = "repository"
	FieldRef           = "ref"
	FieldModel         = "model"
	FieldWebhookURL    = "webhook_url"
	FieldWebhookSecret = "webhook_secret"
)

// Validator checks projects.
type Validator struct {
	// Hosts reaches the code hosts to check that a repository and its ref
	// exist. Without a GitHub token a GitHub repository cannot be asked
	// about; it is then accepted (its jobs fail with config_missing).
	Hosts hosts.Config
	// Policy, if set, bounds the repositories admins may connect (the
	// dashboard). The operator's CLI has none: they already own the machine.
	Policy *codehost.Policy
	// AllowPrivateWebhooks accepts webhook URLs on loopback and private
	// networks (FOLIO_WEBHOOK_ALLOW_PRIVATE).
	AllowPrivateWebhooks bool
	// Timeout bounds the questions to the code host and DNS: 10s.
	Timeout time.Duration
}

var (
	gitRef    = regexp.MustCompile(`^[A-Za-z0-9._/-]{1,200}$`)
	modelName = regexp.MustCompile(`^[^\s]{1,200}$`)
)

// ValidRefName reports whether ref is a branch name Folio accepts: no
// spaces, no "..", nothing git could take for an option.
func ValidRefName(ref string) bool {
	return gitRef.MatchString(ref) && !strings.Contains(ref, "..") && !strings.HasPrefix(ref, "-") &&
		!strings.HasSuffix(ref, "/") && !strings.HasSuffix(ref, ".lock")
}

// Check validates p. old is the stored project (the zero Project for a new
// one): the repository policy applies to a repository that changes, and the
// code host is asked only when the repository or the ref changes. It
// returns every setting refused, named by the fields above; none when p
// is valid.
func (v Validator) Check(ctx context.Context, p, old model.Project) model.FieldErrors {
	var errs model.FieldErrors
	add := errs.Add
	if strings.TrimSpace(p.Name) == "" || len(p.Name) > 100 {
		add(FieldName, "Give the project a name of up to 100 characters.")
	}
	repoOK := false
	if _, _, err := codehost.ParseRepository(p.Repository); err != nil {
		add(FieldRepository, "Use owner/name for GitHub, or an absolute path or file:// URL of a local git repository.")
	} else if v.Policy != nil && p.Repository != old.Repository {
		if err := v.Policy.Allow(p.Repository); err != nil {
			add(FieldRepository, "This server does not allow that repository: %v.", err)
		} else {
			repoOK = true
		}
	} else {
		repoOK = true
	}
	refOK := ValidRefName(p.Ref)
	if !refOK {
		add(FieldRef, "Give a branch name, such as main.")
	}
	if p.Model != "" && !modelName.MatchString(p.Model) {
		add(FieldModel, "A model name has no spaces, such as gpt-4.1 or claude-sonnet-4-5.")
	}
	if p.WebhookURL != "" {
		if msg := v.checkWebhook(ctx, p.WebhookURL); msg != "" {
			add(FieldWebhookURL, "%s", msg)
		}
		if p.WebhookSecret == "" {
			add(FieldWebhookSecret, "Set a signing secret so the receiver can check deliveries come from Folio.")
		}
	}
	if repoOK && refOK && (p.Repository != old.Repository || p.Ref != old.Ref) {
		switch err := v.CheckRef(ctx, p.Repository, p.Ref); {
		case errors.Is(err, codehost.ErrRepositoryNotFound):
			add(FieldRepository, "There is no repository %s, or Folio's credentials cannot reach it.", p.Repository)
		case errors.Is(err, codehost.ErrRefNotFound):
			add(FieldRef, "The repository has no branch %q.", p.Ref)
		}
	}
	return errs
}

// CheckRef asks repo's code host whether the repository and branch ref
// exist: codehost.ErrRepositoryNotFound, codehost.ErrRefNotFound, nil, or
// another error when the host could not say (no token, unreachable).
func (v Validator) CheckRef(ctx context.Context, repo, ref string) error {
	if !ValidRefName(ref) {
		return codehost.ErrRefNotFound
	}
	h, err := v.Hosts.Open(repo)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, v.timeout())
	defer cancel()
	return h.CheckRef(ctx, ref)
}

func (v Validator) timeout() time.Duration {
	if v.Timeout > 0 {
		return v.Timeout
	}
	return 10 * time.Second
}

// checkWebhook says why a webhook URL cannot work, or "".
func (v Validator) checkWebhook(ctx context.Context, raw string) string {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" {
		return "Give an http:// or https:// URL, or leave it empty for no webhook."
	}
	if u.User != nil {
		return "Leave credentials out of the URL: deliveries are signed with the secret."
	}
	if v.AllowPrivateWebhooks {
		return ""
	}
	host := u.Hostname()
	if strings.EqualFold(host, "localhost") || strings.HasSuffix(strings.ToLower(host), ".localhost") {
		return "Folio does not deliver webhooks to this server itself or to private networks; give a public URL."
	}
	addrs := []netip.Addr{}
	if a, err := netip.ParseAddr(host); err == nil {
		addrs = append(addrs, a)
	} else {
		ctx, cancel := context.WithTimeout(ctx, v.timeout())
		defer cancel()
		// A name that does not resolve now may later: only what it
		// resolves to is judged. Delivery checks the address dialled again.
		ips, _ := net.DefaultResolver.LookupNetIP(ctx, "ip", host)
		addrs = append(addrs, ips...)
	}
	for _, a := range addrs {
		if !PublicAddr(a) {
			return fmt.Sprintf("%s is not a public address; Folio does not deliver webhooks to private networks. Give a public URL.", a)
		}
	}
	return ""
}

// cgnat is the shared address space of RFC 6598, private in all but name.
var cgnat = netip.MustParsePrefix("100.64.0.0/10")

// PublicAddr reports whether a is an address on the public internet: not
// loopback, private, link-local, shared or otherwise special.
func PublicAddr(a netip.Addr) bool {
	a = a.Unmap()
	return a.IsGlobalUnicast() && !a.IsPrivate() && !cgnat.Contains(a)
}
