package db

import (
	"bytes"
	"context"
	"crypto/rand"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/folio-docs/folio/model"
)

// AnalyticsDict caches a site's path ids (path → id) so ingest does not
// look them up for every view. Ids never change once assigned, so a cache
// can only be incomplete, never wrong.
type AnalyticsDict struct {
	mu    sync.Mutex
	paths map[string]int64
	// agents are agents' ids (analytics_agents), for this site's ingest
	agents map[ViewAgent]int64
	// referrers are referral sources' ids (analytics_referrers)
	referrers map[ViewReferral]int64
	// insertViews is the full-size multi-row views INSERT, prepared once:
	// parsing it for every batch cost as much as running it.
	insertViews *sql.Stmt
}

// NewAnalyticsDict returns an empty cache for one site.
func NewAnalyticsDict() *AnalyticsDict {
	return &AnalyticsDict{paths: map[string]int64{}, agents: map[ViewAgent]int64{}, referrers: map[ViewReferral]int64{}}
}

// siteDicts are a DB's dictionary caches, one per site, made on first use.
type siteDicts struct {
	mu    sync.Mutex
	sites map[int64]*AnalyticsDict
}

func (c *siteDicts) of(siteID int64) *AnalyticsDict {
	c.mu.Lock()
	defer c.mu.Unlock()
	dict, ok := c.sites[siteID]
	if !ok {
		if c.sites == nil {
			c.sites = map[int64]*AnalyticsDict{}
		}
		dict = NewAnalyticsDict()
		c.sites[siteID] = dict
	}
	return dict
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

// AnalyticsSiteID returns the site id of a project, or model.ErrNotFound when it
// has never had traffic.
func (d *DB) AnalyticsSiteID(ctx context.Context, projectID string) (int64, error) {
	var id int64
	err := d.r.QueryRowContext(ctx, `/* DB.AnalyticsSiteID */ SELECT id FROM analytics_sites WHERE project_id = ?`, projectID).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, model.ErrNotFound
	}
	if err != nil {
		return 0, fmt.Errorf("db: unable to fetch the analytics site of project %s: %w", projectID, err)
	}
	return id, nil
}

// AnalyticsSecret returns the install's visitor-identity secret, creating
// a random one the first time: every process that opens the database gets
// the same secret, so they all derive the same key for a UTC day.
func (d *DB) AnalyticsSecret(ctx context.Context) ([]byte, error) {
	fresh := make([]byte, 32)
	rand.Read(fresh)
	var secret []byte
	err := d.tx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `/* DB.AnalyticsSecret */ INSERT OR IGNORE INTO analytics_secret (id, secret) VALUES (1, ?)`, fresh); err != nil {
			return err
		}
		return tx.QueryRowContext(ctx, `/* DB.AnalyticsSecret */ SELECT secret FROM analytics_secret WHERE id = 1`).Scan(&secret)
	})
	if err != nil {
		return nil, fmt.Errorf("db: unable to fetch the visitor-identity secret: %w", err)
	}
	return secret, nil
}

// rowsPerInsert is how many rows one multi-row INSERT carries: few round
// trips through cgo and few statements to parse, well under SQLite's limit
// of bound parameters (32,766).
const rowsPerInsert = 500

// InsertPageViews stores views for a site in one transaction and returns how
// many were stored (views whose log line was imported before are skipped).
// Everything is written with multi-row statements: the batch's imported-line
// hashes, its paths missing from the cache (each distinct one once), then
// the views. Either all of it commits or none.
func (d *DB) InsertPageViews(ctx context.Context, siteID int64, dict *AnalyticsDict, views []NewPageView) (int, error) {
	n, _, err := d.InsertPageViewsOnce(ctx, siteID, dict, views, nil, nil)
	return n, err
}

// StorePageViews is InsertPageViewsOnce through the site's dictionary
// cache this DB keeps: one for the DB's life, shared by every caller (ids
// never change, so a shared cache is at worst incomplete).
func (d *DB) StorePageViews(ctx context.Context, siteID int64, views []NewPageView, more *Interactions, batch *EventBatch) (stored int, replayed bool, err error) {
	return d.InsertPageViewsOnce(ctx, siteID, d.dicts.of(siteID), views, more, batch)
}

