package analytics

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
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

	first, err := s.ImportLog(ctx, project, bytes.NewReader(log))
	if err != nil {
		t.Fatal(err)
	}
	want := ImportStats{Lines: 2006, Stored: 2002, Skipped: map[string]int{SkipMethod: 1, SkipStatus: 1, SkipAsset: 1, SkipMalformed: 1}}
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
	second, err := s.ImportLog(ctx, project, &gz)
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
	if after.Totals != before.Totals || before.Totals.Total != 2002 {
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
		st, err := s.ImportLog(context.Background(), project, bytes.NewReader(log))
		if err != nil || st.Stored != 100_000 {
			b.Fatalf("%+v %v", st, err)
		}
	}
	b.ReportMetric(float64(100_000*b.N)/b.Elapsed().Seconds(), "lines/s")
}
