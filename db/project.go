package db

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/folio-docs/folio/model"
)

const projectColumns = `id, name, repository, ref, model, coalesce(owner_id, ''), webhook_url, webhook_secret, draft_prs, allowed_domains, created_at, updated_at`

// CreateProject stores p with a new id; an owner, if set, becomes its first member.
func (d *DB) CreateProject(ctx context.Context, p Project) (Project, error) {
	now := time.Now().UTC().Truncate(time.Millisecond)
	p.ID, p.CreatedAt, p.UpdatedAt = model.NewID(), now, now
	if p.Ref == "" {
		p.Ref = "main"
	}
	err := d.tx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `/* DB.CreateProject */
			INSERT INTO projects (id, name, repository, ref, model, owner_id, webhook_url, webhook_secret, draft_prs, allowed_domains, created_at, updated_at)
			VALUES (?, ?, ?, ?, ?, nullif(?, ''), ?, ?, ?, ?, ?, ?)`,
			p.ID, p.Name, p.Repository, p.Ref, p.Model, p.OwnerID, p.WebhookURL, p.WebhookSecret, p.DraftPRs, p.AllowedDomains, millis(now), millis(now))
		if err != nil {
			return err
		}
		if p.OwnerID != "" {
			_, err = tx.ExecContext(ctx, `/* DB.CreateProject */
				INSERT INTO project_members (project_id, user_id, created_at) VALUES (?, ?, ?)`, p.ID, p.OwnerID, millis(now))
		}
		return err
	})
	if err != nil {
		return Project{}, fmt.Errorf("db: unable to create project: %w", err)
	}
	return p, nil
}

// UpdateProject writes every editable field of p.
func (d *DB) UpdateProject(ctx context.Context, p Project) (Project, error) {
	p.UpdatedAt = time.Now().UTC().Truncate(time.Millisecond)
	res, err := d.w.ExecContext(ctx, `/* DB.UpdateProject */
		UPDATE projects SET name = ?, repository = ?, ref = ?, model = ?, webhook_url = ?, webhook_secret = ?,
			draft_prs = ?, allowed_domains = ?, updated_at = ?
		WHERE id = ?`,
		p.Name, p.Repository, p.Ref, p.Model, p.WebhookURL, p.WebhookSecret, p.DraftPRs, p.AllowedDomains, millis(p.UpdatedAt), p.ID)
	if err != nil {
		return Project{}, fmt.Errorf("db: unable to update project %s: %w", p.ID, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return Project{}, model.ErrProjectNotFound
	}
	return p, nil
}

// ProjectByID finds a project.
func (d *DB) ProjectByID(ctx context.Context, id string) (Project, error) {
	row := d.r.QueryRowContext(ctx, `/* DB.ProjectByID */ SELECT `+projectColumns+` FROM projects WHERE id = ?`, id)
	p, err := scanProject(row)
	if errors.Is(err, sql.ErrNoRows) {
		return Project{}, model.ErrProjectNotFound
	}
	if err != nil {
		return Project{}, fmt.Errorf("db: unable to fetch project %s: %w", id, err)
	}
	return p, nil
}

// ProjectsForUser lists the projects a user is a member of, newest first.
func (d *DB) ProjectsForUser(ctx context.Context, userID string) ([]Project, error) {
	rows, err := d.r.QueryContext(ctx, `/* DB.ProjectsForUser */
		SELECT `+projectColumns+` FROM projects
		WHERE id IN (SELECT project_id FROM project_members WHERE user_id = ?)
		ORDER BY created_at DESC, id`, userID)
	if err != nil {
		return nil, fmt.Errorf("db: unable to list projects: %w", err)
	}
	out, err := scanAll(rows, scanProject)
	if err != nil {
		return nil, fmt.Errorf("db: unable to list projects: %w", err)
	}
	return out, nil
}

// AddProjectMember makes a user a member of a project; adding twice is harmless.
func (d *DB) AddProjectMember(ctx context.Context, projectID, userID string) error {
	_, err := d.w.ExecContext(ctx, `/* DB.AddProjectMember */
		INSERT INTO project_members (project_id, user_id, created_at) VALUES (?, ?, ?)
		ON CONFLICT DO NOTHING`, projectID, userID, millis(time.Now()))
	if err != nil {
		return fmt.Errorf("db: unable to add member to project %s: %w", projectID, err)
	}
	return nil
}

// IsProjectMember reports whether the user may administer the project.
func (d *DB) IsProjectMember(ctx context.Context, projectID, userID string) (bool, error) {
	var n int
	err := d.r.QueryRowContext(ctx, `/* DB.IsProjectMember */
		SELECT count(*) FROM project_members WHERE project_id = ? AND user_id = ?`, projectID, userID).Scan(&n)
	if err != nil {
		return false, fmt.Errorf("db: unable to check membership of project %s: %w", projectID, err)
	}
	return n > 0, nil
}

func scanProject(s scanner) (Project, error) {
	var p Project
	var created, updated int64
	err := s.Scan(&p.ID, &p.Name, &p.Repository, &p.Ref, &p.Model, &p.OwnerID, &p.WebhookURL, &p.WebhookSecret,
		&p.DraftPRs, &p.AllowedDomains, &created, &updated)
	p.CreatedAt, p.UpdatedAt = fromMillis(created), fromMillis(updated)
	return p, err
}
