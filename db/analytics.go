package db

import (
	"context"
	"crypto/rand"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"sync"
)

// PageView is one stored page view, dictionary-encoded.
type PageView struct {
	ID        int64
	At        int64 // unix milliseconds
	PathID    int64
	VisitorID int64
	Class     uint8
}

// NewPageView is a page view to store. LineHash, when set, names the log
// line it came from: a line already imported into the site is skipped.
type NewPageView struct {
	At         int64 // unix milliseconds
	Path       string
	VisitorKey [16]byte
	Class      uint8
	LineHash   []byte
}

// AnalyticsDict caches a site's dictionary ids (path and visitor key → id)
// so ingest does not look them up for every view. Ids never change once
// assigned, so a cache can only be incomplete, never wrong.
type AnalyticsDict struct {
	mu       sync.Mutex
	paths    map[string]int64
	visitors map[[16]byte]int64
}

// NewAnalyticsDict returns an empty cache for one site.
func NewAnalyticsDict() *AnalyticsDict {
	return &AnalyticsDict{paths: map[string]int64{}, visitors: map[[16]byte]int64{}}
}

// AnalyticsSite returns the site id of a project, creating it on first use.
func (d *DB) AnalyticsSite(ctx context.Context, projectID string) (int64, error) {
	var id int64
	err := d.tx(ctx, func(tx *sql.Tx) error {
		return tx.QueryRowContext(ctx, `/* DB.AnalyticsSite */
			INSERT INTO analytics_sites (project_id) VALUES (?)
			ON CONFLICT (project_id) DO UPDATE SET project_id = excluded.project_id
			RETURNING id`, projectID).Scan(&id)
	})
	if err != nil {
		return 0, fmt.Errorf("db: unable to create the analytics site of project %s: %w", projectID, err)
	}
	return id, nil
}

// AnalyticsSiteID returns the site id of a project, or ErrNotFound when it
// has never had traffic.
func (d *DB) AnalyticsSiteID(ctx context.Context, projectID string) (int64, error) {
	var id int64
	err := d.r.QueryRowContext(ctx, `/* DB.AnalyticsSiteID */ SELECT id FROM analytics_sites WHERE project_id = ?`, projectID).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, ErrNotFound
	}
	if err != nil {
		return 0, fmt.Errorf("db: unable to fetch the analytics site of project %s: %w", projectID, err)
	}
	return id, nil
}

// AnalyticsSalt returns the visitor-hash key of a UTC day (days since the
// epoch), creating a random one if there is none, and deletes the keys of
// days before keepFrom other than day itself.
func (d *DB) AnalyticsSalt(ctx context.Context, day, keepFrom int64) ([]byte, error) {
	fresh := make([]byte, 32)
	rand.Read(fresh)
	var salt []byte
	err := d.tx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `/* DB.AnalyticsSalt */ DELETE FROM analytics_salts WHERE day < ? AND day != ?`, keepFrom, day); err != nil {
			return err
		}
		return tx.QueryRowContext(ctx, `/* DB.AnalyticsSalt */
			INSERT INTO analytics_salts (day, salt) VALUES (?, ?)
			ON CONFLICT (day) DO UPDATE SET salt = salt
			RETURNING salt`, day, fresh).Scan(&salt)
	})
	if err != nil {
		return nil, fmt.Errorf("db: unable to fetch the visitor key of day %d: %w", day, err)
	}
	return salt, nil
}

// AnalyticsSaltDays lists the days whose visitor-hash key is kept.
func (d *DB) AnalyticsSaltDays(ctx context.Context) ([]int64, error) {
	rows, err := d.r.QueryContext(ctx, `/* DB.AnalyticsSaltDays */ SELECT day FROM analytics_salts ORDER BY day`)
	if err != nil {
		return nil, fmt.Errorf("db: unable to list visitor keys: %w", err)
	}
	defer rows.Close()
	var days []int64
	for rows.Next() {
		var day int64
		if err := rows.Scan(&day); err != nil {
			return nil, fmt.Errorf("db: unable to list visitor keys: %w", err)
		}
		days = append(days, day)
	}
	return days, rows.Err()
}

// viewsPerInsert is how many views one INSERT carries: fewer round trips
// through cgo, well under SQLite's limit of bound parameters.
const viewsPerInsert = 200

