package accounts_test

import (
	"bytes"
	"context"
	"errors"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/folio-docs/folio/accounts"
	"github.com/folio-docs/folio/auth"
	"github.com/folio-docs/folio/internal/testenv"
	"github.com/folio-docs/folio/model"
)

func TestInvitationLinkCarriesATokenOnlyItsHashIsStored(t *testing.T) {
	ctx := context.Background()
	d := testenv.NewDB(t)
	owner, _ := d.CreateUser(ctx, "owner@example.com", "hash")
	p, _ := d.CreateProject(ctx, model.Project{Name: "Docs", Repository: "acme/docs", OwnerID: owner.ID})
	iv := accounts.NewInvitations(d, "https://folio.example.com/")
	clock := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	iv.Now = func() time.Time { return clock }

	if _, _, err := iv.Create(ctx, p.ID, "Grace <grace@example.com>", owner.ID); !errors.Is(err, model.ErrInvalidEmail) {
		t.Fatalf("a display-name address: %v, want ErrInvalidEmail", err)
	}
	link, inv, err := iv.Create(ctx, p.ID, " grace@example.com ", owner.ID)
	if err != nil {
		t.Fatal(err)
	}
	u, err := url.Parse(link)
	if err != nil || !strings.HasPrefix(link, "https://folio.example.com/signup?invite=") {
		t.Fatalf("link %q, want {FOLIO_BASE_URL}/signup?invite=TOKEN", link)
	}
	token := u.Query().Get("invite")
	if len(token) != 43 || !bytes.Equal(inv.Hash, auth.HashKey(token)) || strings.Contains(string(inv.Hash), token) {
		t.Fatalf("token %q (%d chars) and stored hash %x: want 256 random bits of which only the SHA-256 is stored", token, len(token), inv.Hash)
	}
	if want := clock.Add(7 * 24 * time.Hour); !inv.ExpiresAt.Equal(want) || inv.Email != "grace@example.com" {
		t.Fatalf("invitation %+v: want grace@example.com, expiring %v", inv, want)
	}

	if got, err := iv.Lookup(ctx, token); err != nil || got.ID != inv.ID {
		t.Fatalf("Lookup = %+v, %v", got, err)
	}
	for _, bad := range []string{"", "short", token[:42] + "!", strings.Repeat("A", 43)} {
		if _, err := iv.Lookup(ctx, bad); !errors.Is(err, model.ErrNotFound) {
			t.Errorf("Lookup(%q) = %v, want ErrNotFound", bad, err)
		}
	}
	clock = clock.Add(7*24*time.Hour - time.Millisecond)
	if _, err := iv.Lookup(ctx, token); err != nil {
		t.Errorf("a millisecond before 7 days: %v, want usable", err)
	}
	clock = clock.Add(time.Millisecond)
	if _, _, err := iv.SignUp(ctx, token, "correct horse"); !errors.Is(err, model.ErrInvitationExpired) {
		t.Errorf("after 7 days: %v, want ErrInvitationExpired", err)
	}
	clock = clock.Add(-time.Hour)
	if _, _, err := iv.SignUp(ctx, token, "short"); !errors.Is(err, model.ErrPasswordTooShort) {
		t.Errorf("short password: %v, want ErrPasswordTooShort", err)
	}
	user, used, err := iv.SignUp(ctx, token, "correct horse")
	if err != nil || user.Email != "grace@example.com" || used.UsedBy != user.ID {
		t.Fatalf("SignUp = %+v, %+v, %v", user, used, err)
	}
	if ok, _ := auth.CheckPassword(user.PasswordHash, "correct horse"); !ok {
		t.Error("the stored password does not check")
	}
	if _, err := iv.Accept(ctx, token, user); !errors.Is(err, model.ErrInvitationUsed) {
		t.Errorf("a used link: %v, want ErrInvitationUsed", err)
	}
}
