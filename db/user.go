package db

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/folio-docs/folio/model"
	"github.com/mattn/go-sqlite3"
)

// CreateUser stores a new user with an already-hashed password.
func (d *DB) CreateUser(ctx context.Context, email, passwordHash string) (User, error) {
	return insertUser(ctx, d.w, email, passwordHash, "/* DB.CreateUser */")
}

// CreateFirstUser stores a new user only if there is no user at all
// (model.ErrNotFirstUser otherwise). Counting and inserting are one statement in
// one write transaction, so of simultaneous first sign-ups exactly one wins.
func (d *DB) CreateFirstUser(ctx context.Context, email, passwordHash string) (User, error) {
	u := newUser(email, passwordHash)
	err := d.tx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `/* DB.CreateFirstUser */
			INSERT INTO users (id, email, password_hash, created_at)
			SELECT ?, ?, ?, ? WHERE NOT EXISTS (SELECT 1 FROM users)`,
			u.ID, u.Email, u.PasswordHash, millis(u.CreatedAt))
		if err != nil {
			return fmt.Errorf("db: unable to create the first user: %w", err)
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			return model.ErrNotFirstUser
		}
		return nil
	})
	if err != nil {
		return User{}, err
	}
	return u, nil
}

func newUser(email, passwordHash string) User {
	return User{ID: model.NewID(), Email: strings.TrimSpace(email), PasswordHash: passwordHash, CreatedAt: time.Now().UTC().Truncate(time.Millisecond)}
}

type execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// insertUser stores a new user through ex (the writer or a transaction);
// tag names the method for the statement's comment.
func insertUser(ctx context.Context, ex execer, email, passwordHash, tag string) (User, error) {
	u := newUser(email, passwordHash)
	_, err := ex.ExecContext(ctx, tag+`
		INSERT INTO users (id, email, password_hash, created_at) VALUES (?, ?, ?, ?)`,
		u.ID, u.Email, u.PasswordHash, millis(u.CreatedAt))
	if isUniqueViolation(err) {
		return User{}, model.ErrEmailTaken
	}
	if err != nil {
		return User{}, fmt.Errorf("db: unable to create user: %w", err)
	}
	return u, nil
}

// UserByEmail finds a user by email, case-insensitively.
func (d *DB) UserByEmail(ctx context.Context, email string) (User, error) {
	return d.scanUser(d.r.QueryRowContext(ctx, `/* DB.UserByEmail */
		SELECT id, email, password_hash, created_at FROM users WHERE email = ?`, strings.TrimSpace(email)))
}

// UserByID finds a user by id.
func (d *DB) UserByID(ctx context.Context, id string) (User, error) {
	return d.scanUser(d.r.QueryRowContext(ctx, `/* DB.UserByID */
		SELECT id, email, password_hash, created_at FROM users WHERE id = ?`, id))
}

// CountUsers is the number of users; the first to sign up needs no invitation.
func (d *DB) CountUsers(ctx context.Context) (int, error) {
	var n int
	if err := d.r.QueryRowContext(ctx, `/* DB.CountUsers */ SELECT count(*) FROM users`).Scan(&n); err != nil {
		return 0, fmt.Errorf("db: unable to count users: %w", err)
	}
	return n, nil
}

func (d *DB) scanUser(row *sql.Row) (User, error) {
	var u User
	var created int64
	err := row.Scan(&u.ID, &u.Email, &u.PasswordHash, &created)
	if errors.Is(err, sql.ErrNoRows) {
		return User{}, model.ErrNotFound
	}
	if err != nil {
		return User{}, fmt.Errorf("db: unable to fetch user: %w", err)
	}
	u.CreatedAt = fromMillis(created)
	return u, nil
}

func isUniqueViolation(err error) bool {
	var se sqlite3.Error
	return errors.As(err, &se) && se.ExtendedCode == sqlite3.ErrConstraintUnique
}
