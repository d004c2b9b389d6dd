package db

import (
	"context"
	"database/sql"
	"fmt"
)

// insertReferrers stores the referral sources of the views to store (use)
// that the dictionary does not know yet, or finds them if another writer
// stored them first, and returns their ids.
func insertReferrers(ctx context.Context, tx *sql.Tx, dict *AnalyticsDict, views []NewPageView, use []bool) (map[ViewReferral]int64, error) {
	var fresh map[ViewReferral]int64
	for i := range views {
		r := views[i].Referral
		if !use[i] || r == (ViewReferral{}) {
			continue
		}
		if _, ok := dict.referrers[r]; ok {
			continue
		}
		if _, ok := fresh[r]; ok {
			continue
		}
		var id int64
		if err := tx.QueryRowContext(ctx, `/* DB.InsertPageViews */
			INSERT INTO analytics_referrers (source, channel, name) VALUES (?, ?, ?)
			ON CONFLICT (source, channel, name) DO UPDATE SET source = excluded.source RETURNING id`,
			r.Source, r.Channel, r.Name).Scan(&id); err != nil {
			return nil, err
		}
		if fresh == nil {
			fresh = map[ViewReferral]int64{}
		}
		fresh[r] = id
	}
	return fresh, nil
}

// referrerID is the id of a view's referral source (0 for direct), from
// the dictionary or the ones this batch stored; dict.mu must be held.
func (dict *AnalyticsDict) referrerID(r ViewReferral, fresh map[ViewReferral]int64) int64 {
	if r == (ViewReferral{}) {
		return 0
	}
	if id, ok := dict.referrers[r]; ok {
		return id
	}
	return fresh[r]
}

// AnalyticsReferrerCounts counts a site's human views at from <= at < to
// by where they came from, and the distinct visitors among them: one row
// per referral source, and one with the zero ViewReferral for the direct
// views. A path other than "" narrows the count to that page's views.
func (d *DB) AnalyticsReferrerCounts(ctx context.Context, siteID, from, to int64, path string) ([]ReferrerCount, error) {
	q := `/* DB.AnalyticsReferrerCounts */
		SELECT coalesce(r.source, ''), coalesce(r.channel, ''), coalesce(r.name, ''), count(*), count(DISTINCT v.visitor_id)
		FROM analytics_views v LEFT JOIN analytics_referrers r ON r.id = v.referrer_id
		WHERE v.site_id = ? AND v.class = 0 AND v.at >= ? AND v.at < ?`
	args := []any{siteID, from, to}
	if path != "" {
		q += ` AND v.path_id = (SELECT id FROM analytics_paths WHERE site_id = ? AND path = ?)`
		args = append(args, siteID, path)
	}
	q += ` GROUP BY v.referrer_id`
	rows, err := d.r.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("db: unable to count views by referrer: %w", err)
	}
	defer rows.Close()
	var out []ReferrerCount
	for rows.Next() {
		var c ReferrerCount
		if err := rows.Scan(&c.Referral.Source, &c.Referral.Channel, &c.Referral.Name, &c.Views, &c.Visitors); err != nil {
			return nil, fmt.Errorf("db: unable to count views by referrer: %w", err)
		}
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("db: unable to count views by referrer: %w", err)
	}
	return out, nil
}

// AnalyticsChannelCounts counts a site's human views at from <= at < to
// by channel ("" for direct), and the distinct visitors among them; and
// the same for each AI assistant, by the list's name for it (which may
// have several hosts: chatgpt.com and chat.openai.com are ChatGPT).
func (d *DB) AnalyticsChannelCounts(ctx context.Context, siteID, from, to int64) ([]ChannelCount, error) {
	rows, err := d.r.QueryContext(ctx, `/* DB.AnalyticsChannelCounts */
		SELECT coalesce(r.channel, ''), '', count(*), count(DISTINCT v.visitor_id)
		FROM analytics_views v LEFT JOIN analytics_referrers r ON r.id = v.referrer_id
		WHERE v.site_id = ? AND v.class = 0 AND v.at >= ? AND v.at < ?
		GROUP BY coalesce(r.channel, '')
		UNION ALL
		SELECT r.channel, r.name, count(*), count(DISTINCT v.visitor_id)
		FROM analytics_views v JOIN analytics_referrers r ON r.id = v.referrer_id
		WHERE v.site_id = ? AND v.class = 0 AND v.at >= ? AND v.at < ? AND r.channel = 'aiAssistant'
		GROUP BY r.name`, siteID, from, to, siteID, from, to)
	if err != nil {
		return nil, fmt.Errorf("db: unable to count views by channel: %w", err)
	}
	defer rows.Close()
	var out []ChannelCount
	for rows.Next() {
		var c ChannelCount
		if err := rows.Scan(&c.Channel, &c.Name, &c.Views, &c.Visitors); err != nil {
			return nil, fmt.Errorf("db: unable to count views by channel: %w", err)
		}
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("db: unable to count views by channel: %w", err)
	}
	return out, nil
}
