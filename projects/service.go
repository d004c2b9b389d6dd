package projects

import (
	"context"
	"errors"

	"github.com/folio-docs/folio/model"
)

// Store is what the projects service needs from storage (db.DB).
type Store interface {
	CreateProject(ctx context.Context, p model.Project) (model.Project, error)
	UpdateProject(ctx context.Context, p model.Project) (model.Project, error)
	ProjectByID(ctx context.Context, id string) (model.Project, error)
	ProjectsForUser(ctx context.Context, userID string) ([]model.Project, error)
	IsProjectMember(ctx context.Context, projectID, userID string) (bool, error)
	ProjectMembers(ctx context.Context, projectID string) ([]model.Member, error)
	AddProjectMember(ctx context.Context, projectID, userID string) error
	RemoveProjectMember(ctx context.Context, projectID, userID string) error
	UserByEmail(ctx context.Context, email string) (model.User, error)
	UserByID(ctx context.Context, id string) (model.User, error)
}

// Service creates and changes projects and their members. Every project it
// stores has passed its Validator, whichever door the request came in by.
type Service struct {
	store Store
	check Validator
}

// NewService returns the projects service over store, checking settings
// with v (the dashboard's bounds repositories with a policy; the
// operator's does not).
func NewService(store Store, v Validator) *Service {
	return &Service{store: store, check: v}
}

// ByID finds a project: model.ErrProjectNotFound when there is none.
func (s *Service) ByID(ctx context.Context, id string) (model.Project, error) {
	return s.store.ProjectByID(ctx, id)
}

// ForMember finds a project the user is a member of. To anyone else it
// does not exist (model.ErrProjectNotFound).
func (s *Service) ForMember(ctx context.Context, id, userID string) (model.Project, error) {
	ok, err := s.store.IsProjectMember(ctx, id, userID)
	if err != nil {
		return model.Project{}, err
	}
	if !ok {
		return model.Project{}, model.ErrProjectNotFound
	}
	return s.store.ProjectByID(ctx, id)
}

// ForUser lists the projects a user is a member of, newest first.
func (s *Service) ForUser(ctx context.Context, userID string) ([]model.Project, error) {
	return s.store.ProjectsForUser(ctx, userID)
}

// Create stores a new project; its owner, if set, becomes its first
// member. Settings that cannot work are refused with model.FieldErrors, with
// the project as it would have been stored (its allowed domains tidied).
func (s *Service) Create(ctx context.Context, p model.Project) (model.Project, error) {
	if errs := s.validate(ctx, &p, model.Project{}); len(errs) > 0 {
		return p, errs
	}
	return s.store.CreateProject(ctx, p)
}

// Update stores p's settings over old, the project as stored; refusals
// are as Create's.
func (s *Service) Update(ctx context.Context, old, p model.Project) (model.Project, error) {
	if errs := s.validate(ctx, &p, old); len(errs) > 0 {
		return p, errs
	}
	return s.store.UpdateProject(ctx, p)
}

// validate tidies p and checks it against old (the zero Project for a new
// one); empty when it can be stored.
func (s *Service) validate(ctx context.Context, p *model.Project, old model.Project) model.FieldErrors {
	domainErrs := normaliseDomains(p)
	return append(s.check.Check(ctx, *p, old), domainErrs...)
}

// Account finds the account with an email address, to own or join a
// project: model.ErrNoAccount when there is none.
func (s *Service) Account(ctx context.Context, email string) (model.User, error) {
	if email == "" {
		return model.User{}, model.ErrNoAccount
	}
	u, err := s.store.UserByEmail(ctx, email)
	if errors.Is(err, model.ErrNotFound) {
		return model.User{}, model.ErrNoAccount
	}
	return u, err
}

// Members lists a project's members in the order they joined.
func (s *Service) Members(ctx context.Context, projectID string) ([]model.Member, error) {
	return s.store.ProjectMembers(ctx, projectID)
}

// AddMember makes the account with an email address a member of the
// project (model.ErrNoAccount when there is none); adding twice is harmless.
func (s *Service) AddMember(ctx context.Context, projectID, email string) (model.User, error) {
	u, err := s.Account(ctx, email)
	if err != nil {
		return model.User{}, err
	}
	return u, s.store.AddProjectMember(ctx, projectID, u.ID)
}

// RemoveMember takes a user out of a project and returns who it was. A
// user who is not a member is model.ErrNotFound; the only member stays
// (model.ErrLastMember, with the user), so no project is left without an admin.
func (s *Service) RemoveMember(ctx context.Context, projectID, userID string) (model.User, error) {
	u, err := s.store.UserByID(ctx, userID)
	if err != nil {
		return model.User{}, err
	}
	return u, s.store.RemoveProjectMember(ctx, projectID, userID)
}
