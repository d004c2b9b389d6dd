package auth

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"net/mail"
	"net/url"
	"strings"
	"time"

	"github.com/folio-docs/folio/db"
)

// InvitationTTL is how long an invitation link works.
const InvitationTTL = 7 * 24 * time.Hour

// invitationTokenLen is the length of a token: 32 random bytes, base64url.
const invitationTokenLen = 43

// Why an invitation could not be made or used.
var (
	ErrInvalidEmail     = errors.New("invalid email address")
	ErrPasswordTooShort = fmt.Errorf("password must be at least %d characters", MinPasswordLen)
)

// InvitationStore is what invitations need from storage (db.DB).
type InvitationStore interface {
	CreateInvitation(ctx context.Context, inv db.Invitation) (db.Invitation, error)
	InvitationByHash(ctx context.Context, hash []byte) (db.Invitation, error)
	SignUpWithInvitation(ctx context.Context, hash []byte, passwordHash string, now time.Time) (db.User, db.Invitation, error)
	AcceptInvitation(ctx context.Context, hash []byte, u db.User, now time.Time) (db.Invitation, error)
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
// db.ErrNotFound.
func (iv *Invitations) Create(ctx context.Context, projectID, email, invitedBy string) (string, db.Invitation, error) {
	email = strings.TrimSpace(email)
	if !ValidEmail(email) {
		return "", db.Invitation{}, fmt.Errorf("%w: %q", ErrInvalidEmail, email)
	}
	token := newInvitationToken()
	inv, err := iv.Store.CreateInvitation(ctx, db.Invitation{ProjectID: projectID, Email: email, Hash: HashKey(token),
		InvitedBy: invitedBy, ExpiresAt: iv.Now().Add(InvitationTTL)})
	if err != nil {
		return "", db.Invitation{}, err
	}
	return iv.Link(token), inv, nil
}

// Link is the sign-up page's address for a token.
func (iv *Invitations) Link(token string) string {
	return iv.BaseURL + "/signup?invite=" + url.QueryEscape(token)
}

// Lookup finds the invitation a token names, if it can still be used:
// db.ErrNotFound for a token that names none, db.ErrInvitationUsed,
// ErrInvitationRevoked or ErrInvitationExpired for one that cannot.
func (iv *Invitations) Lookup(ctx context.Context, token string) (db.Invitation, error) {
	if !wellFormedInvitation(token) {
		return db.Invitation{}, db.ErrNotFound
	}
	hash := HashKey(token)
	inv, err := iv.Store.InvitationByHash(ctx, hash)
	if err != nil {
		return db.Invitation{}, err
	}
	if subtle.ConstantTimeCompare(inv.Hash, hash) != 1 {
		return db.Invitation{}, db.ErrNotFound
	}
	if err := inv.Usable(iv.Now()); err != nil {
		return inv, err
	}
	return inv, nil
}

// SignUp creates the account a token's invitation is for, with password,
// as a member of its project. The refusals are Lookup's, and
// db.ErrEmailTaken when the address has an account already. The
// invitation is returned with a refusal too, for the page that explains it.
func (iv *Invitations) SignUp(ctx context.Context, token, password string) (db.User, db.Invitation, error) {
	inv, err := iv.Lookup(ctx, token)
	if err != nil {
		return db.User{}, inv, err
	}
	if len(password) < MinPasswordLen {
		return db.User{}, inv, ErrPasswordTooShort
	}
	hash, err := HashPassword(password)
	if err != nil {
		return db.User{}, inv, err
	}
	u, used, err := iv.Store.SignUpWithInvitation(ctx, HashKey(token), hash, iv.Now())
	if err != nil {
		return db.User{}, inv, err
	}
	return u, used, nil
}

// Accept makes an existing user a member of the token's project; the
// invitation must be for their email address (db.ErrInvitationEmail).
func (iv *Invitations) Accept(ctx context.Context, token string, u db.User) (db.Invitation, error) {
	inv, err := iv.Lookup(ctx, token)
	if err != nil {
		return inv, err
	}
	used, err := iv.Store.AcceptInvitation(ctx, HashKey(token), u, iv.Now())
	if err != nil {
		return inv, err
	}
	return used, nil
}

// ValidEmail reports whether s is a bare email address, such as
// ada@example.com, of at most 254 characters.
func ValidEmail(s string) bool {
	addr, err := mail.ParseAddress(s)
	return err == nil && addr.Address == s && len(s) <= 254
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
