package db

import "database/sql"

// scanner is a row to scan: *sql.Row or *sql.Rows.
type scanner interface{ Scan(...any) error }

// scanAll reads every row with scan, then closes rows; none is a nil slice.
func scanAll[T any](rows *sql.Rows, scan func(scanner) (T, error)) ([]T, error) {
	defer rows.Close()
	var out []T
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

// scanInt64s reads rows of a key and a number into a map, then closes rows.
func scanInt64s(rows *sql.Rows) (map[string]int64, error) {
	defer rows.Close()
	out := map[string]int64{}
	for rows.Next() {
		var k string
		var n int64
		if err := rows.Scan(&k, &n); err != nil {
			return nil, err
		}
		out[k] = n
	}
	return out, rows.Err()
}
