package db

import (
	"context"
	"database/sql"
	"embed"
	"fmt"
	"io/fs"
	"sort"
	"strconv"
	"strings"
	"time"
)

//go:embed migrations/*.sql
var migrations embed.FS

// Migration is one embedded .sql file, named NNNN_description.sql.
type Migration struct {
	Version int
	Name    string
	SQL     string
}

func loadMigrations() ([]Migration, error) {
	entries, err := fs.ReadDir(migrations, "migrations")
	if err != nil {
		return nil, err
	}
	var out []Migration
	for _, e := range entries {
		name := e.Name()
		num, _, ok := strings.Cut(name, "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil || !strings.HasSuffix(name, ".sql") {
			return nil, fmt.Errorf("db: migration %q is not named NNNN_description.sql", name)
		}
		body, err := migrations.ReadFile("migrations/" + name)
		if err != nil {
			return nil, err
		}
		out = append(out, Migration{Version: v, Name: name, SQL: string(body)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Version < out[j].Version })
	for i := 1; i < len(out); i++ {
		if out[i].Version == out[i-1].Version {
			return nil, fmt.Errorf("db: two migrations share version %d", out[i].Version)
		}
	}
	return out, nil
}

// Migrate applies every embedded migration not yet applied, each in its own
// transaction, and returns the names of those it applied.
func (d *DB) Migrate(ctx context.Context) ([]string, error) {
	all, err := loadMigrations()
	if err != nil {
		return nil, err
	}
	if _, err := d.w.ExecContext(ctx, `/* DB.Migrate */
		CREATE TABLE IF NOT EXISTS schema_migrations (
			version    INTEGER PRIMARY KEY,
			name       TEXT NOT NULL,
			applied_at INTEGER NOT NULL
		)`); err != nil {
		return nil, fmt.Errorf("db: unable to create schema_migrations: %w", err)
	}
	var applied []string
	for _, m := range all {
		err := d.tx(ctx, func(tx *sql.Tx) error {
			var n int
			if err := tx.QueryRowContext(ctx, `/* DB.Migrate */ SELECT count(*) FROM schema_migrations WHERE version = ?`, m.Version).Scan(&n); err != nil {
				return err
			}
			if n > 0 {
				return nil
			}
			if _, err := tx.ExecContext(ctx, m.SQL); err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, `/* DB.Migrate */ INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)`,
				m.Version, m.Name, millis(time.Now())); err != nil {
				return err
			}
			applied = append(applied, m.Name)
			return nil
		})
		if err != nil {
			return applied, fmt.Errorf("db: unable to apply migration %s: %w", m.Name, err)
		}
	}
	return applied, nil
}
