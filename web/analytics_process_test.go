package main

import (
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/folio-docs/folio/analytics"
)

// newAnalyticsProject makes a user, a project and a write key with the CLI.
func newAnalyticsProject(t *testing.T, te testEnv) (project, key string) {
	t.Helper()
	te.must(t, "s3cret-passw0rd\n", "user", "create", "--email", "ops@example.com", "--password-stdin")
	project = te.must(t, "", "project", "create", "--name", "Docs", "--repo", newDocsRepo(t), "--owner", "ops@example.com")
	key = te.must(t, "", "key", "create", "--project", project)
	return project, key
}

// The same visitors of the same UTC days, delivered before and after the
// server process is replaced by a new one, are counted once.
func TestVisitorsAreExactAcrossARestart(t *testing.T) {
	t.Parallel()
	te := newTestEnv(t)
	project, key := newAnalyticsProject(t, te)
	day1 := time.Date(2026, 3, 10, 0, 0, 0, 0, time.UTC)
	day2 := day1.AddDate(0, 0, 1)
	const people = 100
	// Each delivery has every person on both days, day 1 first: a process
	// that fetched day 2's key must still give day 1's visitors their ids.
	delivery := func(paths string) map[string]any {
		var events []analytics.RawEvent
		for _, day := range []time.Time{day1, day2} {
			for i := range people {
				events = append(events, analytics.RawEvent{
					Path:      "/" + paths + "/" + fmt.Sprint(i%7),
					Timestamp: day.Add(time.Duration(i) * time.Minute).Format(time.RFC3339),
					UserAgent: "Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0",
					IP:        fmt.Sprintf("198.51.100.%d", i),
				})
			}
		}
		return map[string]any{"events": events}
	}
	post := func(base, paths string) {
		t.Helper()
		var got struct{ Accepted int }
		if code := apiCall(t, "POST", base+"/v1/analytics/"+project+"/events", key, delivery(paths), &got); code != 200 || got.Accepted != 2*people {
			t.Fatalf("events: %d, accepted %d", code, got.Accepted)
		}
	}
	base, stop := serveProcess(t, te)
	post(base, "first")
	stop()
	base, _ = serveProcess(t, te)
	post(base, "second")

	var v analytics.Visitors
	if code := apiCall(t, "GET", base+"/v1/analytics/"+project+"/visitors", key, nil, &v); code != 200 {
		t.Fatalf("visitors export: %d", code)
	}
	if v.Totals.Human != 2*people {
		t.Fatalf("after a restart: %d human visitors, want %d (%d people on 2 days)", v.Totals.Human, 2*people, people)
	}
	var day analytics.Visitors
	q := url.Values{"dateFrom": {"2026-03-10"}, "dateTo": {"2026-03-11"}}
	if code := apiCall(t, "GET", base+"/v1/analytics/"+project+"/visitors?"+q.Encode(), key, nil, &day); code != 200 || day.Totals.Human != people {
		t.Fatalf("day 1: %d, %d human visitors, want %d", code, day.Totals.Human, people)
	}
}

// One real access log imported in two parts by two processes counts what
// one import of the whole log counts.
func TestImportInTwoProcessesMatchesOneImport(t *testing.T) {
	t.Parallel()
	log, err := os.ReadFile("../analytics/testdata/apache/access.log")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(strings.TrimSuffix(string(log), "\n"), "\n")
	// Alternate lines, so each part has views of both days in the log.
	var a, b strings.Builder
	for i, l := range lines {
		if i%2 == 0 {
			a.WriteString(l)
		} else {
			b.WriteString(l)
		}
	}
	dir := t.TempDir()
	whole, partA, partB := filepath.Join(dir, "whole.log"), filepath.Join(dir, "a.log"), filepath.Join(dir, "b.log")
	for name, text := range map[string]string{whole: string(log), partA: a.String(), partB: b.String() + "\n"} {
		if err := os.WriteFile(name, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	importProcess := func(te testEnv, project string, files ...string) {
		t.Helper()
		out, err := folioProcess(te, append([]string{"analytics", "import", "--project", project}, files...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("import %v: %v\n%s", files, err, out)
		}
	}
	exports := func(te testEnv, project, key string) (analytics.Visitors, analytics.Views) {
		t.Helper()
		base, _ := serveProcess(t, te)
		var v analytics.Visitors
		var w analytics.Views
		for kind, out := range map[string]any{"visitors": &v, "views": &w} {
			if code := apiCall(t, "GET", base+"/v1/analytics/"+project+"/"+kind+"?limit=250", key, nil, out); code != 200 {
				t.Fatalf("%s export: %d", kind, code)
			}
		}
		return v, w
	}

	one := newTestEnv(t)
	p1, k1 := newAnalyticsProject(t, one)
	importProcess(one, p1, whole)
	two := newTestEnv(t)
	p2, k2 := newAnalyticsProject(t, two)
	importProcess(two, p2, partA)
	importProcess(two, p2, partB)

	v1, w1 := exports(one, p1, k1)
	v2, w2 := exports(two, p2, k2)
	if v1.Totals.Total == 0 || w1.Totals.Human == 0 {
		t.Fatalf("the whole log counted no visitors: %+v", v1.Totals)
	}
	j := func(x any) string { b, _ := json.Marshal(x); return string(b) }
	if j(v1) != j(v2) {
		t.Errorf("visitors differ:\none import  %s\ntwo imports %s", j(v1), j(v2))
	}
	if j(w1) != j(w2) {
		t.Errorf("views differ:\none import  %s\ntwo imports %s", j(w1), j(w2))
	}
	t.Logf("one import and two: %s", j(v1.Totals))
}
