// Package benchdata gives benchmarks a large generated analytics dataset,
// built once and kept as a SQLite file under the user's cache directory
// (folio-bench/), named by the generator's parameters, so later runs (and
// other benchmarks) reuse it instead of spending minutes generating again.
package benchdata

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/folio-docs/folio/analytics"
	"github.com/folio-docs/folio/db"
	"github.com/folio-docs/folio/model"
)

// Start is the first instant of every dataset: a year of views from here.
var Start = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)

// Config names a dataset: a year of Views over Paths and Visitors.
type Config struct {
	Views, Paths, Visitors int
	Seed                   uint64
}

// Size is the dataset FOLIO_BENCH_VIEWS selects: the 10M views
// (50k paths, 1M visitors) by default, or 100M (200k paths, 10M visitors);
// any other count gets views/10 visitors and 50k paths.
func Size(tb testing.TB) Config {
	views := 10_000_000
	if v := os.Getenv("FOLIO_BENCH_VIEWS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 {
			tb.Fatalf("FOLIO_BENCH_VIEWS=%q is not a positive count", v)
		}
		views = n
	}
	c := Config{Views: views, Paths: 50_000, Visitors: views / 10, Seed: 42}
	if views >= 100_000_000 {
		c.Paths = 200_000
	}
	return c
}

func (c Config) file() string {
	// The suffix names the generator's version: "-agents", views stored
	// since each keeps its agent (a file from before would count every
	// agent as unnamed); "-referrers", since people's views come from
	// search engines, AI assistants and other sites (before, every view
	// was direct). A change to what the generator makes changes it, so
	// no dataset of an older generator is reused.
	return fmt.Sprintf("views%d-paths%d-visitors%d-seed%d-from%s-referrers.db", c.Views, c.Paths, c.Visitors, c.Seed, Start.Format("20060102"))
}

// Open returns the dataset's database (migrated, opened for the benchmark
// alone) and the project holding the views, generating the file first when
// the cache has none. A generation cut short leaves no file behind.
func Open(tb testing.TB, c Config) (*db.DB, string) {
	tb.Helper()
	ctx := context.Background()
	dir, err := os.UserCacheDir()
	if err != nil {
		dir = os.TempDir()
	}
	path := filepath.Join(dir, "folio-bench", c.file())
	if _, err := os.Stat(path); err != nil {
		generate(tb, path, c)
	}
	d, err := db.Open(ctx, path)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = d.Close() }) // a benchmark's database, read only here; nothing is lost if closing fails
	if _, err := d.Migrate(ctx); err != nil {
		tb.Fatal(err)
	}
	ids, err := d.AnalyticsSiteIDs(ctx)
	if err != nil || len(ids) != 1 {
		tb.Fatalf("the dataset %s holds %d projects with traffic, want 1 (%v)", path, len(ids), err)
	}
	for project := range ids {
		return d, project
	}
	panic("unreachable")
}

func generate(tb testing.TB, path string, c Config) {
	ctx := context.Background()
	tmp := path + ".part"
	for _, p := range []string{tmp, tmp + "-wal", tmp + "-shm"} {
		_ = os.Remove(p) // left by an interrupted run, or absent (the usual case); db.Open below fails if one is in the way
	}
	d, err := db.Open(ctx, tmp)
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := d.Migrate(ctx); err != nil {
		tb.Fatal(err)
	}
	p, err := d.CreateProject(ctx, model.Project{Name: "bench", Repository: "/tmp/bench"})
	if err != nil {
		tb.Fatal(err)
	}
	cls, err := analytics.NewClassifier()
	if err != nil {
		tb.Fatal(err)
	}
	t0 := time.Now()
	s := analytics.NewService(d, cls)
	n, err := s.Generate(ctx, p.ID, analytics.GenConfig{
		Views: c.Views, Paths: c.Paths, Visitors: c.Visitors, From: Start, To: Start.AddDate(1, 0, 0), Seed: c.Seed})
	if err != nil || n != c.Views {
		tb.Fatalf("generated %d of %d views: %v", n, c.Views, err)
	}
	// As folio analytics generate ends: with the index snapshot serve
	// starts from, renamed below with the database.
	saved, err := s.SaveIndex(ctx, p.ID, nil)
	if err != nil {
		tb.Fatal(err)
	}
	// Checkpoint so the cached file stands alone, without its WAL.
	if err := d.Close(); err != nil {
		tb.Fatal(err)
	}
	if err := os.Rename(saved.Path, path+strings.TrimPrefix(saved.Path, tmp)); err != nil {
		tb.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		tb.Fatal(err)
	}
	tb.Logf("generated %d views into %s in %s", n, path, time.Since(t0).Round(time.Second))
}
