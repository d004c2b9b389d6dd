package db_test

import (
	"context"
	"errors"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/folio-docs/folio/db"
	"github.com/folio-docs/folio/internal/testenv"
	"github.com/folio-docs/folio/model"
)

func TestMigrateTwiceAppliesNothingNew(t *testing.T) {
	ctx := context.Background()
	d, err := db.Open(ctx, filepath.Join(t.TempDir(), "sub", "folio.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	first, err := d.Migrate(ctx)
	if err != nil || len(first) == 0 {
		t.Fatalf("first migrate applied %v, err %v", first, err)
	}
	again, err := d.Migrate(ctx)
	if err != nil || len(again) != 0 {
		t.Fatalf("second migrate applied %v, err %v; want nothing", again, err)
	}
}

func TestNewIDIsOpaqueAndUnique(t *testing.T) {
	shape := regexp.MustCompile(`^[0-9a-hjkmnp-tv-z]{26}$`)
	seen := map[string]bool{}
	for range 10000 {
		id := model.NewID()
		if !shape.MatchString(id) {
			t.Fatalf("id %q: want 26 base32 characters (128 bits)", id)
		}
		if seen[id] {
			t.Fatalf("id %q repeated", id)
		}
		seen[id] = true
	}
}

func TestUsersProjectsKeys(t *testing.T) {
	ctx := context.Background()
	d := testenv.NewDB(t)
	u, err := d.CreateUser(ctx, "Ada@Example.com", "hash")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.CreateUser(ctx, "ada@example.com", "hash"); !errors.Is(err, model.ErrEmailTaken) {
		t.Fatalf("duplicate email (other case): %v, want ErrEmailTaken", err)
	}
	if got, err := d.UserByEmail(ctx, "ADA@example.com"); err != nil || got.ID != u.ID {
		t.Fatalf("UserByEmail = %+v, %v", got, err)
	}
	p, err := d.CreateProject(ctx, db.Project{Name: "Docs", Repository: "acme/docs", OwnerID: u.ID})
	if err != nil {
		t.Fatal(err)
	}
	if p.Ref != "main" {
		t.Errorf("default ref %q, want main", p.Ref)
	}
	if ok, _ := d.IsProjectMember(ctx, p.ID, u.ID); !ok {
		t.Error("owner is not a member of the project")
	}
	list, err := d.ProjectsForUser(ctx, u.ID)
	if err != nil || len(list) != 1 || list[0].ID != p.ID {
		t.Fatalf("ProjectsForUser = %v, %v", list, err)
	}
	p.Model, p.WebhookURL = "gpt-x", "https://hooks.example/folio"
	if _, err := d.UpdateProject(ctx, p); err != nil {
		t.Fatal(err)
	}
	got, _ := d.ProjectByID(ctx, p.ID)
	if got.Model != "gpt-x" || got.WebhookURL != "https://hooks.example/folio" {
		t.Errorf("update not stored: %+v", got)
	}
	if _, err := d.ProjectByID(ctx, "nope"); !errors.Is(err, model.ErrNotFound) {
		t.Errorf("unknown project: %v, want ErrNotFound", err)
	}
	if err := d.RevokeAPIKey(ctx, p.ID, "nope"); !errors.Is(err, model.ErrNotFound) {
		t.Errorf("revoke unknown key: %v, want ErrNotFound", err)
	}
}

func TestFirstPrompts(t *testing.T) {
	ctx := context.Background()
	d := testenv.NewDB(t)
	p, _ := d.CreateProject(ctx, db.Project{Name: "Docs", Repository: "/tmp/docs"})
	a, err := d.CreateJob(ctx, db.Job{ProjectID: p.ID, Repository: p.Repository, Ref: "main", Model: "m"}, "first of a", nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := d.CreateJob(ctx, db.Job{ProjectID: p.ID, Repository: p.Repository, Ref: "main", Model: "m"}, "first of b", nil)
	got, err := d.FirstPrompts(ctx, []string{a.ID, b.ID, "unknown"})
	if err != nil || len(got) != 2 || got[a.ID] != "first of a" || got[b.ID] != "first of b" {
		t.Fatalf("FirstPrompts = %v, %v", got, err)
	}
	if got, err := d.FirstPrompts(ctx, nil); err != nil || len(got) != 0 {
		t.Fatalf("no jobs: %v, %v", got, err)
	}
}
