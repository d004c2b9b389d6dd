package db

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/folio-docs/folio/model"
)

// feedbackWhere is the filter as a WHERE clause over analytics_feedback,
// and its arguments.
func feedbackWhere(siteID int64, f FeedbackFilter) (string, []any) {
	clause := "site_id = ? AND at >= ? AND at < ?"
	args := []any{siteID, f.From, f.To}
	if f.Source != "" {
		clause += " AND source = ?"
		args = append(args, string(f.Source))
	}
	if len(f.Statuses) > 0 {
		clause += " AND status IN (" + strings.TrimSuffix(strings.Repeat("?, ", len(f.Statuses)), ", ") + ")"
		for _, s := range f.Statuses {
			args = append(args, string(s))
		}
	}
	return clause, args
}

// FeedbackList returns up to limit of a site's feedback picked by f,
// newest first (then by id, descending), after the key when one is given.
func (d *DB) FeedbackList(ctx context.Context, siteID int64, f FeedbackFilter, after *FeedbackKey, limit int) ([]model.Feedback, error) {
	where, args := feedbackWhere(siteID, f)
	if after != nil {
		where += " AND (at < ? OR at = ? AND id < ?)"
		args = append(args, after.At, after.At, after.ID)
	}
	args = append(args, limit)
	return queryAll(ctx, d, "list feedback", scanFeedback, `/* DB.FeedbackList */
		SELECT id, at, path, source, helpful, comment, contact, code, filename, lang, status, status_at
		FROM analytics_feedback WHERE `+where+` ORDER BY at DESC, id DESC LIMIT ?`, args...)
}

func scanFeedback(s scanner) (model.Feedback, error) {
	var f model.Feedback
	var at int64
	var helpful sql.NullBool
	var comment, contact, code, filename, lang sql.NullString
	var statusAt sql.NullInt64
	err := s.Scan(&f.ID, &at, &f.Path, &f.Source, &helpful, &comment, &contact, &code, &filename, &lang, &f.Status, &statusAt)
	if err != nil {
		return f, err
	}
	f.CreatedAt = fromMillis(at)
	if helpful.Valid {
		f.Helpful = &helpful.Bool
	}
	f.Comment, f.Contact, f.Code, f.Filename, f.Lang = comment.String, contact.String, code.String, filename.String, lang.String
	if statusAt.Valid {
		f.StatusAt = fromMillis(statusAt.Int64)
	}
	return f, nil
}

// FeedbackByPage counts a site's feedback picked by f per page, by total
// descending then path, the page [offset, offset+limit).
func (d *DB) FeedbackByPage(ctx context.Context, siteID int64, f FeedbackFilter, limit, offset int) ([]FeedbackPage, error) {
	where, args := feedbackWhere(siteID, f)
	args = append(args, limit, offset)
	return queryAll(ctx, d, "count feedback by page", func(s scanner) (FeedbackPage, error) {
		var p FeedbackPage
		return p, s.Scan(&p.Path, &p.ThumbsUp, &p.ThumbsDown, &p.Code, &p.Total)
	}, `/* DB.FeedbackByPage */
		SELECT path,
			count(*) FILTER (WHERE source <> 'code_snippet' AND helpful = 1),
			count(*) FILTER (WHERE source <> 'code_snippet' AND helpful = 0),
			count(*) FILTER (WHERE source = 'code_snippet'),
			count(*) AS total
		FROM analytics_feedback WHERE `+where+`
		GROUP BY path ORDER BY total DESC, path LIMIT ? OFFSET ?`, args...)
}

// FeedbackStatusCounts counts a site's feedback picked by f (its statuses
// aside) by status.
func (d *DB) FeedbackStatusCounts(ctx context.Context, siteID int64, f FeedbackFilter) (map[model.FeedbackStatus]int, error) {
	f.Statuses = nil
	where, args := feedbackWhere(siteID, f)
	type count struct {
		status model.FeedbackStatus
		n      int
	}
	rows, err := queryAll(ctx, d, "count feedback by status", func(s scanner) (count, error) {
		var c count
		return c, s.Scan(&c.status, &c.n)
	}, `/* DB.FeedbackStatusCounts */ SELECT status, count(*) FROM analytics_feedback WHERE `+where+` GROUP BY status`, args...)
	if err != nil {
		return nil, err
	}
	out := map[model.FeedbackStatus]int{}
	for _, c := range rows {
		out[c.status] = c.n
	}
	return out, nil
}

// SetFeedbackStatus moves one of a site's feedback to status and returns
// it as it now is, or says model.ErrFeedbackNotFound.
func (d *DB) SetFeedbackStatus(ctx context.Context, siteID int64, id string, status model.FeedbackStatus, at time.Time) (model.Feedback, error) {
	var f model.Feedback
	err := d.tx(ctx, func(tx *sql.Tx) error {
		var err error
		f, err = scanFeedback(tx.QueryRowContext(ctx, `/* DB.SetFeedbackStatus */
			UPDATE analytics_feedback SET status = ?, status_at = ? WHERE site_id = ? AND id = ?
			RETURNING id, at, path, source, helpful, comment, contact, code, filename, lang, status, status_at`, string(status), millis(at), siteID, id))
		return err
	})
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return f, model.ErrFeedbackNotFound
	case err != nil:
		return f, fmt.Errorf("db: unable to set the status of feedback %s: %w", id, err)
	}
	return f, nil
}
