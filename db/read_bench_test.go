package db_test

import (
	"context"
	"testing"

	"github.com/folio-docs/folio/db"
	"github.com/folio-docs/folio/internal/testenv"
)

// BenchmarkAPIKeyByHash is the key look-up every API request makes.
func BenchmarkAPIKeyByHash(b *testing.B) {
	ctx := context.Background()
	d := testenv.NewDB(b)
	p, err := d.CreateProject(ctx, db.Project{Name: "docs", Repository: "acme/docs", Ref: "main"})
	if err != nil {
		b.Fatal(err)
	}
	hash := make([]byte, 32)
	if _, err := d.CreateAPIKey(ctx, db.APIKey{ProjectID: p.ID, Name: "k", Hash: hash, LastFour: "abcd", Scope: db.ScopeRead}); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := d.APIKeyByHash(ctx, hash); err != nil {
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
