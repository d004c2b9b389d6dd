package db_test

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/folio-docs/folio/db"
	"github.com/folio-docs/folio/internal/testenv"
	"github.com/folio-docs/folio/model"
)

func hashOf(token string) []byte {
	sum := sha256.Sum256([]byte(token))
	return sum[:]
}

func TestCreateFirstUserIsAtomic(t *testing.T) {
	ctx := context.Background()
	d := testenv.NewDB(t)
	const n = 16
	errs := make([]error, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			_, errs[i] = d.CreateFirstUser(ctx, fmt.Sprintf("user%d@example.com", i), "hash")
		}()
	}
	close(start)
	wg.Wait()
	won := 0
	for i, err := range errs {
		switch {
		case err == nil:
			won++
		case !errors.Is(err, model.ErrNotFirstUser):
			t.Errorf("sign-up %d: %v, want nil or ErrNotFirstUser", i, err)
		}
	}
	if count, _ := d.CountUsers(ctx); won != 1 || count != 1 {
		t.Fatalf("%d simultaneous first sign-ups: %d succeeded, %d users stored; want exactly 1", n, won, count)
	}
	if _, err := d.CreateFirstUser(ctx, "late@example.com", "hash"); !errors.Is(err, model.ErrNotFirstUser) {
		t.Errorf("a first sign-up after the first: %v, want ErrNotFirstUser", err)
	}
}

// invitationWorld is a project with one member and an invitation to it.
func invitationWorld(t *testing.T, d *db.DB, email string, expires time.Time) (db.User, db.Project, db.Invitation) {
	t.Helper()
	ctx := context.Background()
	owner, err := d.CreateUser(ctx, fmt.Sprintf("owner-%s", email), "hash")
	if err != nil {
		t.Fatal(err)
	}
	p, err := d.CreateProject(ctx, db.Project{Name: "Docs", Repository: "acme/docs", OwnerID: owner.ID})
	if err != nil {
		t.Fatal(err)
	}
	inv, err := d.CreateInvitation(ctx, db.Invitation{ProjectID: p.ID, Email: email, Hash: hashOf("token-" + email), InvitedBy: owner.ID, ExpiresAt: expires})
	if err != nil {
		t.Fatal(err)
	}
	return owner, p, inv
}

func TestInvitationSignUpUsesItOnce(t *testing.T) {
	ctx := context.Background()
	d := testenv.NewDB(t)
	now := time.Now()
	owner, p, _ := invitationWorld(t, d, "grace@example.com", now.Add(time.Hour))
	got, err := d.InvitationByHash(ctx, hashOf("token-grace@example.com"))
	if err != nil || got.Email != "grace@example.com" || got.ProjectName != "Docs" || got.InviterEmail != owner.Email || got.State(now) != db.InvitationPending {
		t.Fatalf("InvitationByHash = %+v, %v", got, err)
	}
	u, inv, err := d.SignUpWithInvitation(ctx, hashOf("token-grace@example.com"), "pwhash", now)
	if err != nil || u.Email != "grace@example.com" || inv.UsedBy != u.ID || inv.State(now) != db.InvitationUsed {
		t.Fatalf("SignUpWithInvitation = %+v, %+v, %v", u, inv, err)
	}
	if ok, _ := d.IsProjectMember(ctx, p.ID, u.ID); !ok {
		t.Error("the invited user is not a member")
	}
	if _, _, err := d.SignUpWithInvitation(ctx, hashOf("token-grace@example.com"), "pwhash", now); !errors.Is(err, model.ErrInvitationUsed) {
		t.Errorf("second use: %v, want ErrInvitationUsed", err)
	}
	if err := d.RevokeInvitation(ctx, p.ID, inv.ID); !errors.Is(err, model.ErrInvitationUsed) {
		t.Errorf("revoking a used invitation: %v, want ErrInvitationUsed", err)
	}
	if _, _, err := d.SignUpWithInvitation(ctx, hashOf("no such token"), "pwhash", now); !errors.Is(err, model.ErrNotFound) {
		t.Errorf("unknown token: %v, want ErrNotFound", err)
	}
	if _, err := d.CreateInvitation(ctx, db.Invitation{ProjectID: "nope", Email: "x@example.com", Hash: hashOf("x"), ExpiresAt: now}); !errors.Is(err, model.ErrNotFound) {
		t.Errorf("invitation to a missing project: %v, want ErrNotFound", err)
	}
}

func TestInvitationUsedBySimultaneousSignUpsOnce(t *testing.T) {
	ctx := context.Background()
	d := testenv.NewDB(t)
	_, p, _ := invitationWorld(t, d, "grace@example.com", time.Now().Add(time.Hour))
	const n = 8
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, _, errs[i] = d.SignUpWithInvitation(ctx, hashOf("token-grace@example.com"), "pwhash", time.Now())
		}()
	}
	wg.Wait()
	won := 0
	for _, err := range errs {
		if err == nil {
			won++
		} else if !errors.Is(err, model.ErrInvitationUsed) {
			t.Errorf("a losing sign-up: %v, want ErrInvitationUsed", err)
		}
	}
	if ms, _ := d.ProjectMembers(ctx, p.ID); won != 1 || len(ms) != 2 {
		t.Fatalf("%d sign-ups with one link: %d succeeded, %d members; want 1 and 2", n, won, len(ms))
	}
}

