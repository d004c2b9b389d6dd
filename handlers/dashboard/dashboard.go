package dashboard

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/a-h/templ"
	"github.com/alexedwards/scs/v2"
	"github.com/gorilla/mux"

	"github.com/folio-docs/folio/auth"
	"github.com/folio-docs/folio/codehost"
	"github.com/folio-docs/folio/components"
	"github.com/folio-docs/folio/handlers/httpx"
	"github.com/folio-docs/folio/jobs"
	"github.com/folio-docs/folio/model"
)

// Store is the one read the dashboard makes beside the services:
// a project's webhook delivery log, a record with no rule to apply.
type Store interface {
	WebhookDeliveries(ctx context.Context, projectID string, limit int) ([]model.WebhookDelivery, error)
}

// KeyIssuer issues, lists and revokes the API keys that open a project
// (auth.Keys).
type KeyIssuer interface {
	Create(ctx context.Context, nk auth.NewKey) (string, model.APIKey, error)
	List(ctx context.Context, projectID string) ([]model.APIKey, error)
	Revoke(ctx context.Context, projectID, keyID string) error
}

// Accounts decides who may sign up and creates their accounts
// (accounts.Service).
type Accounts interface {
	Signup() string // the policy, FOLIO_SIGNUP
	MaySignUp(ctx context.Context) (first bool, err error)
	SignUp(ctx context.Context, email, password string) (model.User, error)
	SignUpInvited(ctx context.Context, token, password string) (model.User, model.Invitation, error)
	InvitedAccount(ctx context.Context, inv model.Invitation) (bool, error)
	SignIn(ctx context.Context, email, password string) (model.User, error)
	User(ctx context.Context, id string) (model.User, error)
}

// Jobs is what the job pages need of the jobs service (jobs.Service), the
// one the API calls too, so a page and the API launch, follow up, cancel,
// archive and merge alike.
type Jobs interface {
	// The jobs page: the list with each job's first prompt, and a launch.
	List(ctx context.Context, projectID string, status model.JobStatus, limit, offset int) ([]model.Job, bool, error)
	FirstPrompts(ctx context.Context, list []model.Job) (map[string]string, error)
	Create(ctx context.Context, projectID, prompt, idempotencyKey string) (jobs.Created, error)
	// A job's page: the job, its conversation and live feed, and its forms.
	Get(ctx context.Context, projectID, id string) (model.Job, error)
	Messages(ctx context.Context, projectID, id string) ([]jobs.Message, error)
	httpx.JobEventSource
	Message(ctx context.Context, projectID, id, prompt string) (jobs.Created, error)
	Cancel(ctx context.Context, projectID, id string) (model.Job, error)
	Archive(ctx context.Context, projectID, id string) (model.Job, error)
	// The review page: the branch against its ref, and the merge.
	Changes(ctx context.Context, projectID, id string) (codehost.Changes, model.Job, error)
	Merge(ctx context.Context, projectID, id string) (model.Job, error)
}

// Dashboard serves the pages project admins use, signed in with a session
// cookie.
type Dashboard struct {
	store        Store
	keys         KeyIssuer
	jobs         Jobs // nil in a process without Redis: the job pages are not mounted
	sessions     *scs.SessionManager
	attempts     *httpx.SignInLimiter
	accounts     Accounts
	defaultModel string
	log          *slog.Logger
	csrf         *http.CrossOriginProtection
	analytics    AnalyticsReporter
	baseURL      string
	projects     ProjectService
	// addressAttempts caps failed sign-ins per IP address across emails.
	addressAttempts *httpx.SignInLimiter
	invites         InvitationService
	drains          DrainSettings
	feedback        FeedbackReview
	eventKeepAlive  time.Duration // of the job pages' event streams
}

// Config is what the dashboard is built from.
type Config struct {
	Store        Store
	Keys         KeyIssuer
	Jobs         Jobs
	Sessions     *scs.SessionManager
	Attempts     *httpx.SignInLimiter
	Accounts     Accounts
	DefaultModel string // FOLIO_MODEL, shown where a project has none
	Log          *slog.Logger
	Analytics    AnalyticsReporter
	BaseURL      string // FOLIO_BASE_URL, for the snippets pages hand out
	Projects     ProjectService
	Invites      InvitationService
	Drains       DrainSettings
	Feedback     FeedbackReview
	// EventKeepAlive is how often a job page's event stream says it is
	// alive (DefaultKeepAlive if zero).
	EventKeepAlive time.Duration
}

