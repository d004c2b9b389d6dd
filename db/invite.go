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

const invitationColumns = `i.id, i.project_id, p.name, i.email, i.hash, coalesce(i.invited_by, ''), coalesce(u.email, ''),
	i.created_at, i.expires_at, i.used_at, coalesce(i.used_by, ''), i.revoked_at`

const invitationFrom = ` FROM invitations i JOIN projects p ON p.id = i.project_id LEFT JOIN users u ON u.id = i.invited_by`

// CreateInvitation stores inv (ProjectID, Email, Hash, InvitedBy, ExpiresAt),
// giving it an id and creation time.
func (d *DB) CreateInvitation(ctx context.Context, inv Invitation) (Invitation, error) {
	inv.ID = model.NewID()
	inv.Email = strings.TrimSpace(inv.Email)
	inv.CreatedAt = time.Now().UTC().Truncate(time.Millisecond)
	inv.ExpiresAt = inv.ExpiresAt.UTC().Truncate(time.Millisecond)
	_, err := d.w.ExecContext(ctx, `/* DB.CreateInvitation */
		INSERT INTO invitations (id, project_id, email, hash, invited_by, created_at, expires_at)
		VALUES (?, ?, ?, ?, nullif(?, ''), ?, ?)`,
		inv.ID, inv.ProjectID, inv.Email, inv.Hash, inv.InvitedBy, millis(inv.CreatedAt), millis(inv.ExpiresAt))
	if isForeignKeyViolation(err) { // no such project
		return Invitation{}, model.ErrNotFound
	}
	if err != nil {
		return Invitation{}, fmt.Errorf("db: unable to create invitation: %w", err)
	}
	return inv, nil
}

// InvitationByHash finds an invitation, used, revoked and expired ones
// included, by its token's hash.
func (d *DB) InvitationByHash(ctx context.Context, hash []byte) (Invitation, error) {
	return invitationByHash(ctx, d.r, hash)
}

type querier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

func invitationByHash(ctx context.Context, q querier, hash []byte) (Invitation, error) {
	inv, err := scanInvitation(q.QueryRowContext(ctx, `/* DB.InvitationByHash */
		SELECT `+invitationColumns+invitationFrom+` WHERE i.hash = ?`, hash))
	if errors.Is(err, sql.ErrNoRows) {
		return Invitation{}, model.ErrNotFound
	}
	if err != nil {
		return Invitation{}, fmt.Errorf("db: unable to fetch invitation: %w", err)
	}
	return inv, nil
}

// InvitationsForProject lists a project's invitations, newest first, used,
// revoked and expired ones included.
func (d *DB) InvitationsForProject(ctx context.Context, projectID string) ([]Invitation, error) {
	rows, err := d.r.QueryContext(ctx, `/* DB.InvitationsForProject */
		SELECT `+invitationColumns+invitationFrom+` WHERE i.project_id = ? ORDER BY i.created_at DESC, i.id`, projectID)
	if err != nil {
		return nil, fmt.Errorf("db: unable to list invitations of project %s: %w", projectID, err)
	}
	out, err := scanAll(rows, scanInvitation)
	if err != nil {
		return nil, fmt.Errorf("db: unable to list invitations of project %s: %w", projectID, err)
	}
	return out, nil
}

// RevokeInvitation stops one of the project's invitations from working. An
// invitation of another project is model.ErrNotFound; a used one cannot be
// revoked (model.ErrInvitationUsed); revoking twice is harmless.
func (d *DB) RevokeInvitation(ctx context.Context, projectID, id string) error {
	return d.tx(ctx, func(tx *sql.Tx) error {
		var used sql.NullInt64
		err := tx.QueryRowContext(ctx, `/* DB.RevokeInvitation */
			SELECT used_at FROM invitations WHERE id = ? AND project_id = ?`, id, projectID).Scan(&used)
		if errors.Is(err, sql.ErrNoRows) {
			return model.ErrNotFound
		}
		if err != nil {
			return fmt.Errorf("db: unable to revoke invitation %s: %w", id, err)
		}
		if used.Valid {
			return model.ErrInvitationUsed
		}
		if _, err := tx.ExecContext(ctx, `/* DB.RevokeInvitation */
			UPDATE invitations SET revoked_at = coalesce(revoked_at, ?) WHERE id = ?`, millis(time.Now()), id); err != nil {
			return fmt.Errorf("db: unable to revoke invitation %s: %w", id, err)
		}
		return nil
	})
}

