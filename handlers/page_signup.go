package handlers

import (
	"errors"
	"net/http"
	"net/mail"
	"strings"

	"github.com/folio-docs/folio/auth"
	"github.com/folio-docs/folio/components"
	"github.com/folio-docs/folio/db"
)

// SignupForm shows the sign-up form when the signup policy allows one.
func (d *Dashboard) SignupForm(w http.ResponseWriter, r *http.Request) {
	if _, ok := currentUser(r.Context()); ok {
		redirect(w, r, "/projects")
		return
	}
	v, err := d.signupView(r)
	if err != nil {
		d.pageError(w, r, http.StatusInternalServerError, err)
		return
	}
	d.render(w, r, http.StatusOK, components.SignupPage(d.shell(r, "Sign up"), v))
}

// Signup creates an account and signs it in: the first user always, later
// ones as FOLIO_SIGNUP allows.
func (d *Dashboard) Signup(w http.ResponseWriter, r *http.Request) {
	v, err := d.signupView(r)
	if err != nil {
		d.pageError(w, r, http.StatusInternalServerError, err)
		return
	}
	if v.Refusal != "" {
		d.render(w, r, http.StatusForbidden, components.SignupPage(d.shell(r, "Sign up"), v))
		return
	}
	v.Email = strings.TrimSpace(r.PostFormValue("email"))
	v.Errors = components.FormErrors{}
	if addr, err := mail.ParseAddress(v.Email); err != nil || addr.Address != v.Email || len(v.Email) > 254 {
		v.Errors["email"] = "Enter an email address, such as ada@example.com."
	}
	hash, err := auth.HashPassword(r.PostFormValue("password"))
	if err != nil {
		v.Errors["password"] = "The password must be at least 8 characters."
	}
	if !v.Errors.Has() {
		var u db.User
		u, err = d.store.CreateUser(r.Context(), v.Email, hash)
		switch {
		case errors.Is(err, db.ErrEmailTaken):
			v.Errors["email"] = "An account with this email exists. Sign in instead."
		case err != nil:
			d.pageError(w, r, http.StatusInternalServerError, err)
			return
		default:
			if err := d.signIn(r, u); err != nil {
				d.pageError(w, r, http.StatusInternalServerError, err)
				return
			}
			d.flash(r, "Welcome to Folio. Create a project to get started.")
			redirect(w, r, "/projects")
			return
		}
	}
	d.render(w, r, http.StatusUnprocessableEntity, components.SignupPage(d.shell(r, "Sign up"), v))
}

// signupView decides whether this request may sign up, and if not, why.
func (d *Dashboard) signupView(r *http.Request) (components.SignupView, error) {
	n, err := d.store.CountUsers(r.Context())
	if err != nil {
		return components.SignupView{}, err
	}
	v := components.SignupView{First: n == 0}
	switch {
	case v.First, d.signup == SignupOpen:
	case d.signup == SignupInvite:
		v.Refusal = "This Folio server is invite-only. Ask your operator for an account (folio user create); a project member can then add you to their project."
	default:
		v.Refusal = "Sign-up is closed on this Folio server. Ask your operator for an account."
	}
	return v, nil
}
