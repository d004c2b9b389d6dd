package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"text/tabwriter"

	"github.com/folio-docs/folio/analytics"
)

// cmdBackup writes a consistent copy of the database while Folio runs:
// SQLite's VACUUM INTO reads one snapshot and lets writers carry on. It
// prints the copy's path and size and its main tables' row counts. The
// analytics index snapshots go beside the copy, so a restored server
// starts from them instead of reading every view.
func cmdBackup(ctx context.Context, args []string, e env) error {
	fs := newFlags("backup", "backup --to FILE", e)
	to := fs.String("to", "", "the backup `file` to write (must not exist)")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if *to == "" || len(pos) > 0 {
		return usageError(fs, "backup needs --to FILE and nothing else")
	}
	cfg, err := loadConfig(e.getenv)
	if err != nil {
		return err
	}
	if _, err := os.Stat(cfg.DBPath); err != nil {
		return &exitError{code: 1, msg: fmt.Sprintf("no database at FOLIO_DB=%s: %v", cfg.DBPath, err)}
	}
	d, err := openDB(ctx, cfg)
	if err != nil {
		return err
	}
	defer d.Close()
	// Opened first, so each ends at a view the copy holds.
	snaps, err := analytics.OpenSnapshots(d.Path())
	if err != nil {
		return err
	}
	defer snaps.Close()
	b, err := d.Backup(ctx, *to)
	if errors.Is(err, os.ErrExist) {
		return &exitError{code: 1, msg: fmt.Sprintf("%s exists already: a backup never overwrites a file", *to)}
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "wrote %s: %d bytes\n", b.Path, b.Bytes)
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', tabwriter.AlignRight)
	for _, t := range b.Tables {
		fmt.Fprintf(tw, "%s\t%d\t\n", t.Table, t.Rows)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	copied, err := snaps.CopyBeside(b.Path)
	for _, c := range copied {
		fmt.Fprintf(e.stdout, "wrote %s: %d bytes (analytics index snapshot)\n", c.Path, c.Bytes)
	}
	if err != nil {
		return fmt.Errorf("the database's backup %s is complete, but not its analytics index snapshots (a server restored from it reads every view at its first start): %w", b.Path, err)
	}
	return nil
}