// SignUpWithInvitation creates the account the invitation is for, with an
// already-hashed password, makes it a member of the invitation's project
// and uses the invitation up, all or nothing: of two sign-ups with one
// link, one wins.
func (d *DB) SignUpWithInvitation(ctx context.Context, hash []byte, passwordHash string, now time.Time) (User, Invitation, error) {
	var u User
	var inv Invitation
	err := d.tx(ctx, func(tx *sql.Tx) error {
		var err error
		if inv, err = pendingInvitation(ctx, tx, hash, now); err != nil {
			return err
		}
		if u, err = insertUser(ctx, tx, inv.Email, passwordHash, "/* DB.SignUpWithInvitation */"); err != nil {
			return err
		}
		return redeemInvitation(ctx, tx, &inv, u.ID, now)
	})
	if err != nil {
		return User{}, Invitation{}, err
	}
	return u, inv, nil
}

// AcceptInvitation makes an existing user a member of the invitation's
// project and uses the invitation up. The invitation must be for the user's
// email address (model.ErrInvitationEmail).
func (d *DB) AcceptInvitation(ctx context.Context, hash []byte, u User, now time.Time) (Invitation, error) {
	var inv Invitation
	err := d.tx(ctx, func(tx *sql.Tx) error {
		var err error
		if inv, err = pendingInvitation(ctx, tx, hash, now); err != nil {
			return err
		}
		if !strings.EqualFold(inv.Email, u.Email) {
			return model.ErrInvitationEmail
		}
		return redeemInvitation(ctx, tx, &inv, u.ID, now)
	})
	if err != nil {
		return Invitation{}, err
	}
	return inv, nil
}

// pendingInvitation reads the invitation inside a write transaction, whose
// lock keeps anyone else from using it before this one commits.
func pendingInvitation(ctx context.Context, tx *sql.Tx, hash []byte, now time.Time) (Invitation, error) {
	inv, err := invitationByHash(ctx, tx, hash)
	if err != nil {
		return Invitation{}, err
	}
	if err := inv.Usable(now); err != nil {
		return Invitation{}, err
	}
	return inv, nil
}

func redeemInvitation(ctx context.Context, tx *sql.Tx, inv *Invitation, userID string, now time.Time) error {
	if _, err := tx.ExecContext(ctx, `/* DB.redeemInvitation */
		INSERT INTO project_members (project_id, user_id, created_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING`,
		inv.ProjectID, userID, millis(now)); err != nil {
		return fmt.Errorf("db: unable to add member to project %s: %w", inv.ProjectID, err)
	}
	used := now.UTC().Truncate(time.Millisecond)
	if _, err := tx.ExecContext(ctx, `/* DB.redeemInvitation */
		UPDATE invitations SET used_at = ?, used_by = ? WHERE id = ?`, millis(used), userID, inv.ID); err != nil {
		return fmt.Errorf("db: unable to use invitation %s: %w", inv.ID, err)
	}
	inv.UsedAt, inv.UsedBy = &used, userID
	return nil
}

func isForeignKeyViolation(err error) bool {
	var se sqlite3.Error
	return errors.As(err, &se) && se.ExtendedCode == sqlite3.ErrConstraintForeignKey
}

func scanInvitation(s scanner) (Invitation, error) {
	var inv Invitation
	var created, expires int64
	var used, revoked sql.NullInt64
	err := s.Scan(&inv.ID, &inv.ProjectID, &inv.ProjectName, &inv.Email, &inv.Hash, &inv.InvitedBy, &inv.InviterEmail,
		&created, &expires, &used, &inv.UsedBy, &revoked)
	inv.CreatedAt, inv.ExpiresAt = fromMillis(created), fromMillis(expires)
	inv.UsedAt, inv.RevokedAt = fromNullMillis(used), fromNullMillis(revoked)
	return inv, err
}
