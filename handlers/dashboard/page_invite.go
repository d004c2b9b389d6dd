package dashboard

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/folio-docs/folio/components"
	"github.com/folio-docs/folio/model"
)

// InvitationService issues and redeems invitation links (accounts.Invitations).
type InvitationService interface {
	Create(ctx context.Context, projectID, email, invitedBy string) (string, model.Invitation, error)
	Lookup(ctx context.Context, token string) (model.Invitation, error)
	Accept(ctx context.Context, token string, u model.User) (model.Invitation, error)
	ForProject(ctx context.Context, projectID string) ([]model.Invitation, error)
	Revoke(ctx context.Context, projectID, id string) error
}

// invitationRefused renders why an invitation link cannot be used, or
// reports false when err is not such a reason. Under FOLIO_SIGNUP=closed an
// invitation cannot create an account (model.ErrSignupClosed); joining
// with an existing account still works.
func (d *Dashboard) invitationRefused(w http.ResponseWriter, r *http.Request, inv model.Invitation, err error) bool {
	v := components.ErrorView{Status: http.StatusGone}
	switch {
	case errors.Is(err, model.ErrNotFound):
		v.Status, v.Title = http.StatusNotFound, "This invitation link is not valid"
		v.Message = "Check that you opened the whole link. If it still fails, ask a project member for a new invitation."
	case errors.Is(err, model.ErrInvitationUsed):
		v.Title = "This invitation has been used"
		v.Message = "Each invitation link works once. If you used it, sign in; otherwise ask a member of " + inv.ProjectName + " for a new one."
	case errors.Is(err, model.ErrInvitationRevoked):
		v.Title = "This invitation was revoked"
		v.Message = "A member of " + inv.ProjectName + " withdrew it. Ask them for a new one if you still need access."
	case errors.Is(err, model.ErrInvitationExpired):
		v.Title = "This invitation has expired"
		v.Message = fmt.Sprintf("Invitations work for 7 days; this one expired on %s. Ask a member of %s for a new one.",
			inv.ExpiresAt.UTC().Format("2 Jan 2006"), inv.ProjectName)
	case errors.Is(err, model.ErrSignupClosed):
		v.Status, v.Title = http.StatusForbidden, "Sign-up is closed on this server"
		v.Message = "Accounts are created by your operator here. Ask them to create one for " + inv.Email +
			" (folio user create), then open this link again to join " + inv.ProjectName + "."
	case errors.Is(err, model.ErrInvitationEmail):
		u, _ := currentUser(r.Context())
		v.Status, v.Title = http.StatusForbidden, "This invitation is for someone else"
		v.Message = "It was made for " + inv.Email + ", and you are signed in as " + u.Email + ". Sign out, then open the link again."
	default:
		return false
	}
	d.render(w, r, v.Status, components.ErrorPage(d.shell(r, v.Title), v))
	return true
}

func inviteSignup(token string, inv model.Invitation) *components.InviteSignup {
	return &components.InviteSignup{Token: token, Project: inv.ProjectName, Inviter: inv.InviterEmail, Email: inv.Email}
}

// invitesView is the invitations part of a project's settings page.
func (d *Dashboard) invitesView(r *http.Request, projectID string, v components.InvitesView) (components.InvitesView, error) {
	list, err := d.invites.ForProject(r.Context(), projectID)
	if err != nil {
		return v, err
	}
	u, _ := currentUser(r.Context())
	v.List, v.Me, v.Signup, v.Now = list, u.ID, d.accounts.Signup(), time.Now()
	return v, nil
}
