package dashboard

import (
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/folio-docs/folio/components"
	"github.com/folio-docs/folio/model"
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
			d.invitationRefused(w, r, inv, model.ErrInvitationEmail)
			return
		}
		d.render(w, r, http.StatusOK, components.InvitationJoinPage(d.shell(r, "Join "+inv.ProjectName), components.InvitationJoinView{Invite: *invite, SignedIn: true}))
		return
	}
	exists, err := d.accounts.InvitedAccount(r.Context(), inv)
	switch {
	case exists:
		d.render(w, r, http.StatusOK, components.InvitationJoinPage(d.shell(r, "Join "+inv.ProjectName), components.InvitationJoinView{Invite: *invite}))
	case err == nil:
		d.render(w, r, http.StatusOK, components.SignupPage(d.shell(r, "Sign up"), components.SignupView{Invite: invite}))
	case !d.invitationRefused(w, r, inv, err):
		d.pageError(w, r, http.StatusInternalServerError, err)
	}
}

// Signup creates an account and signs it in: with an invitation, the
// invited address, as a member of its project; without one, as the
// sign-up policy allows (accounts.Service.SignUp).
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
	u, err := d.accounts.SignUp(r.Context(), v.Email, r.PostFormValue("password"))
	if err == nil {
		d.welcome(w, r, u, "Welcome to Folio. Create a project to get started.", "/projects")
		return
	}
	if refusal := refusal(err); refusal != "" {
		v.First, v.Refusal = false, refusal
		d.render(w, r, http.StatusForbidden, components.SignupPage(d.shell(r, "Sign up"), v))
		return
	}
	if v.Errors = accountErrors(err, "An account with this email exists. Sign in instead."); len(v.Errors) > 0 {
		d.render(w, r, http.StatusUnprocessableEntity, components.SignupPage(d.shell(r, "Sign up"), v))
		return
	}
	d.pageError(w, r, http.StatusInternalServerError, err)
}

// signupInvited creates the account an invitation is for; the email is the
// invitation's, whatever the form says.
func (d *Dashboard) signupInvited(w http.ResponseWriter, r *http.Request, token string) {
	u, inv, err := d.accounts.SignUpInvited(r.Context(), token, r.PostFormValue("password"))
	switch {
	case err == nil:
		d.welcome(w, r, u, "Welcome to Folio. You are a member of "+inv.ProjectName+".", "/projects/"+inv.ProjectID)
	case d.invitationRefused(w, r, inv, err):
	case len(accountErrors(err, "")) > 0:
		v := components.SignupView{Invite: inviteSignup(token, inv),
			Errors: accountErrors(err, "An account with this email exists. Sign in, then open the link again.")}
		d.render(w, r, http.StatusUnprocessableEntity, components.SignupPage(d.shell(r, "Sign up"), v))
	default:
		d.pageError(w, r, http.StatusInternalServerError, err)
	}
}

// accountErrors are the form's messages for why accounts refused an email
// address or password; taken is what to say of an address with an account.
func accountErrors(err error, taken string) model.FieldErrors {
	switch {
	case errors.Is(err, model.ErrInvalidEmail):
		return model.Invalid("email", "Enter an email address, such as ada@example.com.")
	case errors.Is(err, model.ErrEmailTaken):
		return model.Invalid("email", taken)
	case errors.Is(err, model.ErrPasswordTooShort):
		return model.Invalid("password", fmt.Sprintf("The password must be at least %d characters.", model.MinPasswordLen))
	}
	return nil
}

// welcome signs a new account in and sends it on.
func (d *Dashboard) welcome(w http.ResponseWriter, r *http.Request, u model.User, msg, to string) {
	if err := d.signIn(r, u); err != nil {
		d.pageError(w, r, http.StatusInternalServerError, err)
		return
	}
	d.flash(r, msg)
	redirect(w, r, to)
}

// signupView is the sign-up form for a stranger, or why there is none.
func (d *Dashboard) signupView(r *http.Request) (components.SignupView, error) {
	first, err := d.accounts.MaySignUp(r.Context())
	if msg := refusal(err); msg != "" {
		return components.SignupView{Refusal: msg}, nil
	}
	return components.SignupView{First: first}, err
}

// refusal says why an uninvited stranger cannot sign up, or "" when err is
// no such reason.
func refusal(err error) string {
	switch {
	case errors.Is(err, model.ErrSignupClosed):
		return "Sign-up is closed on this Folio server: accounts are created by your operator. Once you have one, a project member's invitation link adds you to their project."
	case errors.Is(err, model.ErrInviteOnly):
		return "This Folio server is invite-only. Ask a member of your team's project for an invitation link."
	}
	return ""
}
