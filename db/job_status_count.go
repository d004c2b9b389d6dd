package db

import (
	"context"
	"fmt"
)

// JobsByStatus counts the jobs in each status.
func (d *DB) JobsByStatus(ctx context.Context) (map[string]int64, error) {
	rows, err := d.r.QueryContext(ctx, `/* DB.JobsByStatus */ SELECT status, COUNT(*) FROM jobs GROUP BY status`)
	if err != nil {
		return nil, fmt.Errorf("db: unable to count jobs by status: %w", err)
	}
	out, err := scanInt64s(rows)
	if err != nil {
		return nil, fmt.Errorf("db: unable to count jobs by status: %w", err)
	}
	return out, nil
}
