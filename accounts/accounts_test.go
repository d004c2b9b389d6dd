package accounts_test

import (
	"context"
	"errors"
	"net/url"
	"testing"

	"github.com/folio-docs/folio/accounts"
	"github.com/folio-docs/folio/db"
	"github.com/folio-docs/folio/internal/testenv"
	"github.com/folio-docs/folio/model"
)

// newTestService is the accounts service over a database of its own.
func newTestService(t *testing.T, signup string) (*accounts.Service, *db.DB) {
	d := testenv.NewDB(t)
	return accounts.New(d, signup, accounts.NewInvitations(d, "https://folio.example.com")), d
}

func TestTheFirstUserMayAlwaysSignUp(t *testing.T) {
	for _, policy := range []string{accounts.SignupOpen, accounts.SignupInvite, accounts.SignupClosed} {
		s, _ := newTestService(t, policy)
		if first, err := s.MaySignUp(context.Background()); !first || err != nil {
			t.Errorf("%s, no user yet: MaySignUp = %v, %v; want first, nil", policy, first, err)
		}
		if _, err := s.SignUp(context.Background(), "ada@example.com", "correct horse"); err != nil {
			t.Errorf("%s: the first sign-up: %v", policy, err)
		}
	}
}

func TestLaterSignUpsFollowThePolicy(t *testing.T) {
	for _, tc := range []struct {
		policy string
		want   error
	}{
		{accounts.SignupOpen, nil},
		{accounts.SignupInvite, model.ErrInviteOnly},
		{accounts.SignupClosed, model.ErrSignupClosed},
	} {
		ctx := context.Background()
		s, _ := newTestService(t, tc.policy)
		if _, err := s.SignUp(ctx, "ada@example.com", "correct horse"); err != nil {
			t.Fatal(err)
		}
		if first, err := s.MaySignUp(ctx); first || !errors.Is(err, tc.want) {
			t.Errorf("%s: MaySignUp = %v, %v; want false, %v", tc.policy, first, err, tc.want)
		}
		if _, err := s.SignUp(ctx, "grace@example.com", "correct horse"); !errors.Is(err, tc.want) {
			t.Errorf("%s: the second sign-up: %v, want %v", tc.policy, err, tc.want)
		}
	}
}

func TestSignUpChecksEmailAndPassword(t *testing.T) {
	ctx := context.Background()
	s, _ := newTestService(t, accounts.SignupOpen)
	for _, tc := range []struct {
		email, password string
		want            []error
	}{
		{"not an email", "correct horse", []error{model.ErrInvalidEmail}},
		{"Ada <ada@example.com>", "correct horse", []error{model.ErrInvalidEmail}},
		{"ada@example.com", "short", []error{model.ErrPasswordTooShort}},
		{"", "", []error{model.ErrInvalidEmail, model.ErrPasswordTooShort}},
	} {
		_, err := s.SignUp(ctx, tc.email, tc.password)
		for _, want := range tc.want {
			if !errors.Is(err, want) {
				t.Errorf("SignUp(%q, %q) = %v, want %v", tc.email, tc.password, err, want)
			}
		}
	}
	if _, err := s.SignUp(ctx, " ada@example.com ", "correct horse"); err != nil {
		t.Fatalf("an address with spaces around it: %v", err)
	}
	if _, err := s.SignUp(ctx, "ada@example.com", "correct horse"); !errors.Is(err, model.ErrEmailTaken) {
		t.Errorf("a taken address: %v, want ErrEmailTaken", err)
	}
}

func TestTheOperatorCreatesAccountsWhateverThePolicy(t *testing.T) {
	ctx := context.Background()
	s, _ := newTestService(t, accounts.SignupClosed)
	for _, email := range []string{"ada@example.com", "grace@example.com"} {
		if _, err := s.Create(ctx, email, "correct horse"); err != nil {
			t.Fatalf("Create(%s): %v", email, err)
		}
	}
	if _, err := s.Create(ctx, "grace@example.com", "correct horse"); !errors.Is(err, model.ErrEmailTaken) {
		t.Errorf("a taken address: %v, want ErrEmailTaken", err)
	}
	if _, err := s.Create(ctx, "a@b@c", "short"); !errors.Is(err, model.ErrInvalidEmail) || !errors.Is(err, model.ErrPasswordTooShort) {
		t.Errorf("a bad address and password: %v, want both refused", err)
	}
}

