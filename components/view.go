// Package components renders the dashboard's pages with templ. Components
// are given everything they show, in view types declared here that
// handlers/dashboard builds from what the services answer; they never
// query, and of Folio they import only model (and static's asset URLs).
package components

import (
	"fmt"
	"time"

	"github.com/folio-docs/folio/model"
)

// Shell is what every page's frame needs: who is signed in, which project
// and tab are open, and a one-time notice.
type Shell struct {
	Title   string
	User    string // the signed-in admin's email; empty when signed out
	Project *model.Project
	Tab     string // settings, keys, jobs, analytics or feedback
	Flash   string
}

// Project tabs.
const (
	TabSettings  = "settings"
	TabKeys      = "keys"
	TabJobs      = "jobs"
	TabAnalytics = "analytics"
)

// FormErrors are the fields a form was refused for, each with why; the
// field "" is the form as a whole.
type FormErrors = model.FieldErrors

// LoginView is the sign-in form.
type LoginView struct {
	Email      string
	Next       string
	Error      string
	CanSignUp  bool
	RetryAfter time.Duration
	Expired    bool // a form was posted after the session expired; it is kept
}

// SignupView is the sign-up form, or why there is none.
type SignupView struct {
	Email   string
	Errors  FormErrors
	First   bool   // no user exists yet: this one sets Folio up
	Refusal string // why sign-up is not possible; empty when it is
	Invite  *InviteSignup
}

// ProjectForm is a project's editable settings.
type ProjectForm struct {
	Name             string
	Repository       string
	Ref              string
	Model            string
	DefaultModel     string
	DraftPRs         bool
	WebhookURL       string
	WebhookSecretSet bool
	AllowedDomains   string
	Errors           FormErrors
}

// ProjectsView is the project list and the form that creates one.
type ProjectsView struct {
	Projects []model.Project
	Form     ProjectForm
}

// DrainsView is the drains card of a project's settings: where each
// hosting platform posts its request logs, whether the drain secret is
// set, and a secret Folio just made (shown this once).
type DrainsView struct {
	URLs         []DrainURL
	SecretSet    bool
	NewSecret    string
	VercelVerify string
	Errors       FormErrors
}

// replaceSecret is the confirmation a new drain secret asks for when it
// replaces one (none otherwise).
func replaceSecret(set bool) string {
	if set {
		return "Replace the drain secret? Deliveries signed with the current one are refused from now on."
	}
	return ""
}

// DrainURL is one platform's drain URL.
type DrainURL struct {
	Provider, Name, URL string
}

// SettingsView is a project's settings page.
type SettingsView struct {
	Form        ProjectForm
	Drains      DrainsView
	Members     []model.Member
	MemberEmail string
	MemberError string
	Signup      string // open, invite or closed: what to tell about unknown emails
	Deliveries  []model.WebhookDelivery
	Now         time.Time
	Invites     InvitesView
}

// KeysView is a project's API keys page.
type KeysView struct {
	ProjectID   string
	ProjectName string
	Keys        []model.APIKey
	// Access says, by key id, what each key opens and where from, in words.
	Access    map[string]KeyAccess
	NewKey    string // the key just issued, shown this once
	NewName   string
	KeyPrefix string // what every key starts with; the list shows it before a key's last four characters
	Form      KeyForm
	// Others are the signed-in user's other projects, which a key may open too.
	Others []ProjectChoice
	Now    time.Time
}

// KeyAccess is what a key opens (Projects) and the addresses it may be
// used from (IPs), as the keys list shows them.
type KeyAccess struct {
	Projects string
	IPs      string
}

// ProjectChoice is a project a form offers by name.
type ProjectChoice struct {
	ID, Name string
}

// KeyForm is the form that issues a key: for the page's project, the
// others chosen (Also) or all the user's (AllProjects), usable from the
// addresses AllowIPs lists (empty: any).
type KeyForm struct {
	Name        string
	Scope       string
	Expiry      string
	Also        []string
	AllProjects bool
	AllowIPs    string
	Errors      FormErrors
}

// KeyExpiries are the choices a key's lifetime offers, in order.
var KeyExpiries = []struct{ Value, Label string }{
	{"7d", "7 days"}, {"30d", "30 days"}, {"60d", "60 days"}, {"90d", "90 days"}, {"never", "Never"},
}

// ErrorView is an error page.
type ErrorView struct {
	Status    int
	Title     string
	Message   string
	RequestID string
}

func projectURL(p *model.Project, tab string) string {
	switch tab {
	case TabSettings:
		return "/projects/" + p.ID
	default:
		return "/projects/" + p.ID + "/" + tab
	}
}

// day formats a time as a date a person reads at a glance.
func day(t time.Time) string { return t.UTC().Format("2 Jan 2006") }

// stamp is the exact time, for a title attribute.
func stamp(t time.Time) string { return t.UTC().Format("2006-01-02 15:04 UTC") }

// ago says how long before now t was, coarsely.
func ago(t, now time.Time) string {
	d := now.Sub(t)
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return plural(int(d/time.Minute), "minute") + " ago"
	case d < 24*time.Hour:
		return plural(int(d/time.Hour), "hour") + " ago"
	case d < 30*24*time.Hour:
		return plural(int(d/(24*time.Hour)), "day") + " ago"
	}
	return day(t)
}

func plural(n int, unit string) string {
	if n == 1 {
		return "1 " + unit
	}
	return fmt.Sprintf("%d %ss", n, unit)
}

func initial(email string) string {
	if email == "" {
		return "?"
	}
	return string([]rune(email)[0:1])
}
