package db

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/netip"
	"strings"
	"time"

	"github.com/folio-docs/folio/model"
)

// apiKeyColumns are a key's columns in scanAPIKey's order; k is api_keys.
// #nosec G101 -- column names, not a credential; a key is stored only as its hash
const apiKeyColumns = `k.id, k.name, k.hash, k.last_four, k.scope, k.all_projects, coalesce(k.created_by, ''),
	coalesce((SELECT email FROM users WHERE id = k.created_by), ''), k.allow_ips,
	coalesce((SELECT group_concat(project_id, ',' ORDER BY position) FROM api_key_projects WHERE key_id = k.id), ''),
	k.created_at, k.expires_at, k.last_used_at, k.revoked_at`

// keyOpens is the condition that key k opens the project bound first, as
// the project again second: it is listed for k, or k opens all of its
// creator's projects and the creator is a member of it.
const keyOpens = `(k.id IN (SELECT key_id FROM api_key_projects WHERE project_id = ?)
	OR (k.all_projects = 1 AND k.created_by IN (SELECT user_id FROM project_members WHERE project_id = ?)))`

// CreateAPIKey stores k with the projects it opens, giving it an id and
// creation time.
func (d *DB) CreateAPIKey(ctx context.Context, k APIKey) (APIKey, error) {
	k.ID = model.NewID()
	k.CreatedAt = time.Now().UTC().Truncate(time.Millisecond)
	err := d.tx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `/* DB.CreateAPIKey */
			INSERT INTO api_keys (id, name, hash, last_four, scope, all_projects, created_by, allow_ips, created_at, expires_at)
			VALUES (?, ?, ?, ?, ?, ?, nullif(?, ''), ?, ?, ?)`,
			k.ID, k.Name, k.Hash, k.LastFour, k.Scope, k.AllProjects, k.CreatedBy, joinPrefixes(k.AllowIPs),
			millis(k.CreatedAt), toNullMillis(k.ExpiresAt)); err != nil {
			return err
		}
		for i, p := range k.Projects {
			if _, err := tx.ExecContext(ctx, `/* DB.CreateAPIKey */
				INSERT INTO api_key_projects (key_id, project_id, position) VALUES (?, ?, ?)`, k.ID, p, i); err != nil {
				return err
			}
		}
		return nil
	})
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
		SELECT `+apiKeyColumns+` FROM api_keys k WHERE k.hash = ?`, hash))
	if errors.Is(err, sql.ErrNoRows) {
		return APIKey{}, model.ErrNotFound
	}
	if err != nil {
		return APIKey{}, fmt.Errorf("db: unable to fetch API key: %w", err)
	}
	return k, nil
}

// AuthKeyByHash finds a key by its hash for authenticating a request: only
// ID, Hash, Scope, Projects, AllProjects, CreatedBy, AllowIPs, ExpiresAt,
// LastUsedAt and RevokedAt are read (every API request makes this look-up;
// the name, last four, creator's email and creation time are not needed to
// decide). Revoked and expired keys are included.
func (d *DB) AuthKeyByHash(ctx context.Context, hash []byte) (APIKey, error) {
	rctx, err := pointRead(ctx)
	if err != nil {
		return APIKey{}, fmt.Errorf("db: unable to fetch API key: %w", err)
	}
	var k APIKey
	var projects, allow string
	var expires, used, revoked sql.NullInt64
	err = d.r.QueryRowContext(rctx, `/* DB.AuthKeyByHash */
		SELECT k.id, k.hash, k.scope, k.all_projects, coalesce(k.created_by, ''), k.allow_ips,
			coalesce((SELECT group_concat(project_id, ',' ORDER BY position) FROM api_key_projects WHERE key_id = k.id), ''),
			k.expires_at, k.last_used_at, k.revoked_at
		FROM api_keys k WHERE k.hash = ?`, hash).
		Scan(&k.ID, &k.Hash, &k.Scope, &k.AllProjects, &k.CreatedBy, &allow, &projects, &expires, &used, &revoked)
	if errors.Is(err, sql.ErrNoRows) {
		return APIKey{}, model.ErrNotFound
	}
	if err != nil {
		return APIKey{}, fmt.Errorf("db: unable to fetch API key: %w", err)
	}
	if k.AllowIPs, err = splitPrefixes(allow); err != nil {
		return APIKey{}, fmt.Errorf("db: API key %s: %w", k.ID, err)
	}
	k.Projects = splitList(projects)
	k.ExpiresAt, k.LastUsedAt, k.RevokedAt = fromNullMillis(expires), fromNullMillis(used), fromNullMillis(revoked)
	return k, nil
}

// APIKeysForProject lists the keys that open a project (those listed for
// it, and those for all of a member's projects), newest first, revoked
// ones included.
func (d *DB) APIKeysForProject(ctx context.Context, projectID string) ([]APIKey, error) {
	rows, err := d.r.QueryContext(ctx, `/* DB.APIKeysForProject */
		SELECT `+apiKeyColumns+` FROM api_keys k WHERE `+keyOpens+`
		ORDER BY k.created_at DESC, k.id`, projectID, projectID)
	if err != nil {
		return nil, fmt.Errorf("db: unable to list API keys: %w", err)
	}
	out, err := scanAll(rows, scanAPIKey)
	if err != nil {
		return nil, fmt.Errorf("db: unable to list API keys: %w", err)
	}
	return out, nil
}

// RevokeAPIKey marks a key that opens the project revoked, for every
// project it opens; revoking twice keeps the first time. Every process's
// cached keys are dropped before it returns (KeysVersion): like every
// statement that can end a key's validity, it runs inside changeKeys.
func (d *DB) RevokeAPIKey(ctx context.Context, projectID, keyID string) error {
	var n int64
	err := d.changeKeys(func() error {
		res, err := d.w.ExecContext(ctx, `/* DB.RevokeAPIKey */
			UPDATE api_keys AS k SET revoked_at = coalesce(revoked_at, ?) WHERE k.id = ? AND `+keyOpens,
			millis(time.Now()), keyID, projectID, projectID)
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
	var projects, allow string
	var created int64
	var expires, used, revoked sql.NullInt64
	if err := s.Scan(&k.ID, &k.Name, &k.Hash, &k.LastFour, &k.Scope, &k.AllProjects, &k.CreatedBy, &k.Creator, &allow, &projects,
		&created, &expires, &used, &revoked); err != nil {
		return APIKey{}, err
	}
	var err error
	if k.AllowIPs, err = splitPrefixes(allow); err != nil {
		return APIKey{}, fmt.Errorf("API key %s: %w", k.ID, err)
	}
	k.Projects = splitList(projects)
	k.CreatedAt = fromMillis(created)
	k.ExpiresAt, k.LastUsedAt, k.RevokedAt = fromNullMillis(expires), fromNullMillis(used), fromNullMillis(revoked)
	return k, nil
}

// joinPrefixes is an allowlist as api_keys.allow_ips keeps it.
func joinPrefixes(ps []netip.Prefix) string {
	s := make([]string, len(ps))
	for i, p := range ps {
		s[i] = p.String()
	}
	return strings.Join(s, ",")
}

// splitPrefixes reads api_keys.allow_ips. What cannot be read is an error,
// never an empty allowlist: that would open the key to every address.
func splitPrefixes(s string) ([]netip.Prefix, error) {
	if s == "" {
		return nil, nil
	}
	parts := strings.Split(s, ",")
	out := make([]netip.Prefix, len(parts))
	for i, p := range parts {
		var err error
		if out[i], err = netip.ParsePrefix(p); err != nil {
			return nil, fmt.Errorf("unreadable IP allowlist %q: %w", s, err)
		}
	}
	return out, nil
}

func splitList(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, ",")
}
