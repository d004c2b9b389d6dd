package db

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/folio-docs/folio/model"
)

// DrainSettings returns a project's drain settings; a project that has
// none set has the zero settings (with its ProjectID).
func (d *DB) DrainSettings(ctx context.Context, projectID string) (model.DrainSettings, error) {
	s := model.DrainSettings{ProjectID: projectID}
	var updated int64
	err := d.r.QueryRowContext(ctx, `/* DB.DrainSettings */
		SELECT secret, vercel_verify, updated_at FROM analytics_drains WHERE project_id = ?`, projectID).
		Scan(&s.Secret, &s.VercelVerify, &updated)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return s, nil
	case err != nil:
		return s, fmt.Errorf("db: unable to fetch the drain settings of project %s: %w", projectID, err)
	}
	s.UpdatedAt = fromMillis(updated)
	return s, nil
}

// SetDrainSecret sets (or, with "", removes) a project's drain secret.
func (d *DB) SetDrainSecret(ctx context.Context, projectID, secret string) error {
	_, err := d.w.ExecContext(ctx, `/* DB.SetDrainSecret */
		INSERT INTO analytics_drains (project_id, secret, updated_at) VALUES (?, ?, ?)
		ON CONFLICT (project_id) DO UPDATE SET secret = excluded.secret, updated_at = excluded.updated_at`,
		projectID, secret, millis(time.Now()))
	if err != nil {
		return fmt.Errorf("db: unable to set the drain secret of project %s: %w", projectID, err)
	}
	return nil
}

// SetVercelVerify sets (or, with "", removes) the code a project answers
// Vercel's endpoint verification with.
func (d *DB) SetVercelVerify(ctx context.Context, projectID, code string) error {
	_, err := d.w.ExecContext(ctx, `/* DB.SetVercelVerify */
		INSERT INTO analytics_drains (project_id, vercel_verify, updated_at) VALUES (?, ?, ?)
		ON CONFLICT (project_id) DO UPDATE SET vercel_verify = excluded.vercel_verify, updated_at = excluded.updated_at`,
		projectID, code, millis(time.Now()))
	if err != nil {
		return fmt.Errorf("db: unable to set the Vercel verification code of project %s: %w", projectID, err)
	}
	return nil
}