// InsertPageViewsOnce is InsertPageViews for a batch named by an
// Idempotency-Key (batch may be nil): when the same key came with the same
// body within IdempotencyTTL, nothing is stored and the first answer is
// returned with replayed true; with another body it is
// model.ErrIdempotencyConflict. The check and the insert are one transaction.
// The batch's searches and feedback (more, may be nil) are stored in it
// too, each counted as stored.
func (d *DB) InsertPageViewsOnce(ctx context.Context, siteID int64, dict *AnalyticsDict, views []NewPageView, more *Interactions, batch *EventBatch) (stored int, replayed bool, err error) {
	newPaths := map[string]int64{}
	newAgents := map[ViewAgent]int64{}
	var newReferrers map[ViewReferral]int64
	// Prepared outside the transaction: the writer has one connection.
	insertViews, err := dict.prepareInsertViews(ctx, d)
	if err != nil {
		return 0, false, fmt.Errorf("db: unable to prepare storing page views: %w", err)
	}
	now := time.Now()
	err = d.tx(ctx, func(tx *sql.Tx) error {
		stored, replayed = 0, false
		if batch != nil {
			var hash []byte
			var accepted, created int64
			err := tx.QueryRowContext(ctx, `/* DB.InsertPageViewsOnce */
				SELECT body_hash, accepted, created_at FROM analytics_event_batches WHERE site_id = ? AND key = ?`,
				siteID, batch.Key).Scan(&hash, &accepted, &created)
			switch {
			case errors.Is(err, sql.ErrNoRows):
			case err != nil:
				return err
			case created < millis(now.Add(-IdempotencyTTL)):
				// Expired: the key names a new batch.
			case !bytes.Equal(hash, batch.BodyHash):
				return model.ErrIdempotencyConflict
			default:
				stored, replayed = int(accepted), true
				return nil
			}
		}
		dict.mu.Lock()
		defer dict.mu.Unlock()
		fresh, err := insertLineHashes(ctx, tx, siteID, views)
		if err != nil {
			return err
		}
		keep := func(v *NewPageView) bool {
			if v.LineHash == nil {
				return true
			}
			// A line twice in one batch is stored once: the first takes it.
			if _, ok := fresh[string(v.LineHash)]; !ok {
				return false
			}
			delete(fresh, string(v.LineHash))
			return true
		}
		var paths []string
		use := make([]bool, len(views))
		for i := range views {
			v := &views[i]
			if use[i] = keep(v); !use[i] {
				continue
			}
			if _, ok := dict.paths[v.Path]; !ok {
				if _, ok := newPaths[v.Path]; !ok {
					newPaths[v.Path] = 0
					paths = append(paths, v.Path)
				}
			}
		}
		clear(newAgents)
		for i := range views {
			if a := views[i].Agent; use[i] && a != (ViewAgent{}) {
				if _, ok := dict.agents[a]; !ok {
					newAgents[a] = 0
				}
			}
		}
		for a := range newAgents {
			var id int64
			if err := tx.QueryRowContext(ctx, `/* DB.InsertPageViews */
				INSERT INTO analytics_agents (name, operator) VALUES (?, ?)
				ON CONFLICT (name, operator) DO UPDATE SET name = excluded.name RETURNING id`, a.Name, a.Operator).Scan(&id); err != nil {
				return err
			}
			newAgents[a] = id
		}
		if newReferrers, err = insertReferrers(ctx, tx, dict, views, use); err != nil {
			return err
		}
		if err := upsertDict(ctx, tx, `/* DB.InsertPageViews */ INSERT INTO analytics_paths (site_id, path) VALUES `,
			` ON CONFLICT (site_id, path) DO UPDATE SET path = excluded.path RETURNING id, path`,
			siteID, paths, func(p string) any { return p }, func(id int64, raw []byte) { newPaths[string(raw)] = id }); err != nil {
			return err
		}
		rows := make([]any, 0, viewColumns*rowsPerInsert)
		flush := func() error {
			if len(rows) == 0 {
				return nil
			}
			var err error
			if len(rows) == viewColumns*rowsPerInsert {
				_, err = tx.StmtContext(ctx, insertViews).ExecContext(ctx, rows...)
			} else {
				_, err = tx.ExecContext(ctx, insertViewsSQL(len(rows)/viewColumns), rows...)
			}
			rows = rows[:0]
			return err
		}
		for i := range views {
			if !use[i] {
				continue
			}
			v := &views[i]
			pathID, ok := dict.paths[v.Path]
			if !ok {
				pathID = newPaths[v.Path]
			}
			if pathID == 0 || v.VisitorID <= 0 {
				return fmt.Errorf("no dictionary id for path %q or no visitor id", v.Path)
			}
			var agentID int64
			if v.Agent != (ViewAgent{}) {
				if agentID, ok = dict.agents[v.Agent]; !ok {
					agentID = newAgents[v.Agent]
				}
			}
			rows = append(rows, siteID, v.At, pathID, v.VisitorID, v.Class, agentID, dict.referrerID(v.Referral, newReferrers))
			stored++
			if len(rows) == viewColumns*rowsPerInsert {
				if err := flush(); err != nil {
					return err
				}
			}
		}
		if err := flush(); err != nil {
			return err
		}
		if more != nil {
			if err := insertInteractions(ctx, tx, siteID, more); err != nil {
				return err
			}
			stored += more.Len()
		}
		if batch == nil {
			return nil
		}
		if _, err := tx.ExecContext(ctx, `/* DB.InsertPageViewsOnce */ DELETE FROM analytics_event_batches WHERE created_at < ?`,
			millis(now.Add(-IdempotencyTTL))); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `/* DB.InsertPageViewsOnce */
			INSERT OR REPLACE INTO analytics_event_batches (site_id, key, body_hash, accepted, created_at) VALUES (?, ?, ?, ?, ?)`,
			siteID, batch.Key, batch.BodyHash, stored, millis(now))
		return err
	})
	if errors.Is(err, model.ErrIdempotencyConflict) {
		return 0, false, err
	}
	if err != nil {
		return 0, false, fmt.Errorf("db: unable to store %d page views and %d other events: %w", len(views), more.Len(), err)
	}
	if replayed {
		return stored, true, nil
	}
	// Ids join the cache only once they are committed.
	dict.mu.Lock()
	for p, id := range newPaths {
		dict.paths[p] = id
	}
	for a, id := range newAgents {
		dict.agents[a] = id
	}
	for r, id := range newReferrers {
		dict.referrers[r] = id
	}
	dict.mu.Unlock()
	return stored, false, nil
}

