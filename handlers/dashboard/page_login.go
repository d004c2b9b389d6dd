package dashboard

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/folio-docs/folio/components"
	"github.com/folio-docs/folio/handlers/httpx"
	"github.com/folio-docs/folio/model"
)

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
	limitKey, addressKey := httpx.ClientIP(r)+"|"+strings.ToLower(email), httpx.ClientIP(r)
	ok, wait := d.attempts.Allow(limitKey)
	if ok {
		ok, wait = d.addressAttempts.Allow(addressKey)
	}
	if !ok {
		httpx.SetRetryAfter(w, wait)
		v.Error = fmt.Sprintf("Too many failed sign-ins. Try again in %s.", waitText(wait))
		d.renderLogin(w, r, http.StatusTooManyRequests, v)
		return
	}
	u, err := d.accounts.SignIn(r.Context(), email, r.PostFormValue("password"))
	switch {
	case errors.Is(err, model.ErrNoMatch):
		d.attempts.Fail(limitKey)
		d.addressAttempts.Fail(addressKey)
		v.Error = "That email and password do not match an account."
		d.renderLogin(w, r, http.StatusUnauthorized, v)
		return
	case err != nil:
		d.pageError(w, r, http.StatusInternalServerError, err)
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
	_, err := d.accounts.MaySignUp(r.Context())
	v.CanSignUp = err == nil
	d.render(w, r, status, components.LoginPage(d.shell(r, "Sign in"), v))
}

func waitText(d time.Duration) string {
	if d < time.Minute {
		return "a minute"
	}
	return fmt.Sprintf("%d minutes", int((d+time.Minute-1)/time.Minute))
}