// New builds the dashboard's handlers.
func New(c Config) *Dashboard {
	d := &Dashboard{store: c.Store, keys: c.Keys, jobs: c.Jobs, sessions: c.Sessions, attempts: c.Attempts,
		accounts: c.Accounts, defaultModel: c.DefaultModel, log: c.Log, csrf: http.NewCrossOriginProtection(),
		analytics: c.Analytics, baseURL: c.BaseURL, invites: c.Invites, projects: c.Projects, drains: c.Drains, feedback: c.Feedback, eventKeepAlive: c.EventKeepAlive}
	if d.eventKeepAlive <= 0 {
		d.eventKeepAlive = httpx.DefaultKeepAlive
	}
	d.addressAttempts = httpx.NewSignInLimiter(5*c.Attempts.Max, c.Attempts.Window)
	d.csrf.SetDenyHandler(http.HandlerFunc(d.crossOriginRefused))
	return d
}

// render writes a page. Pages are per user and may hold a key shown once,
// so nothing caches them.
func (d *Dashboard) render(w http.ResponseWriter, r *http.Request, status int, c templ.Component) {
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	if err := c.Render(r.Context(), w); err != nil {
		if httpx.ClientGone(r) {
			httpx.LogClientGone(r, err)
			return
		}
		httpx.Logger(r.Context()).Error("render page", "request_id", httpx.RequestID(r.Context()), "path", r.URL.Path, "err", err)
	}
}

// shell is the frame of a page for the request's user.
func (d *Dashboard) shell(r *http.Request, title string) components.Shell {
	s := components.Shell{Title: title, Flash: d.sessions.PopString(r.Context(), flashKey)}
	if u, ok := currentUser(r.Context()); ok {
		s.User = u.Email
	}
	return s
}

// projectShell is the frame of a page inside a project.
func (d *Dashboard) projectShell(r *http.Request, p model.Project, tab, title string) components.Shell {
	s := d.shell(r, title+" · "+p.Name)
	s.Project, s.Tab = &p, tab
	return s
}

// flash leaves a notice for the next page the user sees.
func (d *Dashboard) flash(r *http.Request, msg string) { d.sessions.Put(r.Context(), flashKey, msg) }

// redirect answers a form post with 303 See Other, so reloading the next
// page does not post again.
func redirect(w http.ResponseWriter, r *http.Request, to string) {
	http.Redirect(w, r, to, http.StatusSeeOther) // #nosec G710 -- every caller passes a path of this site: built from ids, or a ?next= that localPath kept local
}

// pageError renders an error page; a 500 logs its cause and shows only the
// request id. A failure met because the client went away is a 400.
func (d *Dashboard) pageError(w http.ResponseWriter, r *http.Request, status int, err error) {
	if status >= 500 && httpx.ClientGone(r) {
		httpx.LogClientGone(r, err)
		status = http.StatusBadRequest
	}
	v := components.ErrorView{Status: status}
	switch status {
	case http.StatusBadRequest:
		v.Title, v.Message = "Incomplete request", "The form did not arrive in full. Go back and submit it again."
	case http.StatusRequestEntityTooLarge:
		v.Title, v.Message = "Form too large", fmt.Sprintf("A form may carry at most %d bytes.", httpx.MaxBodyBytes)
	case http.StatusNotFound:
		v.Title, v.Message = "Page not found", "There is nothing here, or it belongs to a project you are not a member of."
	case http.StatusForbidden:
		v.Title, v.Message = "Request refused", "This form was posted from another site. Go back to Folio, reload the page and try again."
	default:
		v.Status, v.RequestID = http.StatusInternalServerError, httpx.RequestID(r.Context())
		v.Title, v.Message = "Something went wrong", "Folio could not complete this request. Try again; if it keeps failing, give your operator the request id."
		httpx.Logger(r.Context()).Error("internal error", "request_id", v.RequestID, "method", r.Method, "path", r.URL.Path, "err", err)
	}
	d.render(w, r, v.Status, components.ErrorPage(d.shell(r, v.Title), v))
}

// memberProject loads the project in the path if the signed-in user is a
// member of it. Anyone else gets 404, as for a project that does not exist.
func (d *Dashboard) memberProject(w http.ResponseWriter, r *http.Request) (model.Project, bool) {
	u, _ := currentUser(r.Context())
	p, err := d.projects.ForMember(r.Context(), mux.Vars(r)["id"], u.ID)
	if errors.Is(err, model.ErrNotFound) {
		d.pageError(w, r, http.StatusNotFound, nil)
		return model.Project{}, false
	}
	if err != nil {
		d.pageError(w, r, http.StatusInternalServerError, err)
		return model.Project{}, false
	}
	return p, true
}
