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
	"github.com/folio-docs/folio/model"
)

// withTraffic records generated traffic for a project with the generator
// `folio analytics generate` uses, over the days before now, and returns a
// read key for the export API.
func (s *testServer) withTraffic(t *testing.T, projectID string, views, days int) string {
	t.Helper()
	now := time.Now().UTC()
	cfg := analytics.GenConfig{Views: views, Paths: 80, Visitors: max(50, views/8), From: now.AddDate(0, 0, -days), To: now, Seed: 42}
	if n, err := s.app.analytics.Generate(context.Background(), projectID, cfg); err != nil || n != views {
		t.Fatalf("generate traffic: %d stored, %v", n, err)
	}
	key, _, err := s.app.keys.Issue(context.Background(), projectID, "export", model.ScopeRead, "7d")
	if err != nil {
		t.Fatal(err)
	}
	return key
}

// ownerWithTraffic stands up a server where email, signed in on c, owns a
// project p with views generated over the last days; key reads its exports.
func ownerWithTraffic(t *testing.T, email string, views, days int) (s *testServer, c *http.Client, p model.Project, key string) {
	t.Helper()
	s = newTestServer(t)
	c = s.client(t)
	p = s.createProject(t, s.signUp(t, c, email))
	return s, c, p, s.withTraffic(t, p.ID, views, days)
}

// export calls GET /v1/analytics/{id}/{kind} with key and params, decoding
// the answer into out, and returns the status.
func (s *testServer) export(t *testing.T, projectID, key, kind string, params url.Values, out any) int {
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
	barPattern = regexp.MustCompile(`<g class="bucket"[^>]* data-start="([0-9-]+)"[^>]* data-human="(\d+)" data-ai="(\d+)" data-total="(\d+)">`)
	rowPattern = regexp.MustCompile(`(?s)<td data-label="Path" class="path"><code>(.*?)</code></td>\s*<td data-label="Human" class="num">([\d,]+)</td>\s*<td data-label="AI" class="num">([\d,]+)</td>\s*<td data-label="Total" class="num"><strong>([\d,]+)</strong>`)
)

func count(s string) int {
	n, _ := strconv.Atoi(strings.ReplaceAll(s, ",", ""))
	return n
}