// InsertPageViews stores views for a site in one transaction and returns how
// many were stored (views whose log line was imported before are skipped).
func (d *DB) InsertPageViews(ctx context.Context, siteID int64, dict *AnalyticsDict, views []NewPageView) (int, error) {
	newPaths := map[string]int64{}
	newVisitors := map[[16]byte]int64{}
	stored := 0
	err := d.tx(ctx, func(tx *sql.Tx) error {
		var lineStmt, pathStmt, visitorStmt *sql.Stmt
		defer func() {
			for _, s := range []*sql.Stmt{lineStmt, pathStmt, visitorStmt} {
				if s != nil {
					s.Close()
				}
			}
		}()
		prepare := func(s **sql.Stmt, query string) error {
			if *s != nil {
				return nil
			}
			var err error
			*s, err = tx.PrepareContext(ctx, query)
			return err
		}
		dict.mu.Lock()
		defer dict.mu.Unlock()
		rows := make([]any, 0, 5*viewsPerInsert)
		flush := func() error {
			if len(rows) == 0 {
				return nil
			}
			n := len(rows) / 5
			q := `/* DB.InsertPageViews */ INSERT INTO analytics_views (site_id, at, path_id, visitor_id, class) VALUES ` +
				strings.TrimSuffix(strings.Repeat("(?, ?, ?, ?, ?),", n), ",")
			_, err := tx.ExecContext(ctx, q, rows...)
			rows = rows[:0]
			return err
		}
		for _, v := range views {
			if v.LineHash != nil {
				if err := prepare(&lineStmt, `/* DB.InsertPageViews */ INSERT OR IGNORE INTO analytics_imported_lines (site_id, hash) VALUES (?, ?)`); err != nil {
					return err
				}
				res, err := lineStmt.ExecContext(ctx, siteID, v.LineHash)
				if err != nil {
					return err
				}
				if n, _ := res.RowsAffected(); n == 0 {
					continue
				}
			}
			pathID, ok := dict.paths[v.Path]
			if !ok {
				pathID, ok = newPaths[v.Path]
			}
			if !ok {
				if err := prepare(&pathStmt, `/* DB.InsertPageViews */ INSERT INTO analytics_paths (site_id, path) VALUES (?, ?)
					ON CONFLICT (site_id, path) DO UPDATE SET path = excluded.path RETURNING id`); err != nil {
					return err
				}
				if err := pathStmt.QueryRowContext(ctx, siteID, v.Path).Scan(&pathID); err != nil {
					return err
				}
				newPaths[v.Path] = pathID
			}
			visitorID, ok := dict.visitors[v.VisitorKey]
			if !ok {
				visitorID, ok = newVisitors[v.VisitorKey]
			}
			if !ok {
				if err := prepare(&visitorStmt, `/* DB.InsertPageViews */ INSERT INTO analytics_visitors (site_id, key) VALUES (?, ?)
					ON CONFLICT (site_id, key) DO UPDATE SET key = excluded.key RETURNING id`); err != nil {
					return err
				}
				if err := visitorStmt.QueryRowContext(ctx, siteID, v.VisitorKey[:]).Scan(&visitorID); err != nil {
					return err
				}
				newVisitors[v.VisitorKey] = visitorID
			}
			rows = append(rows, siteID, v.At, pathID, visitorID, v.Class)
			stored++
			if len(rows) == 5*viewsPerInsert {
				if err := flush(); err != nil {
					return err
				}
			}
		}
		if err := flush(); err != nil {
			return err
		}
		// Ids join the cache only once they are committed.
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("db: unable to store %d page views: %w", len(views), err)
	}
	dict.mu.Lock()
	for p, id := range newPaths {
		dict.paths[p] = id
	}
	for k, id := range newVisitors {
		dict.visitors[k] = id
	}
	dict.mu.Unlock()
	return stored, nil
}

// AnalyticsMaxViewID is the id of the newest stored view of a site (0 if none):
// views are append-only, so everything at or below it is what a reader sees.
func (d *DB) AnalyticsMaxViewID(ctx context.Context, siteID int64) (int64, error) {
	var id sql.NullInt64
	if err := d.r.QueryRowContext(ctx, `/* DB.AnalyticsMaxViewID */ SELECT max(id) FROM analytics_views WHERE site_id = ?`, siteID).Scan(&id); err != nil {
		return 0, fmt.Errorf("db: unable to read the newest page view: %w", err)
	}
	return id.Int64, nil
}

// AnalyticsPaths calls fn for every path of a site whose id is above afterID.
func (d *DB) AnalyticsPaths(ctx context.Context, siteID, afterID int64, fn func(id int64, path string)) error {
	rows, err := d.r.QueryContext(ctx, `/* DB.AnalyticsPaths */ SELECT id, path FROM analytics_paths WHERE site_id = ? AND id > ? ORDER BY id`, siteID, afterID)
	if err != nil {
		return fmt.Errorf("db: unable to list paths: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var path string
		if err := rows.Scan(&id, &path); err != nil {
			return fmt.Errorf("db: unable to list paths: %w", err)
		}
		fn(id, path)
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("db: unable to list paths: %w", err)
	}
	return nil
}

// AnalyticsViews calls fn, in id order, for every view of a site with
// afterID < id <= uptoID.
func (d *DB) AnalyticsViews(ctx context.Context, siteID, afterID, uptoID int64, fn func(PageView)) error {
	rows, err := d.r.QueryContext(ctx, `/* DB.AnalyticsViews */
		SELECT id, at, path_id, visitor_id, class FROM analytics_views
		WHERE site_id = ? AND id > ? AND id <= ? ORDER BY id`, siteID, afterID, uptoID)
	if err != nil {
		return fmt.Errorf("db: unable to read page views: %w", err)
	}
	defer rows.Close()
	var v PageView
	for rows.Next() {
		if err := rows.Scan(&v.ID, &v.At, &v.PathID, &v.VisitorID, &v.Class); err != nil {
			return fmt.Errorf("db: unable to read page views: %w", err)
		}
		fn(v)
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("db: unable to read page views: %w", err)
	}
	return nil
}
