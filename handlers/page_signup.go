package handlers

import (
	"errors"
	"net/http"
	"strings"

	"github.com/folio-docs/folio/auth"
	"github.com/folio-docs/folio/components"
	"github.com/folio-docs/folio/db"
)

// SignupForm shows the sign-up form when the signup policy allows one, or
// when the link carries a usable invitation.
func (d *Dashboard) SignupForm(w http.ResponseWriter, r *http.Request) {
	if token := r.URL.Query().Get("invite"); token != "" {
		d.invitedForm(w, r, token)
		return
	}
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

// invitedForm answers an invitation link: the sign-up form for its email
// address, or, for someone who has an account, the project to join.
func (d *Dashboard) invitedForm(w http.ResponseWriter, r *http.Request, token string) {
	inv, err := d.invites.Lookup(r.Context(), token)
	if err != nil {
		if !d.invitationRefused(w, r, inv, err) {
			d.pageError(w, r, http.StatusInternalServerError, err)
		}
		return
	}
	invite := inviteSignup(token, inv)
	if u, ok := currentUser(r.Context()); ok {
		if !strings.EqualFold(u.Email, inv.Email) {
			d.invitationRefused(w, r, inv, db.ErrInvitationEmail)
			return
		}
		d.render(w, r, http.StatusOK, components.InvitationJoinPage(d.shell(r, "Join "+inv.ProjectName), components.InvitationJoinView{Invite: *invite, SignedIn: true}))
		return
	}
	_, err = d.store.UserByEmail(r.Context(), inv.Email)
	switch {
	case err == nil:
		d.render(w, r, http.StatusOK, components.InvitationJoinPage(d.shell(r, "Join "+inv.ProjectName), components.InvitationJoinView{Invite: *invite}))
	case errors.Is(err, db.ErrNotFound) && d.signup == SignupClosed:
		d.invitationRefused(w, r, inv, errSignupClosed)
	case errors.Is(err, db.ErrNotFound):
		d.render(w, r, http.StatusOK, components.SignupPage(d.shell(r, "Sign up"), components.SignupView{Invite: invite}))
	default:
		d.pageError(w, r, http.StatusInternalServerError, err)
	}
}

// Signup creates an account and signs it in: with an invitation, the
// invited address, as a member of its project; without one, the first user
// always and later ones as FOLIO_SIGNUP allows.
func (d *Dashboard) Signup(w http.ResponseWriter, r *http.Request) {
	if token := r.PostFormValue("invite"); token != "" {
		d.signupInvited(w, r, token)
		return
	}
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
	if !auth.ValidEmail(v.Email) {
		v.Errors["email"] = "Enter an email address, such as ada@example.com."
	}
	hash, err := auth.HashPassword(r.PostFormValue("password"))
	if err != nil {
		v.Errors["password"] = "The password must be at least 8 characters."
	}
	if v.Errors.Has() {
		d.render(w, r, http.StatusUnprocessableEntity, components.SignupPage(d.shell(r, "Sign up"), v))
		return
	}
	// Only the first user may sign up uninvited unless sign-up is open; the
	// store decides "first" atomically, so two at once cannot both be.
	create := d.store.CreateFirstUser
	if d.signup == SignupOpen {
		create = d.store.CreateUser
	}
	u, err := create(r.Context(), v.Email, hash)
	switch {
	case errors.Is(err, db.ErrNotFirstUser):
		v.First, v.Refusal = false, d.refusal()
		d.render(w, r, http.StatusForbidden, components.SignupPage(d.shell(r, "Sign up"), v))
	case errors.Is(err, db.ErrEmailTaken):
		v.Errors["email"] = "An account with this email exists. Sign in instead."
		d.render(w, r, http.StatusUnprocessableEntity, components.SignupPage(d.shell(r, "Sign up"), v))
	case err != nil:
		d.pageError(w, r, http.StatusInternalServerError, err)
	default:
		d.welcome(w, r, u, "Welcome to Folio. Create a project to get started.", "/projects")
	}
}

// signupInvited creates the account an invitation is for; the email is the
// invitation's, whatever the form says.
func (d *Dashboard) signupInvited(w http.ResponseWriter, r *http.Request, token string) {
	if d.signup == SignupClosed {
		inv, err := d.invites.Lookup(r.Context(), token)
		if err == nil {
			err = errSignupClosed
		}
		if !d.invitationRefused(w, r, inv, err) {
			d.pageError(w, r, http.StatusInternalServerError, err)
		}
		return
	}
	u, inv, err := d.invites.SignUp(r.Context(), token, r.PostFormValue("password"))
	switch {
	case err == nil:
		d.welcome(w, r, u, "Welcome to Folio. You are a member of "+inv.ProjectName+".", "/projects/"+inv.ProjectID)
	case d.invitationRefused(w, r, inv, err):
	case errors.Is(err, auth.ErrPasswordTooShort), errors.Is(err, db.ErrEmailTaken):
		v := components.SignupView{Invite: inviteSignup(token, inv), Errors: components.FormErrors{}}
		if errors.Is(err, db.ErrEmailTaken) {
			v.Errors["email"] = "An account with this email exists. Sign in, then open the link again."
		} else {
			v.Errors["password"] = "The password must be at least 8 characters."
		}
		d.render(w, r, http.StatusUnprocessableEntity, components.SignupPage(d.shell(r, "Sign up"), v))
	default:
		d.pageError(w, r, http.StatusInternalServerError, err)
	}
}

// welcome signs a new account in and sends it on.
func (d *Dashboard) welcome(w http.ResponseWriter, r *http.Request, u db.User, msg, to string) {
	if err := d.signIn(r, u); err != nil {
		d.pageError(w, r, http.StatusInternalServerError, err)
		return
	}
	d.flash(r, msg)
	redirect(w, r, to)
}

// signupView decides whether this request may sign up uninvited, and if
// not, why. The store has the last word on who is first (CreateFirstUser).
func (d *Dashboard) signupView(r *http.Request) (components.SignupView, error) {
	n, err := d.store.CountUsers(r.Context())
	if err != nil {
		return components.SignupView{}, err
	}
	v := components.SignupView{First: n == 0}
	if !v.First && d.signup != SignupOpen {
		v.Refusal = d.refusal()
	}
	return v, nil
}

// refusal says why an uninvited stranger cannot sign up.
func (d *Dashboard) refusal() string {
	if d.signup == SignupClosed {
		return "Sign-up is closed on this Folio server: accounts are created by your operator. Once you have one, a project member's invitation link adds you to their project."
	}
	return "This Folio server is invite-only. Ask a member of your team's project for an invitation link."
}