func TestAnalyticsPageShowsWhatTheExportCounts(t *testing.T) {
	t.Parallel()
	s, c, p, key := ownerWithTraffic(t, "owner@example.com", 4000, 40)
	end := time.Now().UTC().Truncate(24*time.Hour).AddDate(0, 0, 1)
	// The page takes both days included; the export's dateTo is exclusive.
	from, last, to := end.AddDate(0, 0, -21).Format(time.DateOnly), end.AddDate(0, 0, -2).Format(time.DateOnly), end.AddDate(0, 0, -1).Format(time.DateOnly)
	rng := url.Values{"dateFrom": {from}, "dateTo": {to}}
	pageRange := url.Values{"from": {from}, "to": {last}}

	res, page := s.get(t, c, "/projects/"+p.ID+"/analytics?"+pageRange.Encode()+"&offset=10&limit=15")
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
	s.checkBars(t, page, p.ID, key, from, to, 20, 1)

	// The change on the totals is against the 20 days before.
	var before analytics.Visitors
	s.export(t, p.ID, key, "visitors", url.Values{"dateFrom": {end.AddDate(0, 0, -41).Format(time.DateOnly)}, "dateTo": {from}}, &before)
	for id, want := range map[string]int{"total-change": before.Totals.Total, "human-change": before.Totals.Human, "ai-change": before.Totals.AI} {
		m := regexp.MustCompile(`id="` + id + `" data-previous="(\d+)"`).FindStringSubmatch(page)
		if m == nil || count(m[1]) != want {
			t.Errorf("#%s compares with %v, the export of the previous 20 days says %d", id, m, want)
		}
	}
	if !strings.Contains(page, "vs the previous 20 days") {
		t.Error("the totals do not say what they are compared with")
	}
	// The groups overlap, and the page says so with the range's numbers.
	both := visitors.Totals.Human + visitors.Totals.AI - visitors.Totals.Total
	if both <= 0 || !strings.Contains(page, "One visitor can be both") || !strings.Contains(page, "(here "+num(both)+" visitors are both)") {
		t.Errorf("the page does not say that %d visitors are both human and AI", both)
	}

	// htmx paging asks for the table alone.
	req, _ := http.NewRequest(http.MethodGet, s.URL+"/projects/"+p.ID+"/analytics?"+pageRange.Encode()+"&offset=10&limit=15", nil)
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

// checkBars checks the chart of page: n bars over [from, to) (the
// export's bounds), each of at least minDays days, each equal to the
// visitors export for its part of the range alone.
func (s *testServer) checkBars(t *testing.T, page, projectID, key, from, to string, n, minDays int) {
	t.Helper()
	bars := barPattern.FindAllStringSubmatch(page, -1)
	if len(bars) != n {
		t.Fatalf("the chart has %d bars for [%s, %s), want %d", len(bars), from, to, n)
	}
	if bars[0][1] != from {
		t.Errorf("the first bar starts on %s, the range on %s", bars[0][1], from)
	}
	busy := 0
	for i, b := range bars {
		end := to
		if i+1 < len(bars) {
			end = bars[i+1][1]
		}
		if a, z := day(t, b[1]), day(t, end); i > 0 && i+1 < len(bars) && z.Sub(a) < time.Duration(minDays)*24*time.Hour {
			t.Errorf("bar %d covers %s to %s, shorter than %d days", i, b[1], end, minDays)
		}
		var one analytics.Visitors
		s.export(t, projectID, key, "visitors", url.Values{"dateFrom": {b[1]}, "dateTo": {end}, "limit": {"1"}}, &one)
		if got := (analytics.VisitorCounts{Human: count(b[2]), AI: count(b[3]), Total: count(b[4])}); got != one.Totals {
			t.Errorf("bar [%s, %s): chart %+v, export %+v", b[1], end, got, one.Totals)
		}
		if one.Totals.Total > 0 {
			busy++
		}
	}
	if busy < n/2 {
		t.Errorf("only %d of %d bars have visitors: the test traffic is too thin", busy, n)
	}
}

func day(t *testing.T, s string) time.Time {
	t.Helper()
	d, err := time.Parse(time.DateOnly, s)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// Long ranges draw weeks and months, each bar the export of its part.
func TestAnalyticsPageGroupsLongRanges(t *testing.T) {
	t.Parallel()
	s, c, p, key := ownerWithTraffic(t, "owner@example.com", 6000, 500)
	today := time.Now().UTC().Truncate(24 * time.Hour)
	tomorrow := today.AddDate(0, 0, 1).Format(time.DateOnly)
	monday := today.AddDate(0, 0, -(int(today.Weekday())+6)%7)

	// 12 months: weeks, the first cut at the range's start.
	first := today.AddDate(-1, 0, 1)
	_, page := s.get(t, c, "/projects/"+p.ID+"/analytics?from="+first.Format(time.DateOnly)+"&to="+today.Format(time.DateOnly))
	weeks := int(monday.Sub(first.AddDate(0, 0, -(int(first.Weekday())+6)%7)).Hours()/24/7) + 1
	if !strings.Contains(page, `data-unit="week"`) || weeks > 60 {
		t.Fatalf("12 months are not drawn by week (%d weeks)", weeks)
	}
	s.checkBars(t, page, p.ID, key, first.Format(time.DateOnly), tomorrow, weeks, 7)

	// All time: months from the first view, no previous period, totals of everything.
	res, page := s.get(t, c, "/projects/"+p.ID+"/analytics?range=all")
	if res.StatusCode != http.StatusOK || !strings.Contains(page, `data-unit="month"`) || strings.Contains(page, `id="total-change"`) {
		t.Fatalf("all time: %d, want a monthly chart without a previous period", res.StatusCode)
	}
	var all analytics.Visitors
	s.export(t, p.ID, key, "visitors", url.Values{}, &all)
	if got := dataValue(t, page, "total-visitors"); got != all.Totals.Total {
		t.Errorf("all time shows %d visitors, the unbounded export %d", got, all.Totals.Total)
	}
	start := barPattern.FindStringSubmatch(page)[1]
	firstMonth := today.AddDate(0, 0, -500)
	months := (today.Year()-firstMonth.Year())*12 + int(today.Month()) - int(firstMonth.Month()) + 1
	s.checkBars(t, page, p.ID, key, start, tomorrow, months, 28)
	if !strings.Contains(page, `class="preset active" href="/projects/`+p.ID+`/analytics?range=all"`) {
		t.Error("the All time preset is not marked active")
	}
}

func TestAnalyticsPageDefaultsToTheLast30Days(t *testing.T) {
	t.Parallel()
	s, c, p, key := ownerWithTraffic(t, "owner@example.com", 1500, 60)
	_, page := s.get(t, c, "/projects/"+p.ID+"/analytics")
	end := time.Now().UTC().Truncate(24*time.Hour).AddDate(0, 0, 1)
	var visitors analytics.Visitors
	s.export(t, p.ID, key, "visitors", url.Values{"dateFrom": {end.AddDate(0, 0, -30).Format(time.DateOnly)}, "dateTo": {end.Format(time.DateOnly)}}, &visitors)
	if got := dataValue(t, page, "total-visitors"); got != visitors.Totals.Total {
		t.Errorf("default range shows %d visitors, the export of the last 30 days %d", got, visitors.Totals.Total)
	}
	if n := len(barPattern.FindAllString(page, -1)); n != 30 || !strings.Contains(page, `data-unit="day"`) {
		t.Errorf("the default chart has %d bars, want 30 days", n)
	}
	if !strings.Contains(page, `class="preset active" href="/projects/`+p.ID+`/analytics?from=`+end.AddDate(0, 0, -30).Format(time.DateOnly)+`&amp;to=`+end.AddDate(0, 0, -1).Format(time.DateOnly)) {
		t.Error("the 30-day preset is not marked active on the default range")
	}
}

// The range is for people: its errors say what is wrong in their words,
// about the field they typed in; the table's paging keeps the export's.
func TestAnalyticsPageRefusesBadRanges(t *testing.T) {
	t.Parallel()
	s, c, p, _ := ownerWithTraffic(t, "owner@example.com", 200, 10)
	for _, tc := range []struct {
		query, field, want string
	}{
		{"from=2026-13-01", "from", "The start date “2026-13-01” is not a date. Pick one from the calendar, or type it as "},
		{"to=yesterday", "to", "The end date “yesterday” is not a date."},
		{"from=2026-03-02&to=2026-03-01", "to", "The end date, 1 Mar 2026, is before the start date, 2 Mar 2026. Swap them, or pick a preset."},
		{"from=2020-01-01&to=2026-01-01", "from", "From 1 Jan 2020 to 1 Jan 2026 is more than 5 years; a range picked by date spans at most 5. Pick a later start date, or choose All time."},
		{"from=2999-01-01", "from", "The start date, 1 Jan 2999, is after today"},
		{"limit=0", "", "limit must be an integer from 1 to 250"},
		{"offset=-1", "", "offset must be an integer of 0 or more"},
	} {
		res, page := s.get(t, c, "/projects/"+p.ID+"/analytics?"+tc.query)
		page = html.UnescapeString(page)
		if res.StatusCode != http.StatusBadRequest || !strings.Contains(page, `id="range-error"`) || !strings.Contains(page, tc.want) {
			t.Errorf("page with %s: got %d, want 400 saying %q", tc.query, res.StatusCode, tc.want)
		}
		if tc.field != "" && !regexp.MustCompile(`name="`+tc.field+`"[^>]*aria-invalid`).MatchString(page) {
			t.Errorf("page with %s: the %s field is not marked invalid", tc.query, tc.field)
		}
		if strings.Contains(page, "dateTo") || strings.Contains(page, "exclusive") {
			t.Errorf("page with %s speaks the API's language to people", tc.query)
		}
		if strings.Contains(page, `id="visitors-chart"`) {
			t.Errorf("page with %s still drew a chart", tc.query)
		}
	}
	// A single day, to included, is a range.
	if res, _ := s.get(t, c, "/projects/"+p.ID+"/analytics?from=2026-03-02&to=2026-03-02"); res.StatusCode != http.StatusOK {
		t.Errorf("one day, from = to: got %d, want 200", res.StatusCode)
	}
}

func TestAnalyticsPageWithoutTrafficSaysHowToStart(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, withEnv(map[string]string{"FOLIO_BASE_URL": "https://folio.acme.example"}))
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
	_, page = s.get(t, c, "/projects/"+p.ID+"/analytics?from=2020-01-01&to=2020-01-31")
	if strings.Contains(page, `id="analytics-empty"`) || dataValue(t, page, "total-visitors") != 0 || !strings.Contains(page, "No visitors in this range") {
		t.Error("a range without traffic in a project with traffic should show zeros, not the empty state")
	}
}

var (
	agentRowPattern  = regexp.MustCompile(`(?s)<tr class="(active)?">\s*<td data-label="Agent" class="agent-name"><a id="agent-\d+" href="([^"]+)"[^>]*>\s*([^<]+?)\s*<span class="sr-only">: show the pages it read</span></a></td>\s*<td data-label="Operator">\s*(?:<span class="muted">unknown</span>|([^<]+?))\s*</td>\s*<td data-label="Class"><span class="agent-class"><span class="swatch swatch-[a-z]+" aria-hidden="true"></span>([^<]+)</span></td>\s*<td data-label="Visitors" class="num" data-value="(\d+)"><strong>[\d,]+</strong></td>\s*<td data-label="Views" class="num" data-value="(\d+)">`)
	agentPagePattern = regexp.MustCompile(`(?s)<td data-label="Path" class="path"><code>(.*?)</code></td>\s*<td data-label="Visitors" class="num"><strong>([\d,]+)</strong></td>\s*<td data-label="Views" class="num">([\d,]+)</td>`)
)

// The AI agents panel is the agents export of the range, its first ten,
// with each agent's operator, class, visitors and views in words and
// numbers; choosing an agent narrows the pages table to the pages it read,
// each page's numbers those of the agents export narrowed to that page.
func TestAnalyticsPageShowsTheAgents(t *testing.T) {
	t.Parallel()
	s, c, p, key := ownerWithTraffic(t, "owner@example.com", 4000, 40)
	end := time.Now().UTC().Truncate(24*time.Hour).AddDate(0, 0, 1)
	from, last, to := end.AddDate(0, 0, -21).Format(time.DateOnly), end.AddDate(0, 0, -2).Format(time.DateOnly), end.AddDate(0, 0, -1).Format(time.DateOnly)
	rng := url.Values{"dateFrom": {from}, "dateTo": {to}}
	pageRange := url.Values{"from": {from}, "to": {last}}

	_, page := s.get(t, c, "/projects/"+p.ID+"/analytics?"+pageRange.Encode())
	var agents analytics.Agents
	s.export(t, p.ID, key, "agents", rng, &agents)
	rows := agentRowPattern.FindAllStringSubmatch(page, -1)
	if len(agents.Agents) < 8 || len(rows) != min(10, len(agents.Agents)) {
		t.Fatalf("the panel lists %d agents, the export %d (want the first 10)", len(rows), len(agents.Agents))
	}
	labels := map[string]string{"ai": "AI agent", "aiSearch": "AI search", "aiTraining": "AI training", "bots": "Bot"}
	for i, r := range rows {
		want := agents.Agents[i]
		op := ""
		if want.Operator != nil {
			op = *want.Operator
		}
		if got := [5]string{html.UnescapeString(r[3]), html.UnescapeString(r[4]), r[5], r[6], r[7]}; got != [5]string{want.Name, op, labels[want.Class], strconv.Itoa(want.Visitors), strconv.Itoa(want.Views)} {
			t.Errorf("panel row %d: %v, the export's %+v", i, got, want)
		}
		if r[1] != "" {
			t.Errorf("panel row %d is marked chosen before any choice", i)
		}
	}
	if more := len(agents.Agents) - len(rows); more > 0 && !strings.Contains(page, num(more)+" more in this range") {
		t.Errorf("the panel does not say %d more agents are in the range", more)
	}

	// Each agent's link narrows the table; its rows are the agents export
	// of each page.
	for i, r := range rows[:3] {
		link := html.UnescapeString(r[2])
		res, narrowed := s.get(t, c, link)
		if res.StatusCode != 200 || !strings.Contains(link, "agent=") || !strings.Contains(link, "from="+from) {
			t.Fatalf("%s: %d", link, res.StatusCode)
		}
		a := agents.Agents[i]
		if !strings.Contains(narrowed, "Pages read by "+html.EscapeString(a.Name)) {
			t.Errorf("%s: the table is not titled for %s", link, a.Name)
		}
		chosen := agentRowPattern.FindAllStringSubmatch(narrowed, -1)
		if len(chosen) <= i || chosen[i][1] == "" || !strings.Contains(narrowed, `aria-current="true"`) {
			t.Errorf("%s: the panel does not mark %s as chosen", link, a.Name)
		}
		pages := agentPagePattern.FindAllStringSubmatch(narrowed, -1)
		if len(pages) == 0 {
			t.Fatalf("%s: no page in the narrowed table", link)
		}
		prev := [2]int{1 << 30, 1 << 30}
		for _, pg := range pages {
			path := html.UnescapeString(strings.ReplaceAll(pg[1], "<wbr>", ""))
			var one analytics.Agents
			s.export(t, p.ID, key, "agents", url.Values{"dateFrom": {from}, "dateTo": {to}, "path": {path}, "limit": {"250"}}, &one)
			var want *analytics.AgentRow
			for k := range one.Agents {
				if one.Agents[k].Name == a.Name && one.Agents[k].Class == a.Class {
					want = &one.Agents[k]
				}
			}
			got := [2]int{count(pg[2]), count(pg[3])}
			if want == nil || got != [2]int{want.Visitors, want.Views} {
				t.Errorf("%s: %s reads %v visitors and views; the agents export of that page: %+v", a.Name, path, got, want)
			}
			if got[0] > prev[0] || got[0] == prev[0] && got[1] > prev[1] {
				t.Errorf("%s: %s (%v) comes after %v: not most visitors first", a.Name, path, got, prev)
			}
			prev = got
		}
	}

	// A class that is not one is explained, never ignored.
	res, bad := s.get(t, c, "/projects/"+p.ID+"/analytics?agent=GPTBot&class=robots")
	if res.StatusCode != http.StatusBadRequest || !strings.Contains(bad, "is not one of ai, aiSearch, aiTraining or bots") {
		t.Errorf("a bad agent class: %d", res.StatusCode)
	}

	// htmx asks for the table and the panel, the table first.
	req, _ := http.NewRequest(http.MethodGet, s.URL+html.UnescapeString(rows[0][2]), nil)
	req.Header.Set("HX-Request", "true")
	req.Header.Set("HX-Target", "pages")
	res, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if body := string(b); !strings.HasPrefix(strings.TrimSpace(body), `<section class="card" id="pages"`) || !strings.Contains(body, `id="agents"`) || strings.Contains(body, "visitors-chart") {
		t.Errorf("the htmx request for an agent's pages got more or less than the table and the panel: %.200s", body)
	}
}
