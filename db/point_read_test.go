package db_test

import (
	"bytes"
	"context"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/folio-docs/folio/db"
	"github.com/folio-docs/folio/internal/testenv"
	"github.com/folio-docs/folio/model"
)

// dbWithKey is a migrated database holding one project with one read key,
// whose hash it returns.
func dbWithKey(t testing.TB) (*db.DB, db.Project, []byte) {
	t.Helper()
	ctx := context.Background()
	d := testenv.NewDB(t)
	p, err := d.CreateProject(ctx, db.Project{Name: "docs", Repository: "acme/docs", Ref: "main"})
	if err != nil {
		t.Fatal(err)
	}
	hash := make([]byte, 32)
	if _, err := d.CreateAPIKey(ctx, db.APIKey{Projects: []string{p.ID}, Name: "k", Hash: hash, LastFour: "abcd", Scope: db.ScopeRead}); err != nil {
		t.Fatal(err)
	}
	return d, p, hash
}

// BenchmarkAPIKeyByHash is the full key look-up, with a cancellable
// context as a request's is.
func BenchmarkAPIKeyByHash(b *testing.B) {
	benchKeyLookup(b, (*db.DB).APIKeyByHash)
}

// BenchmarkAuthKeyByHash is the narrower look-up every API request makes.
func BenchmarkAuthKeyByHash(b *testing.B) {
	benchKeyLookup(b, (*db.DB).AuthKeyByHash)
}

func benchKeyLookup(b *testing.B, lookup func(*db.DB, context.Context, []byte) (db.APIKey, error)) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	d, _, hash := dbWithKey(b)
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := lookup(d, ctx, hash); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

// BenchmarkPing is the floor of any read through the pool: SELECT 1.
func BenchmarkPing(b *testing.B) {
	ctx := context.Background()
	d := testenv.NewDB(b)
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if err := d.Ping(ctx); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

// The hot point reads ignore cancellation midway, for speed, but a context
// already done still stops them, as it stops every other read.
func TestPointReadsHonourADoneContext(t *testing.T) {
	ctx := context.Background()
	d, p, hash := dbWithKey(t)
	j, err := d.CreateJob(ctx, db.Job{ProjectID: p.ID, Repository: "acme/docs", Ref: "main", Model: "m"}, "x", nil)
	if err != nil {
		t.Fatal(err)
	}
	live, cancel := context.WithCancel(ctx)
	if _, err := d.APIKeyByHash(live, hash); err != nil {
		t.Fatalf("key with a live context: %v", err)
	}
	if _, err := d.JobByID(live, p.ID, j.ID); err != nil {
		t.Fatalf("job with a live context: %v", err)
	}
	cancel()
	if _, err := d.APIKeyByHash(live, hash); !errors.Is(err, context.Canceled) {
		t.Errorf("key with a cancelled context: %v, want context.Canceled", err)
	}
	if _, err := d.JobByID(live, p.ID, j.ID); !errors.Is(err, context.Canceled) {
		t.Errorf("job with a cancelled context: %v, want context.Canceled", err)
	}
	if _, err := d.AuthKeyByHash(live, hash); !errors.Is(err, context.Canceled) {
		t.Errorf("auth key with a cancelled context: %v, want context.Canceled", err)
	}
}

// AuthKeyByHash reads what deciding on a key needs, and it agrees with the
// full record as the key is used, expires and is revoked.
func TestAuthKeyByHashAgreesWithTheFullRecord(t *testing.T) {
	ctx := context.Background()
	d, p, hash := dbWithKey(t)
	same := func(step string) {
		t.Helper()
		full, err := d.APIKeyByHash(ctx, hash)
		if err != nil {
			t.Fatal(err)
		}
		got, err := d.AuthKeyByHash(ctx, hash)
		if err != nil {
			t.Fatal(err)
		}
		want := db.APIKey{ID: full.ID, Projects: full.Projects, AllProjects: full.AllProjects, CreatedBy: full.CreatedBy,
			AllowIPs: full.AllowIPs, Hash: full.Hash, Scope: full.Scope,
			ExpiresAt: full.ExpiresAt, LastUsedAt: full.LastUsedAt, RevokedAt: full.RevokedAt}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: AuthKeyByHash = %+v, want %+v", step, got, want)
		}
		if !reflect.DeepEqual(got.Projects, []string{p.ID}) || len(got.Hash) != 32 {
			t.Errorf("%s: key %+v is not the project's", step, got)
		}
	}
	same("fresh")
	k, _ := d.APIKeyByHash(ctx, hash)
	if err := d.TouchAPIKey(ctx, k.ID, time.Now()); err != nil {
		t.Fatal(err)
	}
	same("used")
	if err := d.RevokeAPIKey(ctx, p.ID, k.ID); err != nil {
		t.Fatal(err)
	}
	same("revoked")
	if got, _ := d.AuthKeyByHash(ctx, hash); got.RevokedAt == nil || got.Active(time.Now()) {
		t.Errorf("revoked key reads as active: %+v", got)
	}
	exp := time.Now().Add(-time.Minute).Truncate(time.Millisecond)
	k2, err := d.CreateAPIKey(ctx, db.APIKey{Projects: []string{p.ID}, Name: "old", Hash: bytes.Repeat([]byte{7}, 32), LastFour: "abcd", Scope: db.ScopeRead, ExpiresAt: &exp})
	if err != nil {
		t.Fatal(err)
	}
	got, err := d.AuthKeyByHash(ctx, k2.Hash)
	if err != nil || got.ExpiresAt == nil || !got.ExpiresAt.Equal(exp) || got.Scope != db.ScopeRead || got.Active(time.Now()) {
		t.Errorf("expired key: %+v, %v", got, err)
	}
	if _, err := d.AuthKeyByHash(ctx, bytes.Repeat([]byte{9}, 32)); !errors.Is(err, model.ErrNotFound) {
		t.Errorf("unknown key: %v, want ErrNotFound", err)
	}
}
