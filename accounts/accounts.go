// Package accounts owns who has a Folio account and how one is made: the
// sign-up policy (FOLIO_SIGNUP), the first user's right to sign up, what a
// valid email address and password are, and the invitation links with which
// a project member brings someone in. The dashboard's sign-up pages and the
// operator's CLI create users through it alike.
package accounts

import (
	"context"
	"errors"
	"fmt"
	"net/mail"
	"runtime"
	"strings"

	"github.com/folio-docs/folio/auth"
	"github.com/folio-docs/folio/model"
)

// Sign-up policies (FOLIO_SIGNUP) for everyone after the first user.
const (
	SignupOpen   = "open"   // anyone may sign up
	SignupInvite = "invite" // only with an invitation link
	SignupClosed = "closed" // the operator creates accounts; invitations join existing ones
)

// ValidSignup reports whether s is one of the sign-up policies.
func ValidSignup(s string) bool {
	return s == SignupOpen || s == SignupInvite || s == SignupClosed
}

// ValidEmail reports whether s is a bare email address, such as
// ada@example.com, of at most 254 characters.
func ValidEmail(s string) bool {
	addr, err := mail.ParseAddress(s)
	return err == nil && addr.Address == s && len(s) <= 254
}

// Store is what accounts need from storage (db.DB).
type Store interface {
	InvitationStore
	CreateUser(ctx context.Context, email, passwordHash string) (model.User, error)
	CreateFirstUser(ctx context.Context, email, passwordHash string) (model.User, error)
	CountUsers(ctx context.Context) (int, error)
	UserByID(ctx context.Context, id string) (model.User, error)
}

// Service creates accounts under the sign-up policy and signs them in.
type Service struct {
	store   Store
	signup  string
	invites *Invitations
	hashing chan struct{} // bounds concurrent password checks
}

// New returns the accounts service over store, with the sign-up policy
// signup (SignupOpen, SignupInvite or SignupClosed) and the invitations
// that bring people into projects.
func New(store Store, signup string, invites *Invitations) *Service {
	return &Service{store: store, signup: signup, invites: invites, hashing: make(chan struct{}, max(2, runtime.NumCPU()))}
}

// Signup is the sign-up policy.
func (s *Service) Signup() string { return s.signup }

// MaySignUp says whether a stranger may sign up now, without an
// invitation: nil, or model.ErrInviteOnly or model.ErrSignupClosed. first reports
// that there is no user yet, and whoever signs up sets Folio up. SignUp
// has the last word on who is first.
func (s *Service) MaySignUp(ctx context.Context) (first bool, err error) {
	n, err := s.store.CountUsers(ctx)
	if err != nil {
		return false, err
	}
	if n > 0 && s.signup != SignupOpen {
		return false, s.refusal()
	}
	return n == 0, nil
}

// SignUp creates a stranger's account: the first user always, later ones
// as the policy allows (model.ErrInviteOnly, model.ErrSignupClosed). A bad email
// address or password is model.ErrInvalidEmail, model.ErrPasswordTooShort or both
// (errors.Is tells each); an address with an account is model.ErrEmailTaken.
func (s *Service) SignUp(ctx context.Context, email, password string) (model.User, error) {
	email = strings.TrimSpace(email)
	hash, err := credentials(email, password)
	if err != nil {
		return model.User{}, err
	}
	// The store decides "first" atomically, so two at once cannot both be.
	create := s.store.CreateFirstUser
	if s.signup == SignupOpen {
		create = s.store.CreateUser
	}
	u, err := create(ctx, email, hash)
	if errors.Is(err, model.ErrNotFirstUser) {
		return model.User{}, s.refusal()
	}
	return u, err
}

// Create makes an account for the operator, whatever the policy, with
// SignUp's checks of the email address and password.
func (s *Service) Create(ctx context.Context, email, password string) (model.User, error) {
	email = strings.TrimSpace(email)
	hash, err := credentials(email, password)
	if err != nil {
		return model.User{}, err
	}
	return s.store.CreateUser(ctx, email, hash)
}

// credentials checks an email address and a password, and hashes the
// password.
func credentials(email, password string) (string, error) {
	var errs []error
	if !ValidEmail(email) {
		errs = append(errs, fmt.Errorf("%w: %q", model.ErrInvalidEmail, email))
	}
	if len(password) < model.MinPasswordLen {
		errs = append(errs, model.ErrPasswordTooShort)
	}
	if len(errs) > 0 {
		return "", errors.Join(errs...)
	}
	return auth.HashPassword(password)
}

// SignUpInvited creates the account an invitation is for, as a member of
// its project: Invitations.SignUp, refused with model.ErrSignupClosed (and the
// invitation, for the page that explains) when the policy is closed.
func (s *Service) SignUpInvited(ctx context.Context, token, password string) (model.User, model.Invitation, error) {
	if s.signup == SignupClosed {
		inv, err := s.invites.Lookup(ctx, token)
		if err == nil {
			err = model.ErrSignupClosed
		}
		return model.User{}, inv, err
	}
	return s.invites.SignUp(ctx, token, password)
}

// InvitedAccount says whether the address an invitation is for has an
// account, to join with; without one, model.ErrSignupClosed when an invitation
// may not create one.
func (s *Service) InvitedAccount(ctx context.Context, inv model.Invitation) (bool, error) {
	_, err := s.store.UserByEmail(ctx, inv.Email)
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, model.ErrNotFound) && s.signup == SignupClosed:
		return false, model.ErrSignupClosed
	case errors.Is(err, model.ErrNotFound):
		return false, nil
	}
	return false, err
}

// refusal is why a stranger may not sign up under the policy.
func (s *Service) refusal() error {
	if s.signup == SignupClosed {
		return model.ErrSignupClosed
	}
	return model.ErrInviteOnly
}
