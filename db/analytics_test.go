package db_test

import (
	"context"
	"database/sql"
	"math"
	"strings"
	"testing"

	"github.com/folio-docs/folio/db"
	"github.com/folio-docs/folio/internal/testenv"
)

// newAnalyticsSite is a fresh database with one project and its analytics
// site.
func newAnalyticsSite(t *testing.T) (*db.DB, db.Project, int64) {
	t.Helper()
	d := testenv.NewDB(t)
	p, err := d.CreateProject(context.Background(), db.Project{Name: "Docs", Repository: "/tmp/docs"})
	if err != nil {
		t.Fatal(err)
	}
	site, err := d.AnalyticsSite(context.Background(), p.ID)
	if err != nil {
		t.Fatal(err)
	}
	return d, p, site
}

// TestInsertPageViewsBatches stores batches through the multi-row
// statements: a log line twice in one batch or in two batches is stored
// once, dictionary entries stored by another cache (another process) are
// found again, and the views read back column-wise are the ones stored.
func TestInsertPageViewsBatches(t *testing.T) {
	ctx := context.Background()
	d, _, site := newAnalyticsSite(t)
	key := func(b byte) int64 { return int64(b) << 40 }
	first := []db.NewPageView{
		{At: 1000, Path: "/a", VisitorID: key(1), Class: 0, LineHash: []byte("line-1")},
		{At: 1001, Path: "/a", VisitorID: key(1), Class: 0, LineHash: []byte("line-1")},
		{At: 1002, Path: "/b", VisitorID: key(2), Class: 1, LineHash: []byte("line-2")},
		{At: -5, Path: "/b", VisitorID: key(2), Class: 4},
	}
	n, err := d.InsertPageViews(ctx, site, db.NewAnalyticsDict(), first)
	if err != nil || n != 3 {
		t.Fatalf("first batch stored %d, %v; want 3 (line-1 once)", n, err)
	}
	// A cold cache, as another process or a restart has: the entries exist.
	second := []db.NewPageView{
		{At: 2000, Path: "/b", VisitorID: key(2), Class: 1, LineHash: []byte("line-2")},
		{At: 2001, Path: "/b", VisitorID: key(2), Class: 1},
		{At: 2002, Path: "/c", VisitorID: key(3), Class: 2},
	}
	n, err = d.InsertPageViews(ctx, site, db.NewAnalyticsDict(), second)
	if err != nil || n != 2 {
		t.Fatalf("second batch stored %d, %v; want 2 (line-2 imported before)", n, err)
	}
	paths := map[int64]string{}
	if err := d.AnalyticsPaths(ctx, site, 0, func(id int64, p string) { paths[id] = p }); err != nil || len(paths) != 3 {
		t.Fatalf("paths %v, %v; want /a, /b, /c once each", paths, err)
	}
	cols, err := d.AnalyticsViewColumns(ctx, site, 0, math.MaxInt64)
	if err != nil {
		t.Fatal(err)
	}
	var rows []db.PageView
	if err := d.AnalyticsViews(ctx, site, 0, math.MaxInt64, func(v db.PageView) { rows = append(rows, v) }); err != nil {
		t.Fatal(err)
	}
	if cols.Len() != 5 || len(rows) != 5 {
		t.Fatalf("read %d views column-wise and %d row-wise, want 5", cols.Len(), len(rows))
	}
	wantAt := []int64{1000, 1002, -5, 2001, 2002}
	for i, v := range rows {
		if v.At != wantAt[i] || cols.At[i] != v.At || cols.PathID[i] != v.PathID || cols.VisitorID[i] != v.VisitorID || cols.Class[i] != v.Class {
			t.Fatalf("view %d: columns (%d %d %d %d), row %+v, want at %d", i, cols.At[i], cols.PathID[i], cols.VisitorID[i], cols.Class[i], v, wantAt[i])
		}
	}
	if rows[3].VisitorID != rows[1].VisitorID || paths[rows[3].PathID] != "/b" || paths[rows[4].PathID] != "/c" {
		t.Fatalf("a cold cache gave new ids to stored entries: %+v", rows)
	}
}

// A class that does not fit a byte (a database changed by hand, or damaged)
// is refused with its value, not wrapped around into another class.
func TestAnalyticsViewColumnsRefusesAClassOutOfRange(t *testing.T) {
	ctx := context.Background()
	d, _, site := newAnalyticsSite(t)
	if _, err := d.InsertPageViews(ctx, site, db.NewAnalyticsDict(), []db.NewPageView{{At: 1000, Path: "/a", VisitorID: 1, Class: 1}}); err != nil {
		t.Fatal(err)
	}
	raw, err := sql.Open("sqlite3", d.Path())
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	if _, err := raw.ExecContext(ctx, `UPDATE analytics_views SET class = 257`); err != nil {
		t.Fatal(err)
	}
	_, err = d.AnalyticsViewColumns(ctx, site, 0, math.MaxInt64)
	if err == nil || !strings.Contains(err.Error(), "a class of 257") {
		t.Fatalf("AnalyticsViewColumns = %v, want an error naming the class 257", err)
	}
}