func TestInvitationsCreateAccountsUnlessSignUpIsClosed(t *testing.T) {
	for _, tc := range []struct {
		policy string
		want   error
	}{
		{accounts.SignupOpen, nil},
		{accounts.SignupInvite, nil},
		{accounts.SignupClosed, model.ErrSignupClosed},
	} {
		ctx := context.Background()
		s, d := newTestService(t, tc.policy)
		owner, err := s.Create(ctx, "owner@example.com", "correct horse")
		if err != nil {
			t.Fatal(err)
		}
		p, _ := d.CreateProject(ctx, model.Project{Name: "Docs", Repository: "acme/docs", OwnerID: owner.ID})
		link, inv, err := accounts.NewInvitations(d, "").Create(ctx, p.ID, "grace@example.com", owner.ID)
		if err != nil {
			t.Fatal(err)
		}
		if exists, err := s.InvitedAccount(ctx, inv); exists || !errors.Is(err, tc.want) {
			t.Errorf("%s: InvitedAccount = %v, %v; want false, %v", tc.policy, exists, err, tc.want)
		}
		u, _ := url.Parse(link)
		_, got, err := s.SignUpInvited(ctx, u.Query().Get("invite"), "correct horse")
		if !errors.Is(err, tc.want) || got.ID != inv.ID {
			t.Errorf("%s: SignUpInvited = %v (invitation %q), want %v with the invitation", tc.policy, err, got.ID, tc.want)
		}
		if exists, err := s.InvitedAccount(ctx, inv); tc.want == nil && (!exists || err != nil) {
			t.Errorf("%s: after signing up, InvitedAccount = %v, %v; want true", tc.policy, exists, err)
		}
	}
}

func TestAMemberIsNotInvitedAgain(t *testing.T) {
	ctx := context.Background()
	s, d := newTestService(t, accounts.SignupInvite)
	owner, _ := s.Create(ctx, "owner@example.com", "correct horse")
	p, _ := d.CreateProject(ctx, model.Project{Name: "Docs", Repository: "acme/docs", OwnerID: owner.ID})
	iv := accounts.NewInvitations(d, "")
	if _, inv, err := iv.Create(ctx, p.ID, "OWNER@example.com", owner.ID); !errors.Is(err, model.ErrAlreadyMember) || inv.Email != "owner@example.com" {
		t.Errorf("inviting a member = %q, %v; want ErrAlreadyMember with their address", inv.Email, err)
	}
	if list, _ := iv.ForProject(ctx, p.ID); len(list) != 0 {
		t.Errorf("a refused invitation was stored: %+v", list)
	}
	if _, _, err := iv.Create(ctx, p.ID, "grace@example.com", owner.ID); err != nil {
		t.Errorf("inviting someone new: %v", err)
	}
}

func TestSignIn(t *testing.T) {
	ctx := context.Background()
	s, _ := newTestService(t, accounts.SignupInvite)
	ada, _ := s.Create(ctx, "ada@example.com", "correct horse")
	if u, err := s.SignIn(ctx, "ada@example.com", "correct horse"); err != nil || u.ID != ada.ID {
		t.Errorf("the right password: %+v, %v", u, err)
	}
	for email, password := range map[string]string{"ada@example.com": "wrong horse", "nobody@example.com": "correct horse"} {
		if _, err := s.SignIn(ctx, email, password); !errors.Is(err, model.ErrNoMatch) {
			t.Errorf("SignIn(%s, %s) = %v, want ErrNoMatch", email, password, err)
		}
	}
	if u, err := s.User(ctx, ada.ID); err != nil || u.Email != "ada@example.com" {
		t.Errorf("User(ada) = %+v, %v", u, err)
	}
	if _, err := s.User(ctx, "nobody"); !errors.Is(err, model.ErrNotFound) {
		t.Errorf("User(nobody) = %v, want ErrNotFound", err)
	}
}
