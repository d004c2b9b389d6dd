package db

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/folio-docs/folio/model"
)

// ProjectMembers lists a project's members in the order they joined.
func (d *DB) ProjectMembers(ctx context.Context, projectID string) ([]Member, error) {
	rows, err := d.r.QueryContext(ctx, `/* DB.ProjectMembers */
		SELECT u.id, u.email, m.created_at FROM project_members m JOIN users u ON u.id = m.user_id
		WHERE m.project_id = ? ORDER BY m.created_at, u.email`, projectID)
	if err != nil {
		return nil, fmt.Errorf("db: unable to list members of project %s: %w", projectID, err)
	}
	defer rows.Close()
	var out []Member
	for rows.Next() {
		var m Member
		var added int64
		if err := rows.Scan(&m.UserID, &m.Email, &added); err != nil {
			return nil, fmt.Errorf("db: unable to list members of project %s: %w", projectID, err)
		}
		m.AddedAt = fromMillis(added)
		out = append(out, m)
	}
	return out, rows.Err()
}

// SessionStore is the connection the dashboard's session library keeps its
// own table (sessions, created by our migrations) through. It is the writer,
// because the library writes on every sign-in; Folio's own SQL stays in this
// package.
func (d *DB) SessionStore() *sql.DB { return d.w.db }

// RemoveProjectMember takes a user out of a project. A user who is not a
// member is model.ErrNotFound; the project's only member stays (model.ErrLastMember).
// Checking and deleting share one write transaction, so two members removing
// each other at once cannot leave the project with nobody.
func (d *DB) RemoveProjectMember(ctx context.Context, projectID, userID string) error {
	return d.tx(ctx, func(tx *sql.Tx) error {
		var isMember, members int
		err := tx.QueryRowContext(ctx, `/* DB.RemoveProjectMember */
			SELECT count(*) FILTER (WHERE user_id = ?), count(*) FROM project_members WHERE project_id = ?`,
			userID, projectID).Scan(&isMember, &members)
		if err != nil {
			return fmt.Errorf("db: unable to remove member from project %s: %w", projectID, err)
		}
		if isMember == 0 {
			return model.ErrNotFound
		}
		if members == 1 {
			return model.ErrLastMember
		}
		if _, err := tx.ExecContext(ctx, `/* DB.RemoveProjectMember */
			DELETE FROM project_members WHERE project_id = ? AND user_id = ?`, projectID, userID); err != nil {
			return fmt.Errorf("db: unable to remove member from project %s: %w", projectID, err)
		}
		return nil
	})
}
