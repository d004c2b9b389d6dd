package db

import (
	"context"
	"path/filepath"
	"reflect"
	"testing"
)

// A key made before keys could open several projects (migration 0037)
// keeps its one project, its name, scope, dates and revocation, and is
// found by its hash as before.
func TestKeysMadeBeforeSeveralProjectsKeepTheirProject(t *testing.T) {
	ctx := context.Background()
	d, err := Open(ctx, filepath.Join(t.TempDir(), "folio.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	all, err := loadMigrations()
	if err != nil {
		t.Fatal(err)
	}
	// The schema as it stood before 0037, recorded as Migrate records it.
	if _, err := d.w.ExecContext(ctx, `CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)`); err != nil {
		t.Fatal(err)
	}
	for _, m := range all {
		if m.Version >= 37 {
			break
		}
		if _, err := d.w.ExecContext(ctx, m.SQL); err != nil {
			t.Fatalf("%s: %v", m.Name, err)
		}
		if _, err := d.w.ExecContext(ctx, `INSERT INTO schema_migrations VALUES (?, ?, 0)`, m.Version, m.Name); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := d.w.ExecContext(ctx, `
		INSERT INTO projects (id, name, repository, created_at, updated_at) VALUES ('p1', 'Docs', 'acme/docs', 1, 1), ('p2', 'Other', 'acme/other', 1, 1);
		INSERT INTO api_keys (id, project_id, name, hash, last_four, scope, created_at, expires_at, last_used_at, revoked_at) VALUES
			('k1', 'p1', 'ci', x'01', 'abcd', 'read', 1000, 2000, 1500, NULL),
			('k2', 'p2', 'old', x'02', 'efgh', 'ingest', 1000, NULL, NULL, 1200)`); err != nil {
		t.Fatal(err)
	}
	applied, err := d.Migrate(ctx)
	if err != nil || len(applied) == 0 || applied[0] != "0037_key_projects_allowlist.sql" {
		t.Fatalf("Migrate applied %v, %v; want 0037 first", applied, err)
	}
	k1, err := d.APIKeyByHash(ctx, []byte{1})
	if err != nil {
		t.Fatal(err)
	}
	if k1.ID != "k1" || k1.Name != "ci" || k1.Scope != ScopeRead || !reflect.DeepEqual(k1.Projects, []string{"p1"}) || k1.AllProjects ||
		k1.AllowIPs != nil || k1.CreatedAt.UnixMilli() != 1000 || k1.ExpiresAt.UnixMilli() != 2000 || k1.LastUsedAt.UnixMilli() != 1500 || k1.RevokedAt != nil {
		t.Errorf("k1 after 0037: %+v", k1)
	}
	k2, err := d.AuthKeyByHash(ctx, []byte{2})
	if err != nil || !reflect.DeepEqual(k2.Projects, []string{"p2"}) || k2.RevokedAt == nil || k2.Scope != "ingest" {
		t.Errorf("k2 after 0037: %+v, %v", k2, err)
	}
	for project, want := range map[string]string{"p1": "k1", "p2": "k2"} {
		if list, err := d.APIKeysForProject(ctx, project); err != nil || len(list) != 1 || list[0].ID != want {
			t.Errorf("keys of %s: %+v, %v; want %s alone", project, list, err, want)
		}
	}
}
