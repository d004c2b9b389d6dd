package main

import (
	"net/http"
	"strings"
	"time"

	"github.com/alexedwards/scs/sqlite3store"
	"github.com/alexedwards/scs/v2"
	"github.com/gorilla/mux"

	"github.com/folio-docs/folio/handlers/dashboard"
	"github.com/folio-docs/folio/handlers/httpx"
	"github.com/folio-docs/folio/static"
)

// Sign-in attempts allowed per IP address and email before a pause.
const (
	signInFailures = 10
	signInWindow   = 15 * time.Minute
)

// newSessions keeps dashboard sessions in SQLite (the sessions table of our
// migrations), in a cookie that scripts cannot read and other sites do not
// send with their requests.
func (a *app) newSessions() *scs.SessionManager {
	s := scs.New()
	s.Store = sqlite3store.NewWithCleanupInterval(a.db.SessionStore(), 30*time.Minute)
	s.Lifetime = 30 * 24 * time.Hour
	s.IdleTimeout = 7 * 24 * time.Hour
	s.Cookie.Name = "folio_session"
	s.Cookie.HttpOnly = true
	s.Cookie.SameSite = http.SameSiteLaxMode
	s.Cookie.Secure = strings.HasPrefix(a.cfg.BaseURL, "https://")
	s.Cookie.Path = "/"
	s.ErrorFunc = dashboard.SessionStoreError
	return s
}

// dashboardRoutes mounts the dashboard (CONTRACT §6): the pages, their
// static files, and an HTML 404 for browsers outside the API.
func (a *app) dashboardRoutes(r *mux.Router) {
	sessions := a.newSessions()
	d := dashboard.New(dashboard.Config{
		Store: a.db, Keys: a.keys, Jobs: a.jobs, Sessions: sessions,
		Attempts: httpx.NewSignInLimiter(signInFailures, signInWindow),
		Accounts: a.accounts, DefaultModel: a.cfg.Model, Log: a.log,
		Analytics: a.analytics, BaseURL: a.cfg.BaseURL,
		Projects: a.adminProjects, Invites: a.invitations, Drains: a.analytics, Feedback: a.analytics,
		EventKeepAlive: a.cfg.EventKeepAlive,
	})
	r.PathPrefix("/static/").Handler(static.Handler()).Methods(http.MethodGet, http.MethodHead)
	// Pages link their icon; this answers clients that ask the old way.
	r.Handle("/favicon.ico", http.RedirectHandler(static.URL("favicon.svg"), http.StatusMovedPermanently)).Methods(http.MethodGet, http.MethodHead)

	get := []string{http.MethodGet, http.MethodHead}
	pages := r.NewRoute().Subrouter()
	pages.Use(httpx.LimitBody, sessions.LoadAndSave, d.Protect)

	public := pages.NewRoute().Subrouter()
	public.Use(d.LoadUser)
	public.HandleFunc("/login", d.LoginForm).Methods(get...)
	public.HandleFunc("/login", d.Login).Methods(http.MethodPost)
	public.HandleFunc("/signup", d.SignupForm).Methods(get...)
	public.HandleFunc("/signup", d.Signup).Methods(http.MethodPost)
	public.HandleFunc("/logout", d.LogoutForm).Methods(get...)
	public.HandleFunc("/logout", d.Logout).Methods(http.MethodPost)
	public.HandleFunc("/docs/api", d.APIDocs).Methods(get...)

	admin := pages.NewRoute().Subrouter()
	admin.Use(d.RequireUser)
	admin.HandleFunc("/", d.Home).Methods(get...)
	admin.HandleFunc("/projects", d.Projects).Methods(get...)
	admin.HandleFunc("/projects", d.ProjectCreate).Methods(http.MethodPost)
	admin.HandleFunc("/projects/{id}", d.ProjectSettings).Methods(get...)
	admin.HandleFunc("/projects/{id}", d.ProjectUpdate).Methods(http.MethodPost)
	admin.HandleFunc("/projects/{id}/members", d.MemberAdd).Methods(http.MethodPost)
	admin.HandleFunc("/projects/{id}/drains", d.DrainUpdate).Methods(http.MethodPost)
	admin.HandleFunc("/projects/{id}/keys", d.Keys).Methods(get...)
	admin.HandleFunc("/projects/{id}/keys", d.KeyCreate).Methods(http.MethodPost)
	admin.HandleFunc("/projects/{id}/keys/{keyId}/revoke", d.KeyRevoke).Methods(http.MethodPost)

	if a.jobs != nil { // agent jobs need the queue (Redis)
		job := "/projects/{id}/jobs/{jobId}"
		admin.HandleFunc("/projects/{id}/jobs", d.Jobs).Methods(get...)
		admin.HandleFunc("/projects/{id}/jobs", d.JobCreate).Methods(http.MethodPost)
		admin.HandleFunc(job, d.Job).Methods(get...)
		admin.HandleFunc(job+"/events", d.JobEvents).Methods(get...)
		admin.HandleFunc(job+"/message", d.JobMessage).Methods(http.MethodPost)
		admin.HandleFunc(job+"/archive", d.JobArchive).Methods(http.MethodPost)
		admin.HandleFunc(job+"/cancel", d.JobCancel).Methods(http.MethodPost)
		admin.HandleFunc(job+"/changes", d.JobChanges).Methods(get...)
		admin.HandleFunc(job+"/merge", d.JobMerge).Methods(http.MethodPost)
	}

	// Members and invitations: an invitation link opens /signup?invite=…
	admin.HandleFunc("/projects/{id}/members/{userId}/remove", d.MemberRemove).Methods(http.MethodPost)
	admin.HandleFunc("/projects/{id}/invitations", d.InvitationCreate).Methods(http.MethodPost)
	admin.HandleFunc("/projects/{id}/invitations/{invitationId}/revoke", d.InvitationRevoke).Methods(http.MethodPost)
	admin.HandleFunc("/invitations/accept", d.InvitationAccept).Methods(http.MethodPost)

	// Analytics (CONTRACT §6): the range is in the query, so it is a link.
	admin.HandleFunc("/projects/{id}/analytics", d.Analytics).Methods(get...)
	// Feedback: readers' feedback and its review (CONTRACT §3).
	admin.HandleFunc("/projects/{id}/feedback", d.Feedback).Methods(get...)
	admin.HandleFunc("/projects/{id}/feedback/{feedbackId}/status", d.FeedbackStatus).Methods(http.MethodPost)

	r.NotFoundHandler = d.NotFound(r.NotFoundHandler)
}
