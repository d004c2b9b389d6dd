package main

import (
	"context"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/folio-docs/folio/analytics"
)

// chartBar is a bar of the analytics chart as the browser has it.
type chartBar struct {
	Start string `json:"start"`
	Label string `json:"label"`
	Human int    `json:"human"`
	AI    int    `json:"ai"`
	Total int    `json:"total"`
	Bars  int    `json:"bars"`
}

const readChart = `Array.from(document.querySelectorAll("#visitors-chart g.bucket")).map(g => ({
	start: g.dataset.start, label: g.dataset.label, human: +g.dataset.human, ai: +g.dataset.ai, total: +g.dataset.total,
	bars: g.querySelectorAll("rect.bar").length}))`

// tip is what the chart's tooltip shows, and whether it shows.
type tip struct {
	Shown bool   `json:"shown"`
	Text  string `json:"text"`
}

const readTip = `(() => { const t = document.getElementById("chart-tip");
	return {shown: !!t && !t.hidden && t.offsetWidth > 0, text: t ? t.innerText.replace(/\s+/g, " ") : ""}; })()`

func TestAnalyticsInBrowser(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	ctx := newBrowser(t)
	dir := screenshotDir(t)

	s.signUpInBrowser(t, ctx, "ada@example.com")
	projectID := createProjectInBrowser(t, ctx, "Acme handbook", "acme/handbook")
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
	// checkRange compares the totals with the export of [from, from+days)
	// and checks the chart draws bars of unit, at most 60.
	checkRange := func(what string, from time.Time, days int, unit string, bars int) {
		t.Helper()
		rng := url.Values{"dateFrom": {from.Format(time.DateOnly)}, "dateTo": {from.AddDate(0, 0, days).Format(time.DateOnly)}}
		var want analytics.Visitors
		s.export(t, projectID, key, "visitors", rng, &want)
		got := [3]string{text(t, ctx, "#total-visitors"), text(t, ctx, "#human-visitors"), text(t, ctx, "#ai-visitors")}
		if exp := [3]string{num(want.Totals.Total), num(want.Totals.Human), num(want.Totals.AI)}; got != exp {
			t.Errorf("%s: totals read %v, the export says %v", what, got, exp)
		}
		chart, err := chromedp.Run(ctx, chromedp.Evaluate[[]chartBar](readChart))
		if err != nil {
			t.Fatal(err)
		}
		if u, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById("visitors-chart").dataset.unit`)); u != unit || len(chart) != bars || bars > 60 {
			t.Fatalf("%s: the chart has %d bars of a %s, want %d of a %s", what, len(chart), u, bars, unit)
		}
		drawn := 0
		for i, d := range chart {
			if d.Bars != 2 || d.Total > d.Human+d.AI || d.Total < max(d.Human, d.AI) {
				t.Errorf("%s: bar %d (%s) is %+v", what, i, d.Start, d)
			}
			if unit == "day" && d.Start != from.AddDate(0, 0, i).Format(time.DateOnly) {
				t.Errorf("%s: bar %d starts %s, want %s", what, i, d.Start, from.AddDate(0, 0, i).Format(time.DateOnly))
			}
			drawn += d.Human + d.AI
		}
		if drawn == 0 {
			t.Errorf("%s: every bar of the chart is empty", what)
		}
	}
	checkRange("default range", end.AddDate(0, 0, -30), 30, "day", 30)
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

	// Change the range: a preset, then dates typed in, both days included.
	do(t, ctx, "7-day preset",
		chromedp.Click(chromedp.CSS(`.preset[href*="from=`+end.AddDate(0, 0, -7).Format(time.DateOnly)+`"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#visitors-chart g.bucket:nth-child(7)`)),
		chromedp.WaitNotPresent(chromedp.CSS(`#visitors-chart g.bucket:nth-child(8)`)),
	)
	checkRange("7-day preset", end.AddDate(0, 0, -7), 7, "day", 7)
	from := end.AddDate(0, 0, -90)
	do(t, ctx, "type a range",
		chromedp.SetValue(chromedp.CSS(`input[name=from]`), from.Format(time.DateOnly)),
		chromedp.SetValue(chromedp.CSS(`input[name=to]`), from.AddDate(0, 0, 44).Format(time.DateOnly)),
		chromedp.Click(chromedp.CSS(`#range button[type=submit]`)),
		chromedp.WaitVisible(chromedp.CSS(`#visitors-chart g.bucket:nth-child(45)`)),
	)
	checkRange("typed range, to included", from, 45, "day", 45)
	if got := text(t, ctx, "#range-label"); !strings.Contains(got, "45 days") || !strings.Contains(got, from.AddDate(0, 0, 44).Format("2 Jan 2006")) {
		t.Errorf("the range label says %q", got)
	}

	// A range the page cannot show is explained in people's words, not clamped.
	do(t, ctx, "bad range", chromedp.Navigate(analyticsURL+"?from=2026-03-10&to=2026-03-01"), chromedp.WaitVisible(chromedp.ID("range-error")))
	if got := text(t, ctx, "#range-error"); got != "The end date, 1 Mar 2026, is before the start date, 10 Mar 2026. Swap them, or pick a preset." {
		t.Errorf("the error reads %q", got)
	}
	shoot(t, ctx, dir, "22-analytics-bad-range")

	// Twelve months draw weeks; all time draws months.
	do(t, ctx, "12 months", chromedp.Navigate(analyticsURL), chromedp.Click(chromedp.CSS(`.preset[href*="from=`+end.AddDate(-1, 0, 0).Format(time.DateOnly)+`"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#visitors-chart[data-unit=week]`)))
	yearAgo := end.AddDate(-1, 0, 0)
	weeks := int(end.AddDate(0, 0, -1).Sub(yearAgo).Hours()/24+float64((int(yearAgo.Weekday())+6)%7))/7 + 1
	checkRange("12 months", yearAgo, int(end.Sub(yearAgo).Hours()/24), "week", weeks)
	shoot(t, ctx, dir, "23-analytics-12-months")
	do(t, ctx, "all time", chromedp.Click(chromedp.CSS(`.preset[href$="range=all"]`)), chromedp.WaitVisible(chromedp.CSS(`#visitors-chart[data-unit=month]`)))
	if chart, _ := chromedp.Run(ctx, chromedp.Evaluate[[]chartBar](readChart)); len(chart) < 4 || len(chart) > 6 {
		t.Errorf("all time over 120 days of traffic draws %d months", len(chart))
	}
	shoot(t, ctx, dir, "25-analytics-all-time")

	do(t, ctx, "phone", chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile), chromedp.Navigate(analyticsURL), chromedp.WaitVisible(chromedp.ID("visitors-chart")))
	shoot(t, ctx, dir, "24-analytics-phone")
	if w, _ := chromedp.Run(ctx, chromedp.Evaluate[int](`document.documentElement.scrollWidth`)); w > 390 {
		t.Errorf("on a phone the page is %dpx wide, wider than the screen", w)
	}
	do(t, ctx, "desktop again", chromedp.EmulateViewport(1280, 900))
}

