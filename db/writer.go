package db

import (
	"context"
	"database/sql"
)

// writer is the one connection Folio writes through. Its only ways to
// write commit through commit, so every write moves DataVersion: there is
// no path around it to forget.
type writer struct {
	db   *sql.DB
	data *sharedCounter // DataVersion; nil where the platform has none
}

// ExecContext runs one statement as its own transaction.
func (w writer) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	tx, err := w.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	res, err := tx.ExecContext(ctx, query, args...)
	if err != nil {
		_ = tx.Rollback() // the statement's error is the one to report; nothing was committed
		return nil, err
	}
	return res, w.commit(tx)
}

// PrepareContext prepares a statement for use inside a transaction.
func (w writer) PrepareContext(ctx context.Context, query string) (*sql.Stmt, error) {
	return w.db.PrepareContext(ctx, query)
}

// commit commits tx inside DataVersion's odd window. The transaction
// already holds SQLite's write lock (BEGIN IMMEDIATE), so every writer
// takes the two locks in the same order and none waits on another's.
func (w writer) commit(tx *sql.Tx) error {
	err := w.data.change(tx.Commit)
	if err != nil {
		_ = tx.Rollback() // a no-op once committed; ends it if the lock failed (the lock's error is reported)
	}
	return err
}

// DataVersion lets a process keep what it read from the database in memory
// and still see, on its next read, a write committed by any process: serve,
// a worker beside it, the CLI. Like KeysVersion, it is a counter in a file
// beside the database ("<db>-data") mapped into every process, odd while a
// write commits and even, and higher, after. A value read at an even v
// before a read of the database is good for exactly as long as the counter
// still reads v. ok is false while a write is committing, or where the
// platform has no shared counter: then nothing may be kept. (The session
// library writes its own table around it; nothing keeps sessions.)
func (d *DB) DataVersion() (v uint64, ok bool) {
	if d.w.data == nil {
		return 0, false
	}
	v = d.w.data.load()
	return v, v%2 == 0
}
