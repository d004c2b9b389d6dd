package main

import (
	"context"
	"fmt"
	"os"
	"sort"
	"time"

	"github.com/folio-docs/folio/analytics"
)

func cmdAnalyticsImport(ctx context.Context, args []string, e env) error {
	fs := newFlags("analytics import", "analytics import --project ID [--format F] [--source NAME] [--follow] FILE...", e)
	project := fs.String("project", "", "project `id` (required)")
	format := fs.String("format", "combined", "log `format`: "+analytics.LogFormatNames)
	source := fs.String("source", "", "the `name` of the server the logs come from: identical lines of two sources both count, re-importing one source's files stores nothing twice")
	follow := fs.Bool("follow", false, "keep reading each FILE as it grows, across rotation and restarts (its position is kept beside the database), until SIGINT or SIGTERM")
	files, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if *project == "" {
		return usageError(fs, "--project is required")
	}
	f, err := analytics.LogFormatByName(*format)
	if err != nil {
		return usageError(fs, "--format: %v", err)
	}
	if len(files) == 0 {
		return usageError(fs, "name at least one log FILE")
	}
	a, svc, err := openAnalytics(ctx, e, *project)
	if err != nil {
		return err
	}
	defer a.Close()
	opts := analytics.ImportOptions{Format: f, Source: *source, Trusted: a.cfg.TrustedProxies}
	if *follow {
		return followFiles(ctx, e, svc, *project, files, opts)
	}
	// The bar counts the files' bytes on disk (compressed or not).
	var size int64
	for _, name := range files {
		if info, err := os.Stat(name); err == nil { // #nosec G703 -- files the operator named on the command line
			size += info.Size()
		}
	}
	bar := newProgress(e, "import", size, "bytes")
	total := analytics.ImportStats{Skipped: map[string]int{}}
	for _, name := range files {
		opts.File = name
		st, err := importFile(ctx, svc, *project, opts, bar)
		total.Add(st)
		if err != nil {
			return fmt.Errorf("import %s: %w", name, err)
		}
		if *format == "auto" {
			fmt.Fprintf(e.stderr, "  %s: format %s\n", name, orNone(st.Format))
		}
	}
	bar.finish(fmt.Sprintf("%d lines read, %d page views stored, %d skipped", total.Lines, total.Stored, total.Lines-total.Stored), int64(total.Lines), "lines")
	printSkipped(e, total)
	return saveIndex(ctx, e, svc, *project)
}

// followFiles imports the logs' lines as they are written, until ctx ends
// (SIGINT, SIGTERM), and then says what it did. Serve reads the views as
// they are stored (its index catches up at each query), so no snapshot is
// written at the end: serve's own catch-up keeps it recent.
func followFiles(ctx context.Context, e env, svc *analytics.Service, project string, files []string, opts analytics.ImportOptions) error {
	st, err := svc.Follow(ctx, project, files, analytics.FollowOptions{
		ImportOptions: opts,
		Notice:        func(msg string) { fmt.Fprintln(e.stderr, msg) },
	})
	fmt.Fprintf(e.stderr, "stopped: %d lines read, %d page views stored, %d skipped\n", st.Lines, st.Stored, st.Lines-st.Stored)
	st.Unparsed = nil // told as they were read
	printSkipped(e, st)
	return err
}

// printSkipped says why lines were not stored, and shows the first lines
// that did not parse.
func printSkipped(e env, st analytics.ImportStats) {
	reasons := make([]string, 0, len(st.Skipped))
	for k := range st.Skipped {
		reasons = append(reasons, k)
	}
	sort.Strings(reasons)
	for _, k := range reasons {
		fmt.Fprintf(e.stderr, "  skipped %d: %s\n", st.Skipped[k], k)
	}
	for _, u := range st.Unparsed {
		fmt.Fprintf(e.stderr, "  %s line %d does not parse: %s\n", u.File, u.Line, u.Text)
	}
}

// orNone is s, or "none found" for "".
func orNone(s string) string {
	if s == "" {
		return "none found"
	}
	return s
}

// importFile imports one log, counting its bytes into bar.
func importFile(ctx context.Context, svc *analytics.Service, project string, opts analytics.ImportOptions, bar *progress) (analytics.ImportStats, error) {
	f, err := os.Open(opts.File)
	if err != nil {
		return analytics.ImportStats{}, err
	}
	defer f.Close()
	return svc.ImportLog(ctx, project, progressReader{r: f, p: bar}, opts)
}

func cmdAnalyticsGenerate(ctx context.Context, args []string, e env) error {
	fs := newFlags("analytics generate", "analytics generate --project ID --views N [--paths N] [--visitors N] [--days N] [--seed N]", e)
	project := fs.String("project", "", "project `id` (required)")
	views := fs.Int("views", 0, "page views to generate (required)")
	paths := fs.Int("paths", 0, "distinct paths (default views/200, at least 10)")
	visitors := fs.Int("visitors", 0, "visitor population (default views/10, at least 10)")
	days := fs.Int("days", 365, "spread the views over the last N days")
	seed := fs.Uint64("seed", uint64(time.Now().UnixNano()), "random seed")
	if _, err := parseFlags(fs, args); err != nil {
		return err
	}
	if *project == "" || *views <= 0 || *days <= 0 {
		return usageError(fs, "--project and a positive --views are required")
	}
	a, svc, err := openAnalytics(ctx, e, *project)
	if err != nil {
		return err
	}
	defer a.Close()
	now := time.Now().UTC()
	cfg := analytics.GenConfig{
		Views: *views, Paths: max(10, *paths), Visitors: max(10, *visitors), Seed: *seed,
		From: now.AddDate(0, 0, -*days), To: now,
	}
	if *paths == 0 {
		cfg.Paths = max(10, *views/200)
	}
	if *visitors == 0 {
		cfg.Visitors = max(10, *views/10)
	}
	bar := newProgress(e, "generate", int64(cfg.Views), "views")
	cfg.Progress = func(stored int) { bar.add(int64(stored)) }
	n, err := svc.Generate(ctx, *project, cfg)
	if err != nil {
		return err
	}
	bar.finish(fmt.Sprintf("%d page views generated", n), int64(n), "views")
	return saveIndex(ctx, e, svc, *project)
}

// saveIndex ends a bulk write (generate, import) by writing the project's
// analytics index snapshot, so serve's next start reads it in seconds
// instead of every view from the database (about a minute at 100M views).
func saveIndex(ctx context.Context, e env, svc *analytics.Service, project string) error {
	bar := newProgress(e, "index", 0, "views")
	saved, err := svc.SaveIndex(ctx, project, bar.set)
	if err != nil {
		return fmt.Errorf("the page views are stored, but the index snapshot serve starts from is not (serve will read every view at its next start): %w", err)
	}
	if saved.Path != "" {
		bar.finish(fmt.Sprintf("analytics index for serve's start-up saved to %s, %d views read from the database", saved.Path, saved.Read), saved.Read, "views")
	}
	return nil
}

// openAnalytics opens the app and the analytics service for a project that
// must exist.
func openAnalytics(ctx context.Context, e env, project string) (*app, *analytics.Service, error) {
	a, err := openApp(ctx, e, false)
	if err != nil {
		return nil, nil, err
	}
	if _, err := a.projects.ByID(ctx, project); err != nil {
		a.Close()
		return nil, nil, &exitError{code: 1, msg: fmt.Sprintf("project %s: %v", project, err)}
	}
	return a, a.analytics, nil
}
