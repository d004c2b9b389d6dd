package db

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/folio-docs/folio/model"
)

const apiKeyColumns = `id, project_id, name, hash, last_four, scope, created_at, expires_at, last_used_at, revoked_at`

// CreateAPIKey stores k, giving it an id and creation time.
func (d *DB) CreateAPIKey(ctx context.Context, k APIKey) (APIKey, error) {
	k.ID = model.NewID()
	k.CreatedAt = time.Now().UTC().Truncate(time.Millisecond)
	_, err := d.w.ExecContext(ctx, `/* DB.CreateAPIKey */
		INSERT INTO api_keys (id, project_id, name, hash, last_four, scope, created_at, expires_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
		k.ID, k.ProjectID, k.Name, k.Hash, k.LastFour, k.Scope, millis(k.CreatedAt), toNullMillis(k.ExpiresAt))
	if err != nil {
		return APIKey{}, fmt.Errorf("db: unable to create API key: %w", err)
	}
	return k, nil
}

// APIKeyByHash finds a key, revoked and expired ones included, by its hash.
func (d *DB) APIKeyByHash(ctx context.Context, hash []byte) (APIKey, error) {
	rctx, err := pointRead(ctx)
	if err != nil {
		return APIKey{}, fmt.Errorf("db: unable to fetch API key: %w", err)
	}
	k, err := scanAPIKey(d.r.QueryRowContext(rctx, `/* DB.APIKeyByHash */
		SELECT `+apiKeyColumns+` FROM api_keys WHERE hash = ?`, hash))
	if errors.Is(err, sql.ErrNoRows) {
		return APIKey{}, model.ErrNotFound
	}
	if err != nil {
		return APIKey{}, fmt.Errorf("db: unable to fetch API key: %w", err)
	}
	return k, nil
}

// AuthKeyByHash finds a key by its hash for authenticating a request: only
// ID, ProjectID, Hash, Scope, ExpiresAt, LastUsedAt and RevokedAt are read
// (every API request makes this look-up; the name, last four and creation
// time are not needed to decide). Revoked and expired keys are included.
func (d *DB) AuthKeyByHash(ctx context.Context, hash []byte) (APIKey, error) {
	rctx, err := pointRead(ctx)
	if err != nil {
		return APIKey{}, fmt.Errorf("db: unable to fetch API key: %w", err)
	}
	var k APIKey
	var expires, used, revoked sql.NullInt64
	err = d.r.QueryRowContext(rctx, `/* DB.AuthKeyByHash */
		SELECT id, project_id, hash, scope, expires_at, last_used_at, revoked_at FROM api_keys WHERE hash = ?`, hash).
		Scan(&k.ID, &k.ProjectID, &k.Hash, &k.Scope, &expires, &used, &revoked)
	if errors.Is(err, sql.ErrNoRows) {
		return APIKey{}, model.ErrNotFound
	}
	if err != nil {
		return APIKey{}, fmt.Errorf("db: unable to fetch API key: %w", err)
	}
	k.ExpiresAt, k.LastUsedAt, k.RevokedAt = fromNullMillis(expires), fromNullMillis(used), fromNullMillis(revoked)
	return k, nil
}

// APIKeysForProject lists a project's keys, newest first, revoked ones included.
func (d *DB) APIKeysForProject(ctx context.Context, projectID string) ([]APIKey, error) {
	rows, err := d.r.QueryContext(ctx, `/* DB.APIKeysForProject */
		SELECT `+apiKeyColumns+` FROM api_keys WHERE project_id = ? ORDER BY created_at DESC, id`, projectID)
	if err != nil {
		return nil, fmt.Errorf("db: unable to list API keys: %w", err)
	}
	defer rows.Close()
	var out []APIKey
	for rows.Next() {
		k, err := scanAPIKey(rows)
		if err != nil {
			return nil, fmt.Errorf("db: unable to list API keys: %w", err)
		}
		out = append(out, k)
	}
	return out, rows.Err()
}

// RevokeAPIKey marks a project's key revoked; revoking twice keeps the first
// time. Every process's cached keys are dropped before it returns
// (KeysVersion): like every statement that can end a key's validity, it
// runs inside changeKeys.
func (d *DB) RevokeAPIKey(ctx context.Context, projectID, keyID string) error {
	var n int64
	err := d.changeKeys(func() error {
		res, err := d.w.ExecContext(ctx, `/* DB.RevokeAPIKey */
			UPDATE api_keys SET revoked_at = coalesce(revoked_at, ?) WHERE project_id = ? AND id = ?`,
			millis(time.Now()), projectID, keyID)
		if err != nil {
			return err
		}
		n, _ = res.RowsAffected()
		return nil
	})
	if err != nil {
		return fmt.Errorf("db: unable to revoke API key %s: %w", keyID, err)
	}
	if n == 0 {
		return model.ErrNotFound
	}
	return nil
}

// TouchAPIKey records that a key was used at t.
func (d *DB) TouchAPIKey(ctx context.Context, keyID string, t time.Time) error {
	_, err := d.w.ExecContext(ctx, `/* DB.TouchAPIKey */
		UPDATE api_keys SET last_used_at = ? WHERE id = ? AND coalesce(last_used_at, 0) < ?`, millis(t), keyID, millis(t))
	if err != nil {
		return fmt.Errorf("db: unable to record use of API key %s: %w", keyID, err)
	}
	return nil
}

func scanAPIKey(s scanner) (APIKey, error) {
	var k APIKey
	var created int64
	var expires, used, revoked sql.NullInt64
	if err := s.Scan(&k.ID, &k.ProjectID, &k.Name, &k.Hash, &k.LastFour, &k.Scope, &created, &expires, &used, &revoked); err != nil {
		return APIKey{}, err
	}
	k.CreatedAt = fromMillis(created)
	k.ExpiresAt, k.LastUsedAt, k.RevokedAt = fromNullMillis(expires), fromNullMillis(used), fromNullMillis(revoked)
	return k, nil
}
