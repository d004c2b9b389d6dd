package accounts

import (
	"context"
	"errors"

	"github.com/folio-docs/folio/auth"
	"github.com/folio-docs/folio/model"
)

// dummyHash is checked against when the email is unknown, so a wrong email
// takes as long as a wrong password and does not reveal who has an account.
const dummyHash = "$argon2id$v=19$m=19456,t=2,p=1$c29tZXNhbHRzb21lc2FsdA$Vo3JqPfHSl0b6qnvRjZ+0R3n5dHdlMv/l9KvI7C5dXk"

// SignIn finds the account an email address and password belong to, or
// model.ErrNoMatch. Each check holds ~19 MiB for argon2id, so only a few run at
// a time.
func (s *Service) SignIn(ctx context.Context, email, password string) (model.User, error) {
	u, err := s.store.UserByEmail(ctx, email)
	hash := u.PasswordHash
	if errors.Is(err, model.ErrNotFound) {
		hash = dummyHash
	} else if err != nil {
		return model.User{}, err
	}
	s.hashing <- struct{}{}
	match, err := auth.CheckPassword(hash, password)
	<-s.hashing
	if err != nil || !match || u.ID == "" {
		return model.User{}, model.ErrNoMatch
	}
	return u, nil
}

// User finds an account by id: model.ErrNotFound when there is none.
func (s *Service) User(ctx context.Context, id string) (model.User, error) {
	return s.store.UserByID(ctx, id)
}
