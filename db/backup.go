package db

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
)

// BackupTables are the tables a backup reports the row counts of: what an
// operator would check first in a restored copy.
var BackupTables = []string{"users", "projects", "api_keys", "jobs", "job_messages", "webhook_deliveries", "analytics_views"}

// Backup is what Backup wrote.
type Backup struct {
	Path   string
	Bytes  int64
	Tables []TableRows // BackupTables, in order
}

// TableRows is one table's row count in a backup.
type TableRows struct {
	Table string
	Rows  int64
}

// Backup writes a consistent copy of the database to path with VACUUM INTO,
// which reads one snapshot in a read transaction: writers in this and other
// processes carry on meanwhile (WAL), and the copy holds every transaction
// committed before it began and none after. The copy is written beside path
// and renamed into place, so path never holds half a backup. An existing
// path is an error, not overwritten.
func (d *DB) Backup(ctx context.Context, path string) (Backup, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return Backup{}, fmt.Errorf("db: unable to back up to %s: %w", path, err)
	}
	if _, err := os.Stat(abs); err == nil {
		return Backup{}, fmt.Errorf("db: unable to back up to %s: %w", abs, os.ErrExist)
	}
	tmp, err := os.CreateTemp(filepath.Dir(abs), filepath.Base(abs)+".partial-*")
	if err != nil {
		return Backup{}, fmt.Errorf("db: unable to back up to %s: %w", abs, err)
	}
	tmpPath := tmp.Name()
	_ = tmp.Close()        // only its unique name was wanted; nothing was written
	_ = os.Remove(tmpPath) // VACUUM INTO wants a file that does not exist, or is empty as this one is if it stays
	defer os.Remove(tmpPath)
	if _, err := d.r.ExecContext(ctx, `/* DB.Backup */ VACUUM INTO ?`, tmpPath); err != nil {
		return Backup{}, fmt.Errorf("db: unable to back up to %s: %w", abs, err)
	}
	if err := os.Chmod(tmpPath, 0o600); err != nil {
		return Backup{}, fmt.Errorf("db: unable to back up to %s: %w", abs, err)
	}
	// A hard link fails if abs appeared meanwhile, where a rename would
	// replace it.
	if err := os.Link(tmpPath, abs); err != nil {
		return Backup{}, fmt.Errorf("db: unable to back up to %s: %w", abs, err)
	}
	return InspectBackup(ctx, abs)
}

// InspectBackup reports a backup file's size and its main tables' row
// counts, read from the file itself.
func InspectBackup(ctx context.Context, path string) (Backup, error) {
	st, err := os.Stat(path)
	if err != nil {
		return Backup{}, fmt.Errorf("db: unable to read the backup %s: %w", path, err)
	}
	b := Backup{Path: path, Bytes: st.Size()}
	params := url.Values{}
	params.Set("mode", "ro")
	conn, err := sql.Open("sqlite3", "file:"+path+"?"+params.Encode())
	if err != nil {
		return Backup{}, fmt.Errorf("db: unable to open the backup %s: %w", path, err)
	}
	defer conn.Close()
	var check string
	if err := conn.QueryRowContext(ctx, `/* InspectBackup */ PRAGMA quick_check`).Scan(&check); err != nil {
		return Backup{}, fmt.Errorf("db: unable to check the backup %s: %w", path, err)
	}
	if check != "ok" {
		return Backup{}, fmt.Errorf("db: the backup %s is damaged: %s", path, check)
	}
	for _, t := range BackupTables {
		var n int64
		// The table names are ours (BackupTables), never input.
		if err := conn.QueryRowContext(ctx, `/* InspectBackup */ SELECT COUNT(*) FROM `+t).Scan(&n); err != nil {
			return Backup{}, fmt.Errorf("db: unable to count %s in the backup %s: %w", t, path, err)
		}
		b.Tables = append(b.Tables, TableRows{Table: t, Rows: n})
	}
	return b, nil
}