// viewColumns is how many values insertViewsSQL takes per view.
const viewColumns = 7

// insertViewsSQL stores n views.
func insertViewsSQL(n int) string {
	return `/* DB.InsertPageViews */ INSERT INTO analytics_views (site_id, at, path_id, visitor_id, class, agent_id, referrer_id) VALUES ` +
		placeholders(n, "(?, ?, ?, ?, ?, ?, ?)")
}

// prepareInsertViews returns the full-size views INSERT, preparing it on
// first use.
func (dict *AnalyticsDict) prepareInsertViews(ctx context.Context, d *DB) (*sql.Stmt, error) {
	dict.mu.Lock()
	stmt := dict.insertViews
	dict.mu.Unlock()
	if stmt != nil {
		return stmt, nil
	}
	// Not under mu: a transaction holding the writer's one connection may
	// be waiting for mu.
	stmt, err := d.w.PrepareContext(ctx, insertViewsSQL(rowsPerInsert))
	if err != nil {
		return nil, err
	}
	dict.mu.Lock()
	defer dict.mu.Unlock()
	if dict.insertViews != nil {
		_ = stmt.Close() // a twin another goroutine prepared first is kept; this one was never used
		return dict.insertViews, nil
	}
	dict.insertViews = stmt
	return stmt, nil
}

