// Package db owns Folio's SQLite database: the connection discipline, the
// migrations and every SQL statement the service runs.
package db

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"time"

	_ "github.com/mattn/go-sqlite3" // registers the "sqlite3" driver
)

// DB is Folio's database: one writer connection, because SQLite admits one
// writer at a time and a single connection turns lock contention into a queue,
// and a pool of readers that WAL lets run beside it.
type DB struct {
	w    writer
	r    *sql.DB
	path string
	keys *sharedCounter // KeysVersion
	// dicts are the sites' dictionary caches StorePageViews uses.
	dicts siteDicts
}

// Open opens (creating if needed) the SQLite file at path. It does not migrate;
// call Migrate for that.
func Open(ctx context.Context, path string) (*DB, error) {
	if dir := filepath.Dir(path); dir != "" {
		if err := os.MkdirAll(dir, 0o750); err != nil {
			return nil, fmt.Errorf("db: unable to create directory for %s: %w", path, err)
		}
	}
	params := url.Values{}
	params.Set("_journal_mode", "WAL")
	params.Set("_busy_timeout", "10000")
	params.Set("_foreign_keys", "on")
	params.Set("_synchronous", "NORMAL")
	params.Set("_txlock", "immediate")
	// Keep each connection's prepared statements: preparing was a third of
	// the cost of a point read (BENCHMARKS.md). The driver re-prepares a
	// cached statement itself when the schema changes.
	params.Set("_stmt_cache_size", "64")
	wdb, err := sql.Open("sqlite3", "file:"+path+"?"+params.Encode())
	if err != nil {
		return nil, fmt.Errorf("db: unable to open %s: %w", path, err)
	}
	wdb.SetMaxOpenConns(1)
	wdb.SetConnMaxIdleTime(0)
	if err := wdb.PingContext(ctx); err != nil {
		_ = wdb.Close() // the open failed; that failure is the one to report
		return nil, fmt.Errorf("db: unable to open %s: %w", path, err)
	}

	params.Del("_txlock")
	params.Set("mode", "ro")
	reader, err := sql.Open("sqlite3", "file:"+path+"?"+params.Encode())
	if err != nil {
		_ = wdb.Close() // the open failed; that failure is the one to report
		return nil, fmt.Errorf("db: unable to open %s for reading: %w", path, err)
	}
	n := max(4, 2*runtime.NumCPU())
	reader.SetMaxOpenConns(n)
	reader.SetMaxIdleConns(n)
	keys, err := openSharedCounter(path + "-keys")
	if err != nil {
		_ = errors.Join(reader.Close(), wdb.Close()) // the open failed; that failure is the one to report
		return nil, fmt.Errorf("db: unable to open the keys version: %w", err)
	}
	data, err := openSharedCounter(path + "-data")
	if err != nil {
		_ = errors.Join(keys.close(), reader.Close(), wdb.Close()) // the open failed; that failure is the one to report
		return nil, fmt.Errorf("db: unable to open the data version: %w", err)
	}
	return &DB{w: writer{db: wdb, data: data}, r: reader, path: path, keys: keys}, nil
}

// Close closes both pools and the keys version; nothing may use d after.
func (d *DB) Close() error {
	err := errors.Join(d.r.Close(), d.w.db.Close())
	for _, c := range []*sharedCounter{d.keys, d.w.data} {
		if c != nil {
			err = errors.Join(err, c.close())
		}
	}
	return err
}

// Ping checks that the database answers a query.
func (d *DB) Ping(ctx context.Context) error {
	var one int
	if err := d.r.QueryRowContext(ctx, `/* DB.Ping */ SELECT 1`).Scan(&one); err != nil {
		return fmt.Errorf("db: ping: %w", err)
	}
	return nil
}

// pointRead is the context for a read of one row by a unique key on the hot
// path of every API request. It keeps ctx's values but not its
// cancellation: database/sql starts a goroutine per query to watch a
// cancellable context (and the driver registers a callback), which cost
// more than the read itself, and a read of microseconds gains nothing from
// being interruptible midway. A context already done still stops it.
func pointRead(ctx context.Context) (context.Context, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return context.WithoutCancel(ctx), nil
}

// Path is the file the database lives in.
func (d *DB) Path() string { return d.path }

// tx runs fn in a write transaction (BEGIN IMMEDIATE), committing when fn
// returns nil.
func (d *DB) tx(ctx context.Context, fn func(*sql.Tx) error) error {
	tx, err := d.w.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := fn(tx); err != nil {
		_ = tx.Rollback() // fn's error is the one to report; nothing of tx is committed either way
		return err
	}
	return d.w.commit(tx)
}

// queryAll runs query on the readers and scans each row with scan; what
// names it in errors.
func queryAll[T any](ctx context.Context, d *DB, what string, scan func(scanner) (T, error), query string, args ...any) ([]T, error) {
	rows, err := d.r.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("db: unable to %s: %w", what, err)
	}
	defer rows.Close()
	out := []T{}
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, fmt.Errorf("db: unable to %s: %w", what, err)
		}
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("db: unable to %s: %w", what, err)
	}
	return out, nil
}

// millis is how times are stored: integer milliseconds since the Unix epoch, UTC.
func millis(t time.Time) int64 { return t.UnixMilli() }

func fromMillis(ms int64) time.Time { return time.UnixMilli(ms).UTC() }

func fromNullMillis(ms sql.NullInt64) *time.Time {
	if !ms.Valid {
		return nil
	}
	t := fromMillis(ms.Int64)
	return &t
}

func fromNullInt(n sql.NullInt64) *int64 {
	if !n.Valid {
		return nil
	}
	return &n.Int64
}

func toNullMillis(t *time.Time) sql.NullInt64 {
	if t == nil {
		return sql.NullInt64{}
	}
	return sql.NullInt64{Int64: millis(*t), Valid: true}
}
