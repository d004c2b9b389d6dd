package projects_test

import (
	"context"
	"errors"
	"testing"

	"github.com/folio-docs/folio/db"
	"github.com/folio-docs/folio/internal/testenv"
	"github.com/folio-docs/folio/model"
	"github.com/folio-docs/folio/projects"
)

// newTestService is the projects service over a database of its own, with
// one user, ada@example.com. Without a GitHub token, GitHub repositories
// are accepted unasked.
func newTestService(t *testing.T) (*projects.Service, *db.DB, model.User) {
	d := testenv.NewDB(t)
	ada, err := d.CreateUser(context.Background(), "ada@example.com", "hash")
	if err != nil {
		t.Fatal(err)
	}
	return projects.NewService(d, projects.Validator{}), d, ada
}

// newDocs is the project Docs, on GitHub's acme/docs, owned by owner.
func newDocs(t *testing.T, s *projects.Service, owner model.User) model.Project {
	p, err := s.Create(context.Background(), model.Project{Name: "Docs", Repository: "acme/docs", Ref: "main", OwnerID: owner.ID})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestCreateRefusesWhatCannotWorkAndStoresNothing(t *testing.T) {
	ctx := context.Background()
	s, _, ada := newTestService(t)
	p, err := s.Create(ctx, model.Project{Name: " ", Repository: "acme/docs", Ref: "main", OwnerID: ada.ID})
	var errs model.FieldErrors
	if !errors.As(err, &errs) || errs.Of(projects.FieldName) == "" {
		t.Fatalf("Create without a name = %v, want FieldErrors naming %s", err, projects.FieldName)
	}
	if p.ID != "" {
		t.Errorf("a refused project has id %q", p.ID)
	}
	if list, _ := s.ForUser(ctx, ada.ID); len(list) != 0 {
		t.Errorf("a refused project was stored: %+v", list)
	}
}

func TestCreateMakesTheOwnerTheFirstMember(t *testing.T) {
	ctx := context.Background()
	s, _, ada := newTestService(t)
	p := newDocs(t, s, ada)
	if got, err := s.ForMember(ctx, p.ID, ada.ID); err != nil || got.Name != "Docs" {
		t.Errorf("ForMember(owner) = %+v, %v; want the project", got, err)
	}
	if members, _ := s.Members(ctx, p.ID); len(members) != 1 || members[0].UserID != ada.ID {
		t.Errorf("members %+v, want the owner alone", members)
	}
}

func TestAllowedDomainsAreTidiedAndChecked(t *testing.T) {
	ctx := context.Background()
	s, _, _ := newTestService(t)
	p, err := s.Create(ctx, model.Project{Name: "Docs", Repository: "acme/docs", Ref: "main",
		AllowedDomains: "Docs.Example.com\n*.example.dev, docs.example.com"})
	if err != nil || p.AllowedDomains != "docs.example.com,*.example.dev" {
		t.Fatalf("Create = %q, %v; want docs.example.com,*.example.dev", p.AllowedDomains, err)
	}
	q := p
	q.AllowedDomains = "docs.example.com <Script>"
	p, err = s.Update(ctx, p, q)
	var errs model.FieldErrors
	if !errors.As(err, &errs) || errs.Of(projects.FieldAllowedDomains) != "“<Script>” is not a host name, such as docs.example.com or *.example.com." {
		t.Fatalf("Update with a bad domain = %v", err)
	}
	if p.AllowedDomains != "docs.example.com" {
		t.Errorf("the refused form keeps %q, want the good domains", p.AllowedDomains)
	}
}

func TestUpdateStoresWhatPassed(t *testing.T) {
	ctx := context.Background()
	s, _, ada := newTestService(t)
	old := newDocs(t, s, ada)
	p := old
	p.Name, p.Model = "Handbook", "gpt 4"
	if _, err := s.Update(ctx, old, p); err == nil {
		t.Fatal("a model with a space was stored")
	}
	p.Model = "gpt-4.1"
	if _, err := s.Update(ctx, old, p); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.ByID(ctx, p.ID); got.Name != "Handbook" || got.Model != "gpt-4.1" {
		t.Errorf("stored %+v, want the update", got)
	}
}

func TestProjectsAreForMembersOnly(t *testing.T) {
	ctx := context.Background()
	s, d, ada := newTestService(t)
	stranger, _ := d.CreateUser(ctx, "stranger@example.com", "hash")
	if _, err := s.ForMember(ctx, newDocs(t, s, ada).ID, stranger.ID); !errors.Is(err, model.ErrNotFound) {
		t.Errorf("ForMember(a stranger) = %v, want ErrNotFound", err)
	}
	if _, err := s.ForMember(ctx, "nope", ada.ID); !errors.Is(err, model.ErrNotFound) {
		t.Errorf("ForMember(no such project) = %v, want ErrNotFound", err)
	}
}

func TestMembers(t *testing.T) {
	ctx := context.Background()
	s, d, ada := newTestService(t)
	grace, _ := d.CreateUser(ctx, "grace@example.com", "hash")
	p := newDocs(t, s, ada)

	for _, email := range []string{"", "nobody@example.com"} {
		if _, err := s.AddMember(ctx, p.ID, email); !errors.Is(err, model.ErrNoAccount) {
			t.Errorf("AddMember(%q) = %v, want ErrNoAccount", email, err)
		}
	}
	if u, err := s.AddMember(ctx, p.ID, "grace@example.com"); err != nil || u.ID != grace.ID {
		t.Fatalf("AddMember(grace) = %+v, %v", u, err)
	}
	if _, err := s.ForMember(ctx, p.ID, grace.ID); err != nil {
		t.Errorf("an added member cannot open the project: %v", err)
	}
	if u, err := s.RemoveMember(ctx, p.ID, ada.ID); err != nil || u.Email != "ada@example.com" {
		t.Fatalf("RemoveMember(ada) = %+v, %v", u, err)
	}
	if _, err := s.RemoveMember(ctx, p.ID, ada.ID); !errors.Is(err, model.ErrNotFound) {
		t.Errorf("removing a non-member: %v, want ErrNotFound", err)
	}
	if u, err := s.RemoveMember(ctx, p.ID, grace.ID); !errors.Is(err, model.ErrLastMember) || u.Email != "grace@example.com" {
		t.Errorf("removing the last member = %+v, %v; want ErrLastMember with who it was", u, err)
	}
	if _, err := s.RemoveMember(ctx, p.ID, "nobody"); !errors.Is(err, model.ErrNotFound) {
		t.Errorf("removing no such user: %v, want ErrNotFound", err)
	}
}
