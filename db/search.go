package db

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/folio-docs/folio/model"
)

// insertInteractions stores the interactions of a site in tx, with
// multi-row INSERTs.
func insertInteractions(ctx context.Context, tx *sql.Tx, siteID int64, in *Interactions) error {
	if err := insertRows(ctx, tx, `/* DB.InsertPageViewsOnce */ INSERT INTO analytics_searches (site_id, at, query, results) VALUES `, "(?, ?, ?, ?)",
		in.Searches, func(s NewSearch) []any { return []any{siteID, s.At, s.Query, s.Results} }); err != nil {
		return err
	}
	if err := insertRows(ctx, tx, `/* DB.InsertPageViewsOnce */ INSERT INTO analytics_search_clicks (site_id, at, query, path) VALUES `, "(?, ?, ?, ?)",
		in.Clicks, func(c NewSearchClick) []any { return []any{siteID, c.At, c.Query, c.Path} }); err != nil {
		return err
	}
	return insertRows(ctx, tx, `/* DB.InsertPageViewsOnce */ INSERT INTO analytics_feedback
		(id, site_id, at, path, source, helpful, comment, contact, code, filename, lang, status) VALUES `, "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
		in.Feedback, func(f model.Feedback) []any {
			return []any{f.ID, siteID, millis(f.CreatedAt), f.Path, string(f.Source), nullBool(f.Helpful),
				nullString(f.Comment), nullString(f.Contact), codeOf(f), nullString(f.Filename), nullString(f.Lang), string(model.FeedbackPending)}
		})
}

// codeOf is a feedback's code as stored: set exactly on a code snippet's.
func codeOf(f model.Feedback) any {
	if f.Source == model.FeedbackCodeSnippet {
		return f.Code
	}
	return nil
}

// insertRows inserts rows with multi-row statements of at most
// rowsPerInsert rows each.
func insertRows[T any](ctx context.Context, tx *sql.Tx, insert, row string, rows []T, args func(T) []any) error {
	for start := 0; start < len(rows); start += rowsPerInsert {
		chunk := rows[start:min(start+rowsPerInsert, len(rows))]
		var values []any
		for _, r := range chunk {
			values = append(values, args(r)...)
		}
		if _, err := tx.ExecContext(ctx, insert+placeholders(len(chunk), row), values...); err != nil {
			return err
		}
	}
	return nil
}

func nullString(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func nullBool(b *bool) any {
	if b == nil {
		return nil
	}
	return *b
}

// SearchTerms returns a site's search terms with from <= at < to, by
// searches descending then term, the page [offset, offset+limit).
func (d *DB) SearchTerms(ctx context.Context, siteID, from, to int64, limit, offset int) ([]SearchTerm, error) {
	return queryAll(ctx, d, "fetch search terms", func(s scanner) (SearchTerm, error) {
		var t SearchTerm
		return t, s.Scan(&t.Query, &t.Hits, &t.LastAt)
	}, `/* DB.SearchTerms */
		SELECT query, count(*) AS hits, max(at) FROM analytics_searches
		WHERE site_id = ? AND at >= ? AND at < ?
		GROUP BY query ORDER BY hits DESC, query LIMIT ? OFFSET ?`, siteID, from, to, limit, offset)
}

// SearchCount is how many searches a site had with from <= at < to.
func (d *DB) SearchCount(ctx context.Context, siteID, from, to int64) (int, error) {
	var n int
	err := d.r.QueryRowContext(ctx, `/* DB.SearchCount */
		SELECT count(*) FROM analytics_searches WHERE site_id = ? AND at >= ? AND at < ?`, siteID, from, to).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("db: unable to count searches: %w", err)
	}
	return n, nil
}

// SearchClicks counts, for each of the terms, the results opened from it
// with from <= at < to, by term and page.
func (d *DB) SearchClicks(ctx context.Context, siteID, from, to int64, queries []string) ([]SearchClickCount, error) {
	if len(queries) == 0 {
		return nil, nil
	}
	args := []any{siteID, from, to}
	for _, q := range queries {
		args = append(args, q)
	}
	return queryAll(ctx, d, "count search clicks", func(s scanner) (SearchClickCount, error) {
		var c SearchClickCount
		return c, s.Scan(&c.Query, &c.Path, &c.Clicks)
	}, `/* DB.SearchClicks */
		SELECT query, path, count(*) FROM analytics_search_clicks
		WHERE site_id = ? AND at >= ? AND at < ? AND query IN (`+strings.TrimSuffix(strings.Repeat("?, ", len(queries)), ", ")+`)
		GROUP BY query, path`, args...)
}
