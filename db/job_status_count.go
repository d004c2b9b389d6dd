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
	defer rows.Close()
	out := map[string]int64{}
	for rows.Next() {
		var s string
		var n int64
		if err := rows.Scan(&s, &n); err != nil {
			return nil, fmt.Errorf("db: unable to count jobs by status: %w", err)
		}
		out[s] = n
	}
	return out, rows.Err()
}
