package db

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/folio-docs/folio/model"
)

// IdempotencyTTL is how long an Idempotency-Key of job creation is honoured.
const IdempotencyTTL = 24 * time.Hour

// IdempotencyKeyByKey finds a key of a project stored within IdempotencyTTL.
func (d *DB) IdempotencyKeyByKey(ctx context.Context, projectID, key string) (IdempotencyKey, error) {
	k := IdempotencyKey{ProjectID: projectID, Key: key}
	var created int64
	err := d.r.QueryRowContext(ctx, `/* DB.IdempotencyKeyByKey */
		SELECT body_hash, job_id, created_at FROM idempotency_keys
		WHERE project_id = ? AND key = ? AND created_at >= ?`,
		projectID, key, millis(time.Now().Add(-IdempotencyTTL))).Scan(&k.BodyHash, &k.JobID, &created)
	if errors.Is(err, sql.ErrNoRows) {
		return IdempotencyKey{}, model.ErrNotFound
	}
	if err != nil {
		return IdempotencyKey{}, fmt.Errorf("db: unable to fetch an idempotency key: %w", err)
	}
	k.CreatedAt = fromMillis(created)
	return k, nil
}