func TestInvitationRefusals(t *testing.T) {
	ctx := context.Background()
	d := testenv.NewDB(t)
	now := time.Now()

	_, _, expired := invitationWorld(t, d, "late@example.com", now.Add(-time.Minute))
	if _, _, err := d.SignUpWithInvitation(ctx, expired.Hash, "pwhash", now); !errors.Is(err, model.ErrInvitationExpired) {
		t.Errorf("expired invitation: %v, want ErrInvitationExpired", err)
	}

	_, p, revoked := invitationWorld(t, d, "gone@example.com", now.Add(time.Hour))
	if err := d.RevokeInvitation(ctx, "another-project", revoked.ID); !errors.Is(err, model.ErrNotFound) {
		t.Errorf("revoking through another project: %v, want ErrNotFound", err)
	}
	if err := d.RevokeInvitation(ctx, p.ID, revoked.ID); err != nil {
		t.Fatal(err)
	}
	if _, _, err := d.SignUpWithInvitation(ctx, revoked.Hash, "pwhash", now); !errors.Is(err, model.ErrInvitationRevoked) {
		t.Errorf("revoked invitation: %v, want ErrInvitationRevoked", err)
	}
	if list, _ := d.InvitationsForProject(ctx, p.ID); len(list) != 1 || list[0].State(now) != db.InvitationRevoked {
		t.Errorf("invitations listed as %+v", list)
	}

	// An existing account joins with an invitation for its own address only.
	_, p2, inv := invitationWorld(t, d, "Ada@example.com", now.Add(time.Hour))
	other, _ := d.CreateUser(ctx, "mallory@example.com", "hash")
	if _, err := d.AcceptInvitation(ctx, inv.Hash, other, now); !errors.Is(err, model.ErrInvitationEmail) {
		t.Errorf("accepting someone else's invitation: %v, want ErrInvitationEmail", err)
	}
	ada, _ := d.CreateUser(ctx, "ada@example.com", "hash")
	if _, err := d.AcceptInvitation(ctx, inv.Hash, ada, now); err != nil {
		t.Fatalf("accept (email differing in case only): %v", err)
	}
	if ok, _ := d.IsProjectMember(ctx, p2.ID, ada.ID); !ok {
		t.Error("accepting did not add the member")
	}
	if ok, _ := d.IsProjectMember(ctx, p2.ID, other.ID); ok {
		t.Error("the refused user became a member")
	}
}

func TestSignUpWithInvitationForATakenEmailChangesNothing(t *testing.T) {
	ctx := context.Background()
	d := testenv.NewDB(t)
	now := time.Now()
	_, _, inv := invitationWorld(t, d, "ada@example.com", now.Add(time.Hour))
	d.CreateUser(ctx, "ADA@example.com", "hash")
	if _, _, err := d.SignUpWithInvitation(ctx, inv.Hash, "pwhash", now); !errors.Is(err, model.ErrEmailTaken) {
		t.Fatalf("sign-up for a taken email: %v, want ErrEmailTaken", err)
	}
	if got, _ := d.InvitationByHash(ctx, inv.Hash); got.State(now) != db.InvitationPending {
		t.Errorf("the failed sign-up used the invitation: %+v", got)
	}
}

func TestRemoveProjectMemberKeepsOne(t *testing.T) {
	ctx := context.Background()
	d := testenv.NewDB(t)
	a, _ := d.CreateUser(ctx, "a@example.com", "hash")
	b, _ := d.CreateUser(ctx, "b@example.com", "hash")
	p, _ := d.CreateProject(ctx, db.Project{Name: "Docs", Repository: "acme/docs", OwnerID: a.ID})
	if err := d.RemoveProjectMember(ctx, p.ID, a.ID); !errors.Is(err, model.ErrLastMember) {
		t.Fatalf("removing the only member: %v, want ErrLastMember", err)
	}
	if err := d.RemoveProjectMember(ctx, p.ID, b.ID); !errors.Is(err, model.ErrNotFound) {
		t.Fatalf("removing a non-member: %v, want ErrNotFound", err)
	}
	// Two members removing each other at once leave one.
	d.AddProjectMember(ctx, p.ID, b.ID)
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i, u := range []db.User{a, b} {
		wg.Add(1)
		go func() { defer wg.Done(); errs[i] = d.RemoveProjectMember(ctx, p.ID, u.ID) }()
	}
	wg.Wait()
	ms, _ := d.ProjectMembers(ctx, p.ID)
	if len(ms) != 1 || (errs[0] == nil) == (errs[1] == nil) {
		t.Fatalf("simultaneous removals: errors %v, members %+v; want one removal and one member left", errs, ms)
	}
}
