package analytics

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"
)

// combinedLog writes generated traffic as an nginx combined access log.
func combinedLog(cfg GenConfig) []byte {
	var b bytes.Buffer
	g := NewGenerator(cfg)
	for e, ok := g.Next(); ok; e, ok = g.Next() {
		fmt.Fprintf(&b, "%s - - [%s] \"GET %s HTTP/1.1\" 200 5120 \"https://example.com/\" \"%s\"\n",
			e.IP, e.At.Format("02/Jan/2006:15:04:05 -0700"), e.Path, strings.ReplaceAll(e.UserAgent, `"`, `\"`))
	}
	return b.Bytes()
}

func TestImportLog(t *testing.T) {
	s, _, project := newTestService(t)
	ctx := context.Background()
	day := time.Date(2026, 4, 1, 0, 0, 0, 0, time.UTC)
	log := combinedLog(GenConfig{Views: 2000, Paths: 50, Visitors: 300, From: day, To: day.AddDate(0, 0, 3), Seed: 3})
	extra := `203.0.113.5 - - [01/Apr/2026:10:00:00 +0000] "POST /api/search HTTP/1.1" 200 10 "-" "Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0"
203.0.113.5 - - [01/Apr/2026:10:00:01 +0000] "GET /missing HTTP/1.1" 404 10 "-" "Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0"
203.0.113.5 - - [01/Apr/2026:10:00:02 +0000] "GET /assets/site.css HTTP/1.1" 200 10 "-" "Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0"
this is not a log line
203.0.113.5 - - [01/Apr/2026:10:00:03 +0000] "GET /twice HTTP/1.1" 200 10 "-" "Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0"
203.0.113.5 - - [01/Apr/2026:10:00:03 +0000] "GET /twice HTTP/1.1" 200 10 "-" "Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0"
`
	log = append(log, extra...)

	first, err := s.ImportLog(ctx, project, bytes.NewReader(log), ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := ImportStats{Lines: 2006, Stored: 2002, Skipped: map[string]int{SkipMethod: 1, SkipStatus: 1, SkipAsset: 1, SkipMalformed: 1},
		Format: "combined", Unparsed: []UnparsedLine{{Line: 2004, Text: "this is not a log line"}}}
	if fmt.Sprint(first) != fmt.Sprint(want) {
		t.Fatalf("first import %+v, want %+v", first, want)
	}
	before, err := s.Views(ctx, project, Query{Limit: 1})
	if err != nil {
		t.Fatal(err)
	}

	// The same file again, gzipped this time: nothing new is stored.
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(log)
	zw.Close()
	second, err := s.ImportLog(ctx, project, &gz, ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if second.Lines != 2006 || second.Stored != 0 || second.Skipped[SkipDuplicate] != 2002 {
		t.Fatalf("second import %+v, want 2006 lines, none stored, 2002 imported before", second)
	}
	after, err := s.Views(ctx, project, Query{Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	if after.Totals != before.Totals || before.Totals.All() != 2002 {
		t.Fatalf("views after importing twice %+v, after once %+v (want 2002)", after.Totals, before.Totals)
	}
}

func BenchmarkImportLog(b *testing.B) {
	day := time.Date(2026, 4, 1, 0, 0, 0, 0, time.UTC)
	log := combinedLog(GenConfig{Views: 100_000, Paths: 5000, Visitors: 20000, From: day, To: day.AddDate(0, 1, 0), Seed: 4})
	for b.Loop() {
		b.StopTimer()
		s, _, project := newTestService(b)
		b.StartTimer()
		st, err := s.ImportLog(context.Background(), project, bytes.NewReader(log), ImportOptions{})
		if err != nil || st.Stored != 100_000 {
			b.Fatalf("%+v %v", st, err)
		}
	}
	b.ReportMetric(float64(100_000*b.N)/b.Elapsed().Seconds(), "lines/s")
}

// Re-importing a file or an overlapping rotated file adds nothing; identical
// lines within one file each count; another --source is another server.
func TestImportLogStoresEachLineOnce(t *testing.T) {
	s, _, project := newTestService(t)
	ctx := context.Background()
	real, err := os.ReadFile("testdata/apache/access.log")
	if err != nil {
		t.Fatal(err)
	}
	twice := `203.0.113.5 - - [17/May/2015:10:06:00 +0000] "GET /twice HTTP/1.1" 200 10 "-" "Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0"` + "\n"
	rotated := string(real) + twice + twice + twice
	lines := strings.SplitAfter(strings.TrimSuffix(rotated, "\n"), "\n")
	// The older file ends in the middle of the three identical lines; the
	// rotated one starts half-way through the older one.
	older := strings.Join(lines[:len(lines)-2], "")
	newer := strings.Join(lines[len(lines)/2:], "")

	imp := func(text, source string) ImportStats {
		t.Helper()
		st, err := s.ImportLog(ctx, project, strings.NewReader(text), ImportOptions{Source: source})
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
	whole := imp(rotated, "")
	pages := whole.Stored
	if pages < 20 || whole.Skipped[SkipDuplicate] != 0 {
		t.Fatalf("the whole log: %+v, want its page views all stored", whole)
	}
	views := func() int {
		t.Helper()
		v, err := s.Views(ctx, project, Query{Limit: 1})
		if err != nil {
			t.Fatal(err)
		}
		return v.Totals.All()
	}
	if n := views(); n != pages {
		t.Fatalf("%d views stored, want %d", n, pages)
	}
	// The three identical lines were three views.
	st, err := s.Views(ctx, project, Query{Limit: MaxLimit})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range st.Views {
		if r.Path == "/twice" && r.Human != 3 {
			t.Fatalf("/twice has %d views, want the 3 identical lines", r.Human)
		}
	}
	if st := imp(rotated, ""); st.Stored != 0 {
		t.Fatalf("the same file again stored %d", st.Stored)
	}
	if st := imp(older, ""); st.Stored != 0 {
		t.Fatalf("the older file stored %d", st.Stored)
	}
	if st := imp(newer, ""); st.Stored != 0 {
		t.Fatalf("the overlapping rotated file stored %d", st.Stored)
	}
	if n := views(); n != pages {
		t.Fatalf("%d views after re-imports, want %d", n, pages)
	}
	// Another server's log with the same lines is more traffic.
	if st := imp(rotated, "web-2"); st.Stored != pages {
		t.Fatalf("source web-2 stored %d, want %d", st.Stored, pages)
	}
	if st := imp(newer, "web-2"); st.Stored != 0 {
		t.Fatalf("web-2's rotated file stored %d", st.Stored)
	}
	if n := views(); n != 2*pages {
		t.Fatalf("%d views with two sources, want %d", n, 2*pages)
	}
}
