package db

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/mattn/go-sqlite3"
)

// User is a dashboard admin.
type User struct {
	ID           string
	Email        string
	PasswordHash string
	CreatedAt    time.Time
}

// ErrEmailTaken is returned when a user with the same email exists.
var ErrEmailTaken = fmt.Errorf("email already registered: %w", ErrConflict)

// CreateUser stores a new user with an already-hashed password.
func (d *DB) CreateUser(ctx context.Context, email, passwordHash string) (User, error) {
	u := User{ID: NewID(), Email: strings.TrimSpace(email), PasswordHash: passwordHash, CreatedAt: time.Now().UTC().Truncate(time.Millisecond)}
	_, err := d.w.ExecContext(ctx, `/* DB.CreateUser */
		INSERT INTO users (id, email, password_hash, created_at) VALUES (?, ?, ?, ?)`,
		u.ID, u.Email, u.PasswordHash, millis(u.CreatedAt))
	if isUniqueViolation(err) {
		return User{}, ErrEmailTaken
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
		return User{}, ErrNotFound
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
