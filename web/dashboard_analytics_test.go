package main

import (
	"context"
	"encoding/json"
	"html"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/folio-docs/folio/analytics"
	"github.com/folio-docs/folio/db"
)

// withTraffic records generated traffic for a project with the generator
// `folio analytics generate` uses, over the days before now, and returns a
// read key for the export API.
func (s *dashboardServer) withTraffic(t *testing.T, projectID string, views, days int) string {
	t.Helper()
	now := time.Now().UTC()
	cfg := analytics.GenConfig{Views: views, Paths: 80, Visitors: max(50, views/8), From: now.AddDate(0, 0, -days), To: now, Seed: 42}
	if n, err := s.app.analytics.Generate(context.Background(), projectID, cfg); err != nil || n != views {
		t.Fatalf("generate traffic: %d stored, %v", n, err)
	}
	key, _, err := s.app.keys.Issue(context.Background(), projectID, "export", db.ScopeRead, "7d")
	if err != nil {
		t.Fatal(err)
	}
	return key
}

// export calls GET /v1/analytics/{id}/{kind} with key and params, decoding
// the answer into out, and returns the status.
func (s *dashboardServer) export(t *testing.T, projectID, key, kind string, params url.Values, out any) int {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, s.URL+"/v1/analytics/"+projectID+"/"+kind+"?"+params.Encode(), nil)
	req.Header.Set("Authorization", "Bearer "+key)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if err := json.NewDecoder(res.Body).Decode(out); err != nil {
		t.Fatalf("decode the %s export: %v", kind, err)
	}
	return res.StatusCode
}

