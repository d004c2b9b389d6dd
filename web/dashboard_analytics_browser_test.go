package main

import (
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/folio-docs/folio/analytics"
)

// chartDay is a day of the analytics chart as the browser has it.
type chartDay struct {
	Day   string `json:"day"`
	Human int    `json:"human"`
	AI    int    `json:"ai"`
	Bars  int    `json:"bars"`
}

const readChart = `Array.from(document.querySelectorAll("#visitors-chart g.day")).map(g => ({
	day: g.dataset.day, human: +g.dataset.human, ai: +g.dataset.ai,
	bars: g.querySelectorAll("rect.bar").length}))`

func TestAnalyticsInBrowser(t *testing.T) {
	s := newDashboardServer(t, nil)
	ctx := newBrowser(t)
	dir := screenshotDir(t)

	do(t, ctx, "sign up and create a project",
		chromedp.Navigate(s.URL+"/signup"),
		chromedp.SendKeys(chromedp.CSS(`input[name=email]`), "ada@example.com"),
		chromedp.SendKeys(chromedp.CSS(`input[name=password]`), "correct horse battery"),
		chromedp.Click(chromedp.CSS(`form[action="/signup"] button`)),
		chromedp.WaitVisible(chromedp.CSS(`form[action="/projects"] input[name=name]`)),
		chromedp.SendKeys(chromedp.CSS(`form[action="/projects"] input[name=name]`), "Acme handbook"),
		chromedp.SendKeys(chromedp.CSS(`form[action="/projects"] input[name=repository]`), "acme/handbook"),
		chromedp.Click(chromedp.CSS(`form[action="/projects"] button`)),
		chromedp.WaitVisible(chromedp.ID("project-id")),
	)
	projectID := text(t, ctx, "#project-id")
	analyticsURL := s.URL + "/projects/" + projectID + "/analytics"

	// Before any traffic: how to start.
	do(t, ctx, "open the empty analytics page",
		chromedp.Click(chromedp.CSS(`.tabs a[href$="/analytics"]`)),
		chromedp.WaitVisible(chromedp.ID("analytics-empty")),
	)
	if got := text(t, ctx, "#tracker-snippet"); got != `<script defer src="`+s.app.cfg.BaseURL+`/js/folio.js" data-project="`+projectID+`"></script>` {
		t.Errorf("tracker snippet reads %q", got)
	}
	do(t, ctx, "copy the snippet", chromedp.Click(chromedp.CSS(`[data-copy=tracker-snippet]`)), chromedp.WaitVisible(chromedp.CSS(`[data-copy=tracker-snippet].copied`)))
	shoot(t, ctx, dir, "20-analytics-empty")

	// Generated traffic, as `folio analytics generate` makes it.
	key := s.withTraffic(t, projectID, 12000, 120)
	do(t, ctx, "open analytics with traffic", chromedp.Navigate(analyticsURL), chromedp.WaitVisible(chromedp.ID("visitors-chart")))
	end := time.Now().UTC().Truncate(24*time.Hour).AddDate(0, 0, 1)
	checkRange := func(what string, from time.Time, days int) {
		t.Helper()
		rng := url.Values{"dateFrom": {from.Format(time.DateOnly)}, "dateTo": {from.AddDate(0, 0, days).Format(time.DateOnly)}}
		var want analytics.Visitors
		s.export(t, projectID, key, "visitors", rng, &want)
		got := [3]string{text(t, ctx, "#total-visitors"), text(t, ctx, "#human-visitors"), text(t, ctx, "#ai-visitors")}
		if exp := [3]string{num(want.Totals.Total), num(want.Totals.Human), num(want.Totals.AI)}; got != exp {
			t.Errorf("%s: totals read %v, the export says %v", what, got, exp)
		}
		chart, err := chromedp.Run(ctx, chromedp.Evaluate[[]chartDay](readChart))
		if err != nil {
			t.Fatal(err)
		}
		if len(chart) != days {
			t.Fatalf("%s: the chart has %d days, want %d", what, len(chart), days)
		}
		drawn := 0
		for i, d := range chart {
			if day := from.AddDate(0, 0, i).Format(time.DateOnly); d.Day != day || d.Bars != 2 {
				t.Errorf("%s: chart day %d is %s with %d bars, want %s with 2", what, i, d.Day, d.Bars, day)
			}
			drawn += d.Human + d.AI
		}
		if drawn == 0 {
			t.Errorf("%s: every day of the chart is empty", what)
		}
	}
	checkRange("default range", end.AddDate(0, 0, -30), 30)
	if got := text(t, ctx, ".preset.active"); got != "30 days" {
		t.Errorf("the active preset is %q, want 30 days", got)
	}
	shoot(t, ctx, dir, "21-analytics-desktop")

	// Page the table without reloading the page.
	first := text(t, ctx, "#pages-table tbody tr:first-child td.path")
	do(t, ctx, "next page of the table",
		chromedp.Evaluate[chromedp.Void](`window.folioMarker = "kept"`),
		chromedp.Click(chromedp.CSS(`#pages a[rel=next]`)),
		chromedp.WaitVisible(chromedp.CSS(`#pages a[rel=prev]`)),
	)
	if got := text(t, ctx, "#pages-range"); !strings.HasPrefix(got, "Rows 26–50") {
		t.Errorf("after Next the table says %q", got)
	}
	if marker, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`window.folioMarker || "reloaded"`)); marker != "kept" {
		t.Error("paging reloaded the whole page")
	}
	if loc, _ := chromedp.Run(ctx, chromedp.Location()); !strings.Contains(loc, "offset=25") {
		t.Errorf("paging did not put the page in the address bar: %s", loc)
	}
	var page2 analytics.Visitors
	s.export(t, projectID, key, "visitors", url.Values{"dateFrom": {end.AddDate(0, 0, -30).Format(time.DateOnly)}, "dateTo": {end.Format(time.DateOnly)}, "offset": {"25"}, "limit": {"25"}}, &page2)
	if got := text(t, ctx, "#pages-table tbody tr:first-child td.path"); got != page2.Visitors[0].Path || got == first {
		t.Errorf("page 2 starts with %q, the export's page 2 with %q (page 1 with %q)", got, page2.Visitors[0].Path, first)
	}

	// Change the range: a preset, then dates typed in.
	do(t, ctx, "7-day preset",
		chromedp.Click(chromedp.CSS(`.preset[href*="dateFrom=`+end.AddDate(0, 0, -7).Format(time.DateOnly)+`"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#visitors-chart g.day:nth-child(7)`)),
		chromedp.WaitNotPresent(chromedp.CSS(`#visitors-chart g.day:nth-child(8)`)),
	)
	checkRange("7-day preset", end.AddDate(0, 0, -7), 7)
	from := end.AddDate(0, 0, -90)
	do(t, ctx, "type a range",
		chromedp.SetValue(chromedp.CSS(`input[name=dateFrom]`), from.Format(time.DateOnly)),
		chromedp.SetValue(chromedp.CSS(`input[name=dateTo]`), from.AddDate(0, 0, 45).Format(time.DateOnly)),
		chromedp.Click(chromedp.CSS(`#range button[type=submit]`)),
		chromedp.WaitVisible(chromedp.CSS(`#visitors-chart g.day:nth-child(45)`)),
	)
	checkRange("typed range", from, 45)
	if got := text(t, ctx, "#range-label"); !strings.Contains(got, "45 days") {
		t.Errorf("the range label says %q", got)
	}

	// A range the page cannot show is explained, not clamped.
	do(t, ctx, "bad range", chromedp.Navigate(analyticsURL+"?dateFrom=2026-03-10&dateTo=2026-03-01"), chromedp.WaitVisible(chromedp.ID("range-error")))
	if got := text(t, ctx, "#range-error"); got != "dateTo must be after dateFrom (dateTo is exclusive)." {
		t.Errorf("the error reads %q", got)
	}
	shoot(t, ctx, dir, "22-analytics-bad-range")

	// Twelve months, then a phone.
	do(t, ctx, "12 months", chromedp.Navigate(analyticsURL), chromedp.Click(chromedp.CSS(`.preset[href*="dateFrom=`+end.AddDate(-1, 0, 0).Format(time.DateOnly)+`"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#visitors-chart g.day:nth-child(360)`)))
	shoot(t, ctx, dir, "23-analytics-12-months")
	do(t, ctx, "phone", chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile), chromedp.Navigate(analyticsURL), chromedp.WaitVisible(chromedp.ID("visitors-chart")))
	shoot(t, ctx, dir, "24-analytics-phone")
	if w, _ := chromedp.Run(ctx, chromedp.Evaluate[int](`document.documentElement.scrollWidth`)); w > 390 {
		t.Errorf("on a phone the page is %dpx wide, wider than the screen", w)
	}
	do(t, ctx, "desktop again", chromedp.EmulateViewport(1280, 900))
}

// num is how the page writes a count.
func num(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