// Each bar's numbers show on hover, on a tap and on keyboard focus; the
// totals compare with the previous period and say that the groups overlap.
func TestAnalyticsChartNumbersInBrowser(t *testing.T) {
	t.Parallel()
	s, _, p, key := ownerWithTraffic(t, "ada@example.com", 6000, 70)
	ctx := newBrowser(t)
	dir := screenshotDir(t)
	s.signInBrowser(t, ctx, "ada@example.com")
	do(t, ctx, "open analytics", chromedp.Navigate(s.URL+"/projects/"+p.ID+"/analytics"), chromedp.WaitVisible(chromedp.ID("visitors-chart")))
	chart, err := chromedp.Run(ctx, chromedp.Evaluate[[]chartBar](readChart))
	if err != nil || len(chart) != 30 {
		t.Fatalf("the default chart has %d bars (%v)", len(chart), err)
	}
	says := func(what string, b chartBar) {
		t.Helper()
		got, err := chromedp.Run(ctx, chromedp.Evaluate[tip](readTip))
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{b.Label, "Unique visitors " + num(b.Total), "Human " + num(b.Human), "AI agents " + num(b.AI)} {
			if !got.Shown || !strings.Contains(got.Text, want) {
				t.Errorf("%s: the tooltip (shown %v) reads %q, want it to say %q", what, got.Shown, got.Text, want)
			}
		}
	}
	hidden := func(what string) {
		t.Helper()
		if got, _ := chromedp.Run(ctx, chromedp.Evaluate[tip](readTip)); got.Shown {
			t.Errorf("%s: the tooltip still shows %q", what, got.Text)
		}
	}

	// Hover: the mouse over the 10th bar.
	type point struct{ X, Y float64 }
	at, err := chromedp.Run(ctx, chromedp.Evaluate[point](`(() => { const hit = document.querySelectorAll("#visitors-chart g.bucket .hit")[9];
		hit.scrollIntoView({block: "center"}); const r = hit.getBoundingClientRect();
		return {X: r.left + r.width / 2, Y: r.top + r.height / 2}; })()`))
	if err != nil {
		t.Fatal(err)
	}
	do(t, ctx, "hover a bar", chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, at.X, at.Y))
	says("hover", chart[9])
	shoot(t, ctx, dir, "26-analytics-hover")
	do(t, ctx, "move away", chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, 5, 5))
	hidden("mouse gone")

	// Keyboard: from the Apply button, Tab reaches the chart's latest bar;
	// the arrows move between bars.
	do(t, ctx, "tab to the chart", chromedp.Focus(chromedp.CSS(`#range button[type=submit]`)), chromedp.KeyEvent(kb.Tab))
	if got, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.activeElement.dataset.start || document.activeElement.outerHTML.slice(0, 80)`)); got != chart[29].Start {
		t.Fatalf("Tab after Apply focuses %q, want the latest bar (%s)", got, chart[29].Start)
	}
	says("focus", chart[29])
	do(t, ctx, "left arrow twice", chromedp.KeyEvent(kb.ArrowLeft), chromedp.KeyEvent(kb.ArrowLeft))
	says("left arrow", chart[27])
	do(t, ctx, "home", chromedp.KeyEvent(kb.Home))
	says("Home", chart[0])
	shoot(t, ctx, dir, "27-analytics-keyboard")
	do(t, ctx, "escape", chromedp.KeyEvent(kb.Escape))
	hidden("Escape")

	// Tap on a phone: the numbers stay until a tap elsewhere.
	do(t, ctx, "phone", chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile, chromedp.EmulateTouch),
		chromedp.Navigate(s.URL+"/projects/"+p.ID+"/analytics"), chromedp.WaitVisible(chromedp.ID("visitors-chart")))
	do(t, ctx, "tap a bar", chromedp.Tap(chromedp.CSS(`#visitors-chart g.bucket:nth-child(20) rect.hit`)))
	says("tap", chart[19])
	shoot(t, ctx, dir, "28-analytics-phone-tap")
	do(t, ctx, "tap elsewhere", chromedp.Tap(chromedp.CSS(`#chart-heading`)))
	hidden("tap elsewhere")
	do(t, ctx, "desktop again", chromedp.EmulateViewport(1280, 800))

	// The totals: change against the 30 days before, and the overlap said plainly.
	end := time.Now().UTC().Truncate(24*time.Hour).AddDate(0, 0, 1)
	var now, before analytics.Visitors
	s.export(t, p.ID, key, "visitors", url.Values{"dateFrom": {end.AddDate(0, 0, -30).Format(time.DateOnly)}, "dateTo": {end.Format(time.DateOnly)}}, &now)
	s.export(t, p.ID, key, "visitors", url.Values{"dateFrom": {end.AddDate(0, 0, -60).Format(time.DateOnly)}, "dateTo": {end.AddDate(0, 0, -30).Format(time.DateOnly)}}, &before)
	do(t, ctx, "reload", chromedp.Navigate(s.URL+"/projects/"+p.ID+"/analytics"), chromedp.WaitVisible(chromedp.ID("total-change")))
	pct := (float64(now.Totals.Total) - float64(before.Totals.Total)) * 100 / float64(before.Totals.Total)
	arrow := "▲"
	if pct < 0 {
		arrow, pct = "▼", -pct
	}
	if got, want := text(t, ctx, "#total-change"), fmt.Sprintf("%s %.0f%% vs the previous 30 days", arrow, pct); !strings.Contains(got, want) {
		t.Errorf("the total's change reads %q, want %q (%d now, %d before)", got, want, now.Totals.Total, before.Totals.Total)
	}
	both := now.Totals.Human + now.Totals.AI - now.Totals.Total
	if got := text(t, ctx, "#overlap-note"); both <= 0 || !strings.Contains(got, "One visitor can be both") || !strings.Contains(got, "("+"here "+num(both)+" visitors are both).") {
		t.Errorf("the overlap note reads %q (%d visitors are both)", got, both)
	}
	shoot(t, ctx, dir, "29-analytics-totals")
}