// insertLineHashes records the imported-line hashes of views and returns
// those not recorded before (as strings), which are the lines to store.
func insertLineHashes(ctx context.Context, tx *sql.Tx, siteID int64, views []NewPageView) (map[string]struct{}, error) {
	var hashes [][]byte
	for _, v := range views {
		if v.LineHash != nil {
			hashes = append(hashes, v.LineHash)
		}
	}
	fresh := map[string]struct{}{}
	for chunk := range slices.Chunk(hashes, rowsPerInsert) {
		args := make([]any, 0, 2*len(chunk))
		for _, h := range chunk {
			args = append(args, siteID, h)
		}
		// INSERT OR IGNORE returns only the rows it inserted.
		// #nosec G202 -- only placeholders are joined into the SQL; the values go as arguments
		rows, err := tx.QueryContext(ctx, `/* DB.InsertPageViews */ INSERT OR IGNORE INTO analytics_imported_lines (site_id, hash) VALUES `+
			placeholders(len(chunk), "(?, ?)")+` RETURNING hash`, args...)
		if err != nil {
			return nil, err
		}
		err = scanIDs(rows, func(_ int64, h []byte) { fresh[string(h)] = struct{}{} }, false)
		if err != nil {
			return nil, err
		}
	}
	return fresh, nil
}

// upsertDict inserts dictionary entries (paths or visitor keys) of a site,
// or finds them if another writer stored them first, and reports each id
// with its entry: RETURNING's order is unspecified, so entries are matched
// by value, not by position.
func upsertDict[T any](ctx context.Context, tx *sql.Tx, insert, conflict string, siteID int64, entries []T, arg func(T) any, found func(id int64, entry []byte)) error {
	for chunk := range slices.Chunk(entries, rowsPerInsert) {
		args := make([]any, 0, 2*len(chunk))
		for _, e := range chunk {
			args = append(args, siteID, arg(e))
		}
		rows, err := tx.QueryContext(ctx, insert+placeholders(len(chunk), "(?, ?)")+conflict, args...)
		if err != nil {
			return err
		}
		if err := scanIDs(rows, found, true); err != nil {
			return err
		}
	}
	return nil
}

// scanIDs reads rows of (id, value) — or of value alone without withID —
// and closes them.
func scanIDs(rows *sql.Rows, fn func(id int64, value []byte), withID bool) error {
	defer rows.Close()
	var id int64
	var value []byte
	for rows.Next() {
		var err error
		if withID {
			err = rows.Scan(&id, &value)
		} else {
			err = rows.Scan(&value)
		}
		if err != nil {
			return err
		}
		fn(id, value)
	}
	return rows.Err()
}