// dataValue reads data-value of the element with id in a page.
func dataValue(t *testing.T, page, id string) int {
	t.Helper()
	m := regexp.MustCompile(`id="` + regexp.QuoteMeta(id) + `"[^>]*data-value="(\d+)"`).FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("the page has no #%s with a data-value", id)
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

var (
	dayPattern = regexp.MustCompile(`<g class="day" data-day="([0-9-]+)" data-human="(\d+)" data-ai="(\d+)">`)
	rowPattern = regexp.MustCompile(`(?s)<td data-label="Path" class="path"><code>(.*?)</code></td>\s*<td data-label="Human" class="num">([\d,]+)</td>\s*<td data-label="AI" class="num">([\d,]+)</td>\s*<td data-label="Total" class="num"><strong>([\d,]+)</strong>`)
)

func count(s string) int {
	n, _ := strconv.Atoi(strings.ReplaceAll(s, ",", ""))
	return n
}

func TestAnalyticsPageShowsWhatTheExportCounts(t *testing.T) {
	s := newDashboardServer(t, nil)
	c := s.client(t)
	owner := s.signUp(t, c, "owner@example.com")
	p := s.createProject(t, owner)
	key := s.withTraffic(t, p.ID, 4000, 40)
	end := time.Now().UTC().Truncate(24*time.Hour).AddDate(0, 0, 1)
	from, to := end.AddDate(0, 0, -21).Format(time.DateOnly), end.AddDate(0, 0, -1).Format(time.DateOnly)
	rng := url.Values{"dateFrom": {from}, "dateTo": {to}}

	res, page := s.get(t, c, "/projects/"+p.ID+"/analytics?"+rng.Encode()+"&offset=10&limit=15")
	if res.StatusCode != http.StatusOK {
		t.Fatalf("analytics page: got %d", res.StatusCode)
	}
	var visitors analytics.Visitors
	if code := s.export(t, p.ID, key, "visitors", url.Values{"dateFrom": {from}, "dateTo": {to}, "offset": {"10"}, "limit": {"15"}}, &visitors); code != http.StatusOK {
		t.Fatalf("visitors export: %d", code)
	}
	var views analytics.Views
	s.export(t, p.ID, key, "views", rng, &views)
	if visitors.Totals.Total == 0 || views.Totals.AI == 0 {
		t.Fatalf("the range has no traffic to compare: %+v %+v", visitors.Totals, views.Totals)
	}
	for id, want := range map[string]int{
		"total-visitors": visitors.Totals.Total, "human-visitors": visitors.Totals.Human, "ai-visitors": visitors.Totals.AI,
		"total-views": views.Totals.All(), "views-human": views.Totals.Human, "views-ai": views.Totals.AI,
		"views-search": views.Totals.AISearch, "views-training": views.Totals.AITraining, "views-bots": views.Totals.Bots,
	} {
		if got := dataValue(t, page, id); got != want {
			t.Errorf("#%s shows %d, the export says %d", id, got, want)
		}
	}

	// The table is the export's page: same rows, same order.
	rows := rowPattern.FindAllStringSubmatch(page, -1)
	if len(rows) != len(visitors.Visitors) || len(rows) != 15 {
		t.Fatalf("the table has %d rows, the export's page %d (want 15)", len(rows), len(visitors.Visitors))
	}
	for i, r := range rows {
		want := visitors.Visitors[i]
		if got := (analytics.VisitorRow{Path: html.UnescapeString(strings.ReplaceAll(r[1], "<wbr>", "")), VisitorCounts: analytics.VisitorCounts{Human: count(r[2]), AI: count(r[3]), Total: count(r[4])}}); got != want {
			t.Errorf("row %d: page %+v, export %+v", i+11, got, want)
		}
	}
	if !strings.Contains(page, "Rows 11–25") || !strings.Contains(page, `rel="prev"`) || strings.Contains(page, `rel="next"`) != visitors.HasMore {
		t.Errorf("the pager does not match offset 10, limit 15, hasMore %v", visitors.HasMore)
	}

	// Each day of the chart is the export for that day alone.
	days := dayPattern.FindAllStringSubmatch(page, -1)
	if len(days) != 20 {
		t.Fatalf("the chart has %d days for [%s, %s), want 20", len(days), from, to)
	}
	for i, d := range days {
		day, _ := time.Parse(time.DateOnly, from)
		day = day.AddDate(0, 0, i)
		if d[1] != day.Format(time.DateOnly) {
			t.Errorf("chart day %d is %s, want %s", i, d[1], day.Format(time.DateOnly))
		}
		var one analytics.Visitors
		s.export(t, p.ID, key, "visitors", url.Values{"dateFrom": {d[1]}, "dateTo": {day.AddDate(0, 0, 1).Format(time.DateOnly)}, "limit": {"1"}}, &one)
		if count(d[2]) != one.Totals.Human || count(d[3]) != one.Totals.AI {
			t.Errorf("%s: chart %s human, %s AI; export %+v", d[1], d[2], d[3], one.Totals)
		}
	}

	// htmx paging asks for the table alone.
	req, _ := http.NewRequest(http.MethodGet, s.URL+"/projects/"+p.ID+"/analytics?"+rng.Encode()+"&offset=10&limit=15", nil)
	req.Header.Set("HX-Request", "true")
	req.Header.Set("HX-Target", "pages")
	res, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if body := string(b); !strings.HasPrefix(strings.TrimSpace(body), `<section class="card" id="pages"`) || strings.Contains(body, "visitors-chart") {
		t.Errorf("the htmx table request got more (or less) than the table: %.200s", body)
	}
}

func TestAnalyticsPageDefaultsToTheLast30Days(t *testing.T) {
	s := newDashboardServer(t, nil)
	c := s.client(t)
	p := s.createProject(t, s.signUp(t, c, "owner@example.com"))
	key := s.withTraffic(t, p.ID, 1500, 60)
	_, page := s.get(t, c, "/projects/"+p.ID+"/analytics")
	end := time.Now().UTC().Truncate(24*time.Hour).AddDate(0, 0, 1)
	var visitors analytics.Visitors
	s.export(t, p.ID, key, "visitors", url.Values{"dateFrom": {end.AddDate(0, 0, -30).Format(time.DateOnly)}, "dateTo": {end.Format(time.DateOnly)}}, &visitors)
	if got := dataValue(t, page, "total-visitors"); got != visitors.Totals.Total {
		t.Errorf("default range shows %d visitors, the export of the last 30 days %d", got, visitors.Totals.Total)
	}
	if n := len(dayPattern.FindAllString(page, -1)); n != 30 {
		t.Errorf("the default chart has %d days, want 30", n)
	}
	if !strings.Contains(page, `class="preset active" href="/projects/`+p.ID+`/analytics?dateFrom=`+end.AddDate(0, 0, -30).Format(time.DateOnly)) {
		t.Error("the 30-day preset is not marked active on the default range")
	}
}

func TestAnalyticsPageRefusesBadRanges(t *testing.T) {
	s := newDashboardServer(t, nil)
	c := s.client(t)
	p := s.createProject(t, s.signUp(t, c, "owner@example.com"))
	key := s.withTraffic(t, p.ID, 200, 10)
	for _, params := range []url.Values{
		{"dateFrom": {"2026-13-01"}},
		{"dateTo": {"yesterday"}},
		{"dateFrom": {"2026-03-02"}, "dateTo": {"2026-03-02"}},
		{"dateFrom": {"2026-03-02"}, "dateTo": {"2026-03-01"}},
		{"limit": {"0"}},
		{"limit": {"251"}},
		{"offset": {"-1"}},
	} {
		res, page := s.get(t, c, "/projects/"+p.ID+"/analytics?"+params.Encode())
		var apiErr struct {
			Error   string `json:"error"`
			Details []struct{ Message string }
		}
		if code := s.export(t, p.ID, key, "visitors", params, &apiErr); code != http.StatusBadRequest || len(apiErr.Details) != 1 {
			t.Fatalf("export with %s: %d %+v, want one 400 problem", params.Encode(), code, apiErr)
		}
		if res.StatusCode != http.StatusBadRequest || !strings.Contains(page, `id="range-error"`) || !strings.Contains(html.UnescapeString(page), apiErr.Details[0].Message) {
			t.Errorf("page with %s: got %d, want 400 showing the export's message %q", params.Encode(), res.StatusCode, apiErr.Details[0].Message)
		}
		if strings.Contains(page, `id="visitors-chart"`) {
			t.Errorf("page with %s still drew a chart", params.Encode())
		}
	}
	res, page := s.get(t, c, "/projects/"+p.ID+"/analytics?dateFrom=2020-01-01&dateTo=2026-01-01")
	if res.StatusCode != http.StatusBadRequest || !strings.Contains(page, "at most 366") {
		t.Errorf("six years: got %d, want 400 saying the page shows at most 366 days", res.StatusCode)
	}
}

func TestAnalyticsPageWithoutTrafficSaysHowToStart(t *testing.T) {
	s := newDashboardServer(t, map[string]string{"FOLIO_BASE_URL": "https://folio.acme.example"})
	c := s.client(t)
	p := s.createProject(t, s.signUp(t, c, "owner@example.com"))
	res, page := s.get(t, c, "/projects/"+p.ID+"/analytics")
	if res.StatusCode != http.StatusOK {
		t.Fatalf("got %d", res.StatusCode)
	}
	page = html.UnescapeString(page)
	for _, want := range []string{
		`id="analytics-empty"`,
		`<script defer src="https://folio.acme.example/js/folio.js" data-project="` + p.ID + `"></script>`,
		"/v1/analytics/" + p.ID + "/events",
		"folio analytics import --project " + p.ID,
		"folio analytics generate --project " + p.ID + " --views",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the empty state lacks %q", want)
		}
	}
	if strings.Contains(page, `id="visitors-chart"`) {
		t.Error("the empty state draws an empty chart")
	}
	// Traffic outside the range is not "no traffic": the page shows zeros.
	s.withTraffic(t, p.ID, 100, 3)
	_, page = s.get(t, c, "/projects/"+p.ID+"/analytics?dateFrom=2020-01-01&dateTo=2020-02-01")
	if strings.Contains(page, `id="analytics-empty"`) || dataValue(t, page, "total-visitors") != 0 || !strings.Contains(page, "No visitors in this range") {
		t.Error("a range without traffic in a project with traffic should show zeros, not the empty state")
	}
}