// num is how the page writes a count.
func num(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// signUpInBrowser signs email (password "correct horse battery") up through
// the sign-up form, which leads to the projects page.
func (s *testServer) signUpInBrowser(t *testing.T, ctx context.Context, email string) {
	t.Helper()
	do(t, ctx, "sign up",
		chromedp.Navigate(s.URL+"/signup"),
		chromedp.SendKeys(chromedp.CSS(`input[name=email]`), email),
		chromedp.SendKeys(chromedp.CSS(`input[name=password]`), "correct horse battery"),
		chromedp.Click(chromedp.CSS(`form[action="/signup"] button`)),
		chromedp.WaitVisible(chromedp.CSS(`form[action="/projects"]`)),
	)
}

// createProjectInBrowser creates a project through the projects page's
// form and returns its id, as its settings page shows it.
func createProjectInBrowser(t *testing.T, ctx context.Context, name, repository string) string {
	t.Helper()
	do(t, ctx, "create a project",
		chromedp.SendKeys(chromedp.CSS(`form[action="/projects"] input[name=name]`), name),
		chromedp.SendKeys(chromedp.CSS(`form[action="/projects"] input[name=repository]`), repository),
		chromedp.Click(chromedp.CSS(`form[action="/projects"] button`)),
		chromedp.WaitVisible(chromedp.ID("project-id")),
	)
	return text(t, ctx, "#project-id")
}

// signInBrowser signs a user made with signUp (password "correct horse") in
// through the login form.
func (s *testServer) signInBrowser(t *testing.T, ctx context.Context, email string) {
	t.Helper()
	do(t, ctx, "sign in",
		chromedp.Navigate(s.URL+"/login"),
		chromedp.SendKeys(chromedp.CSS(`input[name=email]`), email),
		chromedp.SendKeys(chromedp.CSS(`input[name=password]`), "correct horse"),
		chromedp.Click(chromedp.CSS(`form[action="/login"] button`)),
		chromedp.WaitVisible(chromedp.CSS(`form[action="/projects"]`)),
	)
}
