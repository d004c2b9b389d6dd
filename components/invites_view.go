package components

import (
	"net/url"
	"time"

	"github.com/folio-docs/folio/model"
)

// InvitesView is the invitations part of a project's members section.
type InvitesView struct {
	List     []model.Invitation
	NewLink  string // the link just made, shown this once
	NewEmail string
	Email    string // the form's value after a refusal
	Error    string
	Me       string // the signed-in user's id: their own row says Leave
	Signup   string // open, invite or closed
	Now      time.Time
}

// InviteSignup is the invitation a sign-up form was opened with.
type InviteSignup struct {
	Token   string
	Project string
	Inviter string // empty when an operator made the invitation
	Email   string
}

// InvitationJoinView offers the project of an invitation to someone who
// has an account: a join button when they are signed in, else a way to
// sign in first.
type InvitationJoinView struct {
	Invite   InviteSignup
	SignedIn bool
}

// invitationState is an invitation's state at now, for its badge.
func invitationState(i model.Invitation, now time.Time) string { return i.State(now) }

// inviter names who made an invitation.
func inviter(i model.Invitation) string {
	if i.InvitedBy == "" {
		return "an operator"
	}
	if i.InviterEmail == "" {
		return "a former member"
	}
	return i.InviterEmail
}

// joinNext is where signing in goes back to: the invitation's link, escaped
// for a query parameter.
func joinNext(token string) string {
	return url.QueryEscape("/signup?invite=" + url.QueryEscape(token))
}