// placeholders is n copies of row separated by commas, for a multi-row VALUES.
func placeholders(n int, row string) string {
	var b strings.Builder
	b.Grow(n * (len(row) + 2))
	for i := range n {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(row)
	}
	return b.String()
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

// AnalyticsView reads one view of a site by id, or model.ErrNotFound: an index
// snapshot checks with it that the view it ends at is the database's.
func (d *DB) AnalyticsView(ctx context.Context, siteID, id int64) (PageView, error) {
	v := PageView{ID: id}
	err := d.r.QueryRowContext(ctx, `/* DB.AnalyticsView */ SELECT at, path_id, visitor_id, class FROM analytics_views WHERE id = ? AND site_id = ?`,
		id, siteID).Scan(&v.At, &v.PathID, &v.VisitorID, &v.Class)
	if errors.Is(err, sql.ErrNoRows) {
		return v, model.ErrNotFound
	}
	if err != nil {
		return v, fmt.Errorf("db: unable to read page view %d: %w", id, err)
	}
	return v, nil
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

// AnalyticsViewColumns reads the views of a site with afterID < id <= uptoID,
// column-wise. SQLite packs each column of the range into one text value
// (the numbers comma-separated; the four aggregates step over the same rows
// in the same order) parsed here: reading views one row at a time through
// database/sql cost several times as much, and concatenating a view's
// fields into one value in SQL twice as much as this.
func (d *DB) AnalyticsViewColumns(ctx context.Context, siteID, afterID, uptoID int64) (PageViewColumns, error) {
	var at, path, visitor, class, agent, referrer []byte
	err := d.r.QueryRowContext(ctx, `/* DB.AnalyticsViewColumns */
		SELECT coalesce(group_concat(at), ''), coalesce(group_concat(path_id), ''),
			coalesce(group_concat(visitor_id), ''), coalesce(group_concat(class), ''), coalesce(group_concat(agent_id), ''),
			coalesce(group_concat(referrer_id), '')
		FROM analytics_views WHERE site_id = ? AND id > ? AND id <= ?`, siteID, afterID, uptoID).Scan(&at, &path, &visitor, &class, &agent, &referrer)
	if err != nil {
		return PageViewColumns{}, fmt.Errorf("db: unable to read page views %d to %d: %w", afterID+1, uptoID, err)
	}
	var c PageViewColumns
	var classes []int64
	for _, col := range []struct {
		text []byte
		dst  *[]int64
	}{{at, &c.At}, {path, &c.PathID}, {visitor, &c.VisitorID}, {class, &classes}, {agent, &c.AgentID}, {referrer, &c.ReferrerID}} {
		if *col.dst, err = parseInts(col.text); err != nil {
			return PageViewColumns{}, fmt.Errorf("db: unable to read page views %d to %d: %w", afterID+1, uptoID, err)
		}
	}
	n := len(c.At)
	if len(c.PathID) != n || len(c.VisitorID) != n || len(classes) != n || len(c.AgentID) != n || len(c.ReferrerID) != n {
		return PageViewColumns{}, fmt.Errorf("db: page views %d to %d read as columns of different lengths", afterID+1, uptoID)
	}
	c.Class = make([]uint8, n)
	for i, v := range classes {
		if v < 0 || v > math.MaxUint8 {
			return PageViewColumns{}, fmt.Errorf("db: page views %d to %d: a class of %d (want 0 to 255)", afterID+1, uptoID, v)
		}
		c.Class[i] = uint8(v)
	}
	return c, nil
}

// parseInts reads comma-separated decimal integers.
func parseInts(text []byte) ([]int64, error) {
	if len(text) == 0 {
		return nil, nil
	}
	out := make([]int64, 0, 1+bytes.Count(text, []byte{','}))
	for i := 0; i < len(text); i++ {
		neg := text[i] == '-'
		if neg {
			i++
		}
		start := i
		var v int64
		for ; i < len(text) && text[i] != ','; i++ {
			b := text[i] - '0'
			if b > 9 {
				return nil, fmt.Errorf("unexpected byte %q in a number", text[i])
			}
			v = v*10 + int64(b)
		}
		if i == start {
			return nil, fmt.Errorf("an empty number")
		}
		if neg {
			v = -v
		}
		out = append(out, v)
	}
	return out, nil
}

// AnalyticsAgentsByID reads the agents' dictionary entries of ids (ids
// not in it are left out).
func (d *DB) AnalyticsAgentsByID(ctx context.Context, ids []int64) (map[int64]ViewAgent, error) {
	out := make(map[int64]ViewAgent, len(ids))
	err := d.byID(ctx, `/* DB.AnalyticsAgentsByID */ SELECT id, name, operator FROM analytics_agents WHERE id IN (`, ids, func(rows *sql.Rows) error {
		var id int64
		var a ViewAgent
		err := rows.Scan(&id, &a.Name, &a.Operator)
		out[id] = a
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("db: unable to read agents: %w", err)
	}
	return out, nil
}

// AnalyticsReferrersByID reads the referrers' dictionary entries of ids
// (ids not in it are left out).
func (d *DB) AnalyticsReferrersByID(ctx context.Context, ids []int64) (map[int64]ViewReferral, error) {
	out := make(map[int64]ViewReferral, len(ids))
	err := d.byID(ctx, `/* DB.AnalyticsReferrersByID */ SELECT id, source, channel, name FROM analytics_referrers WHERE id IN (`, ids, func(rows *sql.Rows) error {
		var id int64
		var r ViewReferral
		err := rows.Scan(&id, &r.Source, &r.Channel, &r.Name)
		out[id] = r
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("db: unable to read referrers: %w", err)
	}
	return out, nil
}

// byID runs query, a SELECT whose WHERE ends in "id IN (", for ids, a
// chunk of them at a time, and calls scan for each row.
func (d *DB) byID(ctx context.Context, query string, ids []int64, scan func(*sql.Rows) error) error {
	for chunk := range slices.Chunk(ids, rowsPerInsert) {
		args := make([]any, len(chunk))
		for i, id := range chunk {
			args[i] = id
		}
		// #nosec G202 -- only placeholders are joined into the SQL; the ids go as arguments
		rows, err := d.r.QueryContext(ctx, query+placeholders(len(chunk), "?")+`)`, args...)
		if err != nil {
			return err
		}
		for rows.Next() {
			if err := scan(rows); err != nil {
				_ = rows.Close() // the scan's error is the one to report
				return err
			}
		}
		if err := errors.Join(rows.Err(), rows.Close()); err != nil {
			return err
		}
	}
	return nil
}

// AnalyticsSiteIDs lists every site: project id → site id.
func (d *DB) AnalyticsSiteIDs(ctx context.Context) (map[string]int64, error) {
	rows, err := d.r.QueryContext(ctx, `/* DB.AnalyticsSiteIDs */ SELECT project_id, id FROM analytics_sites`)
	if err != nil {
		return nil, fmt.Errorf("db: unable to list analytics sites: %w", err)
	}
	sites, err := scanInt64s(rows)
	if err != nil {
		return nil, fmt.Errorf("db: unable to list analytics sites: %w", err)
	}
	return sites, nil
}

// AnalyticsAgentCounts counts a site's views at from <= at < to by agent
// and class, and the distinct visitors among them: every view of a class
// but human (0), a view no agent is named for (agent_id 0) under the
// zero ViewAgent. A path other than "" narrows the count to that page's
// views.
func (d *DB) AnalyticsAgentCounts(ctx context.Context, siteID, from, to int64, path string) ([]AgentCount, error) {
	q := `/* DB.AnalyticsAgentCounts */
		SELECT coalesce(a.name, ''), coalesce(a.operator, ''), v.class, count(*), count(DISTINCT v.visitor_id)
		FROM analytics_views v LEFT JOIN analytics_agents a ON a.id = v.agent_id
		WHERE v.site_id = ? AND v.class != 0 AND v.at >= ? AND v.at < ?`
	args := []any{siteID, from, to}
	if path != "" {
		q += ` AND v.path_id = (SELECT id FROM analytics_paths WHERE site_id = ? AND path = ?)`
		args = append(args, siteID, path)
	}
	q += ` GROUP BY v.agent_id, v.class`
	rows, err := d.r.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("db: unable to count views by agent: %w", err)
	}
	defer rows.Close()
	var out []AgentCount
	for rows.Next() {
		var c AgentCount
		if err := rows.Scan(&c.Agent.Name, &c.Agent.Operator, &c.Class, &c.Views, &c.Visitors); err != nil {
			return nil, fmt.Errorf("db: unable to count views by agent: %w", err)
		}
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("db: unable to count views by agent: %w", err)
	}
	return out, nil
}

// AnalyticsAgentPathCounts counts, per page, a site's views of class at
// from <= at < to made by the agents called name (of any operator) or,
// when name is "", those no agent is named for, and the distinct visitors
// among them.
func (d *DB) AnalyticsAgentPathCounts(ctx context.Context, siteID, from, to int64, name string, class uint8) ([]PathCount, error) {
	q := `/* DB.AnalyticsAgentPathCounts */
		SELECT p.path, count(*), count(DISTINCT v.visitor_id)
		FROM analytics_views v JOIN analytics_paths p ON p.id = v.path_id
		WHERE v.site_id = ? AND v.class = ? AND v.at >= ? AND v.at < ? AND `
	args := []any{siteID, class, from, to}
	if name != "" {
		q += `v.agent_id IN (SELECT id FROM analytics_agents WHERE name = ?)`
		args = append(args, name)
	} else {
		q += `v.agent_id = 0`
	}
	rows, err := d.r.QueryContext(ctx, q+` GROUP BY v.path_id`, args...)
	if err != nil {
		return nil, fmt.Errorf("db: unable to count an agent's views by page: %w", err)
	}
	defer rows.Close()
	var out []PathCount
	for rows.Next() {
		var c PathCount
		if err := rows.Scan(&c.Path, &c.Views, &c.Visitors); err != nil {
			return nil, fmt.Errorf("db: unable to count an agent's views by page: %w", err)
		}
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("db: unable to count an agent's views by page: %w", err)
	}
	return out, nil
}
