package main

import (
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/folio-docs/folio/analytics"
)

// panelAgent is a row of the AI agents panel as the browser shows it.
type panelAgent struct {
	Name     string `json:"name"`
	Operator string `json:"operator"`
	Class    string `json:"class"`
	Visitors string `json:"visitors"`
	Views    string `json:"views"`
	Current  bool   `json:"current"`
	Visible  bool   `json:"visible"` // its numbers take room on screen, no hover needed
}

const readPanel = `Array.from(document.querySelectorAll("#agents-table tbody tr")).map(tr => {
	const cell = l => tr.querySelector('td[data-label="' + l + '"]');
	const a = cell("Agent").querySelector("a");
	const n = cell("Visitors").querySelector("strong");
	return {name: a.firstChild.textContent.trim(), operator: cell("Operator").innerText.trim(), class: cell("Class").innerText.trim(),
		visitors: cell("Visitors").innerText.trim(), views: cell("Views").innerText.trim(),
		current: a.getAttribute("aria-current") === "true", visible: n.offsetWidth > 0 && n.offsetHeight > 0};
})`

// The AI agents panel in Chromium: the agents export of the range with
// each agent's operator, class, visitors and views on screen; choosing an
// agent (by mouse, and by keyboard) narrows the pages table to its pages
// without reloading, puts the choice in the address bar and marks it in
// the panel; "Show every page" goes back. axe-core finds no serious or
// critical violation, at desktop and phone widths, narrowed or not.
func TestAnalyticsAgentsInBrowser(t *testing.T) {
	t.Parallel()
	s, _, p, key := ownerWithTraffic(t, "ada@example.com", 6000, 70)
	ctx := newBrowser(t)
	dir := screenshotDir(t)
	s.signInBrowser(t, ctx, "ada@example.com")
	analyticsURL := s.URL + "/projects/" + p.ID + "/analytics"
	do(t, ctx, "open analytics", chromedp.Navigate(analyticsURL), chromedp.WaitVisible(chromedp.ID("agents-table")))

	end := time.Now().UTC().Truncate(24*time.Hour).AddDate(0, 0, 1)
	rng := url.Values{"dateFrom": {end.AddDate(0, 0, -30).Format(time.DateOnly)}, "dateTo": {end.Format(time.DateOnly)}}
	var agents analytics.Agents
	s.export(t, p.ID, key, "agents", rng, &agents)
	panel, err := chromedp.Run(ctx, chromedp.Evaluate[[]panelAgent](readPanel))
	if err != nil {
		t.Fatal(err)
	}
	if len(panel) != min(10, len(agents.Agents)) || len(panel) < 5 {
		t.Fatalf("the panel shows %d agents, the export has %d", len(panel), len(agents.Agents))
	}
	labels := map[string]string{"ai": "AI agent", "aiSearch": "AI search", "aiTraining": "AI training", "bots": "Bot"}
	for i, a := range panel {
		want := agents.Agents[i]
		op := "unknown"
		if want.Operator != nil {
			op = *want.Operator
		}
		if a.Name != want.Name || a.Operator != op || a.Class != labels[want.Class] || a.Visitors != num(want.Visitors) || a.Views != num(want.Views) || a.Current || !a.Visible {
			t.Errorf("panel row %d reads %+v; the export's %+v", i, a, want)
		}
	}
	axeCheck(t, ctx, "analytics with the agents panel")
	shoot(t, ctx, dir, "30-analytics-agents")

	// Choose the second agent with the mouse: the table and the panel
	// change, the page does not reload.
	second := agents.Agents[1]
	do(t, ctx, "choose an agent",
		chromedp.Evaluate[chromedp.Void](`window.folioMarker = "kept"`),
		chromedp.Click(chromedp.ID("agent-1")),
		chromedp.WaitVisible(chromedp.CSS(`#pages-table[data-agent]`)),
	)
	if got := text(t, ctx, "#pages-title"); got != "Pages read by "+second.Name {
		t.Errorf("after choosing %s the table is titled %q", second.Name, got)
	}
	if marker, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`window.folioMarker || "reloaded"`)); marker != "kept" {
		t.Error("choosing an agent reloaded the whole page")
	}
	if loc, _ := chromedp.Run(ctx, chromedp.Location()); !strings.Contains(loc, "agent="+url.QueryEscape(second.Name)) || !strings.Contains(loc, "class="+second.Class) {
		t.Errorf("the choice is not in the address bar: %s", loc)
	}
	panel, _ = chromedp.Run(ctx, chromedp.Evaluate[[]panelAgent](readPanel))
	for i, a := range panel {
		if a.Current != (i == 1) {
			t.Errorf("after choosing %s, panel row %d (%s) is marked chosen: %v", second.Name, i, a.Name, a.Current)
		}
	}
	// The first page of the table is the agents export of that page.
	first := text(t, ctx, "#pages-table tbody tr:first-child td.path")
	var one analytics.Agents
	s.export(t, p.ID, key, "agents", url.Values{"dateFrom": rng["dateFrom"], "dateTo": rng["dateTo"], "path": {first}, "limit": {"250"}}, &one)
	found := false
	for _, a := range one.Agents {
		if a.Name == second.Name && a.Class == second.Class {
			found = true
			got := [2]string{text(t, ctx, "#pages-table tbody tr:first-child td[data-label=Visitors]"), text(t, ctx, "#pages-table tbody tr:first-child td[data-label=Views]")}
			if got != [2]string{num(a.Visitors), num(a.Views)} {
				t.Errorf("%s on %s reads %v; the agents export of that page: %+v", second.Name, first, got, a)
			}
		}
	}
	if !found {
		t.Errorf("the table's first page %s has no view by %s in the export", first, second.Name)
	}
	axeCheck(t, ctx, "analytics narrowed to an agent")
	shoot(t, ctx, dir, "31-analytics-agent-pages")

	// By keyboard: focus the first agent's link and press Enter.
	do(t, ctx, "keyboard choice",
		chromedp.Focus(chromedp.ID("agent-0")), chromedp.KeyEvent(kb.Enter),
		chromedp.WaitVisible(chromedp.CSS(`#pages-table[data-agent="`+agents.Agents[0].Name+`"]`)),
	)
	if got, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.activeElement.id`)); got != "agent-0" {
		t.Errorf("after choosing by keyboard the focus is on %q, want the agent's link", got)
	}

	// Back to every page.
	do(t, ctx, "every page", chromedp.Click(chromedp.ID("pages-all")), chromedp.WaitVisible(chromedp.CSS(`#pages-table:not([data-agent])`)))
	if got := text(t, ctx, "#pages-title"); got != "Pages" {
		t.Errorf("after Show every page the table is titled %q", got)
	}
	if panel, _ = chromedp.Run(ctx, chromedp.Evaluate[[]panelAgent](readPanel)); panel[0].Current {
		t.Error("after Show every page an agent is still marked chosen")
	}

	// On a phone: the panel's numbers are on screen, the page no wider.
	do(t, ctx, "phone", chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile), chromedp.Navigate(analyticsURL+"?"+url.Values{"agent": {second.Name}, "class": {second.Class}}.Encode()),
		chromedp.WaitVisible(chromedp.ID("agents-table")))
	panel, _ = chromedp.Run(ctx, chromedp.Evaluate[[]panelAgent](readPanel))
	for i, a := range panel {
		if !a.Visible {
			t.Errorf("on a phone panel row %d hides its numbers", i)
		}
	}
	if w, _ := chromedp.Run(ctx, chromedp.Evaluate[int](`document.documentElement.scrollWidth`)); w > 390 {
		t.Errorf("on a phone the page is %dpx wide, wider than the screen", w)
	}
	axeCheck(t, ctx, "phone analytics narrowed to an agent")
	shoot(t, ctx, dir, "32-analytics-agents-phone")
	do(t, ctx, "desktop again", chromedp.EmulateViewport(1280, 900))
}
