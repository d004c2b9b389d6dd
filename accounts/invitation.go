package accounts

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/folio-docs/folio/auth"
	"github.com/folio-docs/folio/model"
)

// InvitationTTL is how long an invitation link works.
const InvitationTTL = 7 * 24 * time.Hour

// invitationTokenLen is the length of a token: 32 random bytes, base64url.
const invitationTokenLen = 43

// InvitationStore is what invitations need from storage (db.DB).
type InvitationStore interface {
	CreateInvitation(ctx context.Context, inv model.Invitation) (model.Invitation, error)
	InvitationByHash(ctx context.Context, hash []byte) (model.Invitation, error)
	SignUpWithInvitation(ctx context.Context, hash []byte, passwordHash string, now time.Time) (model.User, model.Invitation, error)
	AcceptInvitation(ctx context.Context, hash []byte, u model.User, now time.Time) (model.Invitation, error)
	InvitationsForProject(ctx context.Context, projectID string) ([]model.Invitation, error)
	RevokeInvitation(ctx context.Context, projectID, id string) error
	UserByEmail(ctx context.Context, email string) (model.User, error)
	IsProjectMember(ctx context.Context, projectID, userID string) (bool, error)
}

// Invitations issues and redeems the one-time links with which a project
// member brings someone into the project. A link carries a token of which
// only the SHA-256 hash is stored, as for API keys.
type Invitations struct {
	Store   InvitationStore
	BaseURL string // FOLIO_BASE_URL, the start of every link
	Now     func() time.Time
}

// NewInvitations returns Invitations over store using the wall clock.
func NewInvitations(store InvitationStore, baseURL string) *Invitations {
	return &Invitations{Store: store, BaseURL: strings.TrimRight(baseURL, "/"), Now: time.Now}
}

// Create invites email into a project on behalf of invitedBy (a user id,
// or empty for an operator) and returns the link, which is never stored and
// so can be shown only now, and the stored record. An unknown project is
// model.ErrNotFound; an address that is not one is model.ErrInvalidEmail; a member
// of the project is not invited again (model.ErrAlreadyMember, with their
// address as their account has it in the returned record).
func (iv *Invitations) Create(ctx context.Context, projectID, email, invitedBy string) (string, model.Invitation, error) {
	email = strings.TrimSpace(email)
	if !ValidEmail(email) {
		return "", model.Invitation{}, fmt.Errorf("%w: %q", model.ErrInvalidEmail, email)
	}
	if u, err := iv.Store.UserByEmail(ctx, email); err == nil {
		member, err := iv.Store.IsProjectMember(ctx, projectID, u.ID)
		if err != nil {
			return "", model.Invitation{}, err
		}
		if member {
			return "", model.Invitation{ProjectID: projectID, Email: u.Email}, model.ErrAlreadyMember
		}
	} else if !errors.Is(err, model.ErrNotFound) {
		return "", model.Invitation{}, err
	}
	token := newInvitationToken()
	inv, err := iv.Store.CreateInvitation(ctx, model.Invitation{ProjectID: projectID, Email: email, Hash: auth.HashKey(token),
		InvitedBy: invitedBy, ExpiresAt: iv.Now().Add(InvitationTTL)})
	if err != nil {
		return "", model.Invitation{}, err
	}
	return iv.Link(token), inv, nil
}

// ForProject lists a project's invitations, newest first, used, revoked
// and expired ones included.
func (iv *Invitations) ForProject(ctx context.Context, projectID string) ([]model.Invitation, error) {
	return iv.Store.InvitationsForProject(ctx, projectID)
}

// Revoke stops one of the project's invitations from working: model.ErrNotFound
// for none of this project's, model.ErrInvitationUsed for one used already.
func (iv *Invitations) Revoke(ctx context.Context, projectID, id string) error {
	return iv.Store.RevokeInvitation(ctx, projectID, id)
}

// Link is the sign-up page's address for a token.
func (iv *Invitations) Link(token string) string {
	return iv.BaseURL + "/signup?invite=" + url.QueryEscape(token)
}

// Lookup finds the invitation a token names, if it can still be used:
// model.ErrNotFound for a token that names none, model.ErrInvitationUsed,
// ErrInvitationRevoked or ErrInvitationExpired for one that cannot.
func (iv *Invitations) Lookup(ctx context.Context, token string) (model.Invitation, error) {
	if !wellFormedInvitation(token) {
		return model.Invitation{}, model.ErrNotFound
	}
	hash := auth.HashKey(token)
	inv, err := iv.Store.InvitationByHash(ctx, hash)
	if err != nil {
		return model.Invitation{}, err
	}
	if subtle.ConstantTimeCompare(inv.Hash, hash) != 1 {
		return model.Invitation{}, model.ErrNotFound
	}
	if err := inv.Usable(iv.Now()); err != nil {
		return inv, err
	}
	return inv, nil
}

// SignUp creates the account a token's invitation is for, with password,
// as a member of its project. The refusals are Lookup's,
// model.ErrPasswordTooShort, and model.ErrEmailTaken when the address has an account
// already. The invitation is returned with a refusal too, for the page that
// explains it.
func (iv *Invitations) SignUp(ctx context.Context, token, password string) (model.User, model.Invitation, error) {
	inv, err := iv.Lookup(ctx, token)
	if err != nil {
		return model.User{}, inv, err
	}
	hash, err := credentials(inv.Email, password)
	if err != nil {
		return model.User{}, inv, err
	}
	u, used, err := iv.Store.SignUpWithInvitation(ctx, auth.HashKey(token), hash, iv.Now())
	if err != nil {
		return model.User{}, inv, err
	}
	return u, used, nil
}

// Accept makes an existing user a member of the token's project; the
// invitation must be for their email address (model.ErrInvitationEmail).
func (iv *Invitations) Accept(ctx context.Context, token string, u model.User) (model.Invitation, error) {
	inv, err := iv.Lookup(ctx, token)
	if err != nil {
		return inv, err
	}
	used, err := iv.Store.AcceptInvitation(ctx, auth.HashKey(token), u, iv.Now())
	if err != nil {
		return inv, err
	}
	return used, nil
}

func newInvitationToken() string {
	b := make([]byte, 32)
	rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// wellFormedInvitation spares the database tokens that cannot be one.
func wellFormedInvitation(s string) bool {
	if len(s) != invitationTokenLen {
		return false
	}
	_, err := base64.RawURLEncoding.DecodeString(s)
	return err == nil
}
