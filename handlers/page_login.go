package handlers

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/folio-docs/folio/auth"
	"github.com/folio-docs/folio/components"
	"github.com/folio-docs/folio/db"
)

// dummyHash is checked against when the email is unknown, so a wrong email
// takes as long as a wrong password and does not reveal who has an account.
const dummyHash = "$argon2id$v=19$m=19456,t=2,p=1$c29tZXNhbHRzb21lc2FsdA$Vo3JqPfHSl0b6qnvRjZ+0R3n5dHdlMv/l9KvI7C5dXk"

// LoginForm shows the sign-in form; a signed-in admin goes to the projects.
func (d *Dashboard) LoginForm(w http.ResponseWriter, r *http.Request) {
	if _, ok := currentUser(r.Context()); ok {
		redirect(w, r, localPath(r.URL.Query().Get("next"), "/projects"))
		return
	}
	d.renderLogin(w, r, http.StatusOK, components.LoginView{Next: r.URL.Query().Get("next"), Expired: d.hasKeptForm(r)})
}

// Login checks an email and password and starts a session. Failures are
// counted per IP address and email, and per IP address alone (a wider cap,
// so guessing across many emails from one address is bounded too); too many
// are refused for a while.
func (d *Dashboard) Login(w http.ResponseWriter, r *http.Request) {
	email := strings.TrimSpace(r.PostFormValue("email"))
	v := components.LoginView{Email: email, Next: r.PostFormValue("next"), Expired: d.hasKeptForm(r)}
	limitKey, addressKey := clientIP(r)+"|"+strings.ToLower(email), clientIP(r)
	ok, wait := d.attempts.Allow(limitKey)
	if ok {
		ok, wait = d.addressAttempts.Allow(addressKey)
	}
	if !ok {
		w.Header().Set("Retry-After", fmt.Sprint(int(wait.Round(time.Second).Seconds())))
		v.Error = fmt.Sprintf("Too many failed sign-ins. Try again in %s.", waitText(wait))
		d.renderLogin(w, r, http.StatusTooManyRequests, v)
		return
	}
	u, err := d.store.UserByEmail(r.Context(), email)
	hash := u.PasswordHash
	if errors.Is(err, db.ErrNotFound) {
		hash = dummyHash
	} else if err != nil {
		d.pageError(w, r, http.StatusInternalServerError, err)
		return
	}
	// Each check holds ~19 MiB for argon2id: a few at a time bounds memory.
	d.hashing <- struct{}{}
	match, err := auth.CheckPassword(hash, r.PostFormValue("password"))
	<-d.hashing
	if err != nil || !match || u.ID == "" {
		d.attempts.Fail(limitKey)
		d.addressAttempts.Fail(addressKey)
		v.Error = "That email and password do not match an account."
		d.renderLogin(w, r, http.StatusUnauthorized, v)
		return
	}
	d.attempts.Reset(limitKey)
	if err := d.signIn(r, u); err != nil {
		d.pageError(w, r, http.StatusInternalServerError, err)
		return
	}
	redirect(w, r, localPath(v.Next, "/projects"))
}

func (d *Dashboard) renderLogin(w http.ResponseWriter, r *http.Request, status int, v components.LoginView) {
	v.CanSignUp = d.signup == SignupOpen
	if n, err := d.store.CountUsers(r.Context()); err == nil && n == 0 {
		v.CanSignUp = true
	}
	d.render(w, r, status, components.LoginPage(d.shell(r, "Sign in"), v))
}

func waitText(d time.Duration) string {
	if d < time.Minute {
		return "a minute"
	}
	return fmt.Sprintf("%d minutes", int((d+time.Minute-1)/time.Minute))
}
