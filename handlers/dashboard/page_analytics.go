package dashboard

import (
	"context"
	"net/http"
	"net/url"
	"time"

	"github.com/a-h/templ"

	"github.com/folio-docs/folio/analytics"
	"github.com/folio-docs/folio/components"
)

// AnalyticsReporter counts a project's traffic for the analytics page
// (analytics.Service).
type AnalyticsReporter interface {
	Report(ctx context.Context, projectID string, q analytics.Query, u analytics.Unit, previous bool) (analytics.Report, error)
	FirstView(ctx context.Context, projectID string) (time.Time, bool, error)
	Agents(ctx context.Context, projectID string, q analytics.Query, path string) (analytics.Agents, error)
	AgentPages(ctx context.Context, projectID string, q analytics.Query, name string, c analytics.Class) (analytics.AgentPages, error)
	Channels(ctx context.Context, projectID string, q analytics.Query) (analytics.ChannelReport, error)
}

// analyticsPageRows is the table's page size when the link names none.
const analyticsPageRows = 25

// analyticsPanelAgents is how many agents the AI agents panel lists.
const analyticsPanelAgents = 10

// Analytics shows a project's visitors over a range of whole days given as
// people read it (from and to both included, or range=all), so a range is
// a link; the table pages with the export's limit and offset. A bad range
// is explained for people with a 400, never clamped.
func (d *Dashboard) Analytics(w http.ResponseWriter, r *http.Request) {
	p, ok := d.memberProject(w, r)
	if !ok {
		return
	}
	get, now := r.URL.Query().Get, time.Now()
	rng, problems, err := analytics.ParsePageRange(get, now, func() (time.Time, bool, error) {
		return d.analytics.FirstView(r.Context(), p.ID)
	})
	if err != nil {
		d.pageError(w, r, http.StatusInternalServerError, err)
		return
	}
	page, pageProblems := analytics.ParseQuery(func(k string) string {
		if k == "limit" || k == "offset" {
			return get(k)
		}
		return ""
	})
	problems = append(problems, pageProblems...)
	if get("limit") == "" {
		page.Limit = analyticsPageRows
	}
	// agent (with its class) narrows the pages table to that agent's.
	agent, class := get("agent"), analytics.Human
	if agent != "" {
		c, ok := analytics.ParseClass(get("class"))
		if !ok || c == analytics.Human {
			problems.Add("class", "The agent’s class “%s” is not one of ai, aiSearch, aiTraining or bots. Pick the agent in the AI agents panel.", get("class"))
		}
		class = c
	}
	v := components.AnalyticsView{ProjectID: p.ID, BaseURL: d.baseURL, Drains: drainURLs(d.baseURL, p.ID), Offset: page.Offset, Limit: page.Limit}
	shell := d.projectShell(r, p, components.TabAnalytics, "Analytics")
	if problems != nil {
		v.Range = AnalyticsRange(get, nil, now)
		v.Invalid = problems[0].Field
		for _, pr := range problems {
			v.Errors = append(v.Errors, pr.Message)
		}
		d.render(w, r, http.StatusBadRequest, components.AnalyticsPage(shell, v))
		return
	}
	v.Range = AnalyticsRange(get, &rng, now)
	v.Channels = components.ChannelsView{URL: "/projects/" + p.ID + "/analytics?" + v.Range.Parameters.Encode()}
	if r.Header.Get("HX-Target") == "channels" {
		d.analyticsChannels(w, r, p.ID, rng.Query, v.Channels.URL)
		return
	}
	q := rng.Query
	q.Limit, q.Offset = page.Limit, page.Offset
	rep, err := d.analytics.Report(r.Context(), p.ID, q, rng.Unit, !rng.All)
	if err != nil {
		d.pageError(w, r, http.StatusInternalServerError, err)
		return
	}
	v = ShowReport(v, rep)
	if rep.HasTraffic {
		all := rng.Query
		all.Limit = analytics.MaxLimit
		agents, err := d.analytics.Agents(r.Context(), p.ID, all, "")
		if err != nil {
			d.pageError(w, r, http.StatusInternalServerError, err)
			return
		}
		v = ShowAgents(v, agents, agent, class)
	}
	if agent != "" {
		pages, err := d.analytics.AgentPages(r.Context(), p.ID, q, agent, class)
		if err != nil {
			d.pageError(w, r, http.StatusInternalServerError, err)
			return
		}
		v = ShowAgentPages(v, agent, class, pages)
	}
	if r.Header.Get("HX-Target") == "pages" {
		// The pager swaps the table alone; a choice of agent, the table
		// and the agents panel (hx-select-oob).
		d.render(w, r, http.StatusOK, templ.Join(components.AnalyticsTable(v), components.AnalyticsAgents(v)))
		return
	}
	d.render(w, r, http.StatusOK, components.AnalyticsPage(shell, v))
}

// ShowReport puts what a report counted on the analytics page's view.
// Exported, as AnalyticsRange is, for analytics' scale benchmark, which
// builds the page as this handler does.
func ShowReport(v components.AnalyticsView, rep analytics.Report) components.AnalyticsView {
	v.Totals, v.HasMore, v.NoTraffic = components.VisitorCounts(rep.Visitors.Totals), rep.Visitors.HasMore, !rep.HasTraffic
	v.Rows = make([]components.PathVisitors, len(rep.Visitors.Visitors))
	for i, r := range rep.Visitors.Visitors {
		v.Rows[i] = components.PathVisitors{Path: r.Path, VisitorCounts: components.VisitorCounts(r.VisitorCounts)}
	}
	w := rep.Views
	v.Views = components.ViewCounts{Human: w.Human, AI: w.AI, AISearch: w.AISearch, AITraining: w.AITraining, Bots: w.Bots, All: w.All()}
	v.Buckets = make([]components.Bucket, len(rep.Buckets))
	for i, b := range rep.Buckets {
		v.Buckets[i] = components.Bucket{Start: b.Start, From: b.From, To: b.To, VisitorCounts: components.VisitorCounts(b.VisitorCounts)}
	}
	if rep.Previous != nil {
		p := components.VisitorCounts(*rep.Previous)
		v.Previous = &p
	}
	return v
}

// ShowAgents puts the agents of the range on the analytics page's view:
// the first of them in the AI agents panel, the one named agent (of
// class c) marked as the one the pages table shows.
func ShowAgents(v components.AnalyticsView, a analytics.Agents, agent string, c analytics.Class) components.AnalyticsView {
	rows := a.Agents
	if len(rows) > analyticsPanelAgents {
		v.AgentsMore = len(rows) - analyticsPanelAgents
		rows = rows[:analyticsPanelAgents]
	}
	v.Agents = make([]components.AgentRow, len(rows))
	for i, r := range rows {
		op := ""
		if r.Operator != nil {
			op = *r.Operator
		}
		v.Agents[i] = components.AgentRow{Name: r.Name, Operator: op, Class: r.Class, Views: r.Views, Visitors: r.Visitors,
			Active: agent == r.Name && c.String() == r.Class}
	}
	return v
}

// ShowAgentPages narrows the page's table to the pages agent (of class c)
// read.
func ShowAgentPages(v components.AnalyticsView, agent string, c analytics.Class, p analytics.AgentPages) components.AnalyticsView {
	v.Agent = &components.AgentFilter{Name: agent, Class: c.String()}
	v.Rows, v.HasMore = nil, p.HasMore
	v.AgentRows = make([]components.AgentPage, len(p.Pages))
	for i, r := range p.Pages {
		v.AgentRows[i] = components.AgentPage{Path: r.Path, Views: r.Views, Visitors: r.Visitors}
	}
	return v
}

// AnalyticsRange is the range picker's state: given holds the parameters
// as asked (shown back as typed when they were wrong), r the range as
// analytics.ParsePageRange read it (nil when it was wrong).
func AnalyticsRange(given func(string) string, r *analytics.PageRange, now time.Time) components.AnalyticsRange {
	out := components.AnalyticsRange{From: given("from"), To: given("to"), Parameters: url.Values{}}
	if r != nil {
		out.First, out.Last, out.Days, out.All = r.First, r.Last, r.Days(), r.All
		out.Unit = components.Unit(r.Unit.String()) // day, week or month in both
		out.From, out.To = inputDate(r.First), inputDate(r.Last)
		if r.All {
			out.Parameters.Set("range", "all")
		} else {
			out.Parameters.Set("from", out.From)
			out.Parameters.Set("to", out.To)
		}
	}
	y, m, d := now.UTC().Date()
	today := time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
	for _, p := range []struct {
		label string
		first time.Time
	}{
		{"7 days", today.AddDate(0, 0, -6)}, {"30 days", today.AddDate(0, 0, -29)},
		{"90 days", today.AddDate(0, 0, -89)}, {"12 months", today.AddDate(-1, 0, 1)},
	} {
		query := url.Values{"from": {inputDate(p.first)}, "to": {inputDate(today)}}.Encode()
		active := r != nil && !r.All && r.First.Equal(p.first) && r.Last.Equal(today)
		out.Presets = append(out.Presets, components.RangePreset{Label: p.label, Query: query, Active: active})
	}
	out.Presets = append(out.Presets, components.RangePreset{Label: "All time", Query: "range=all", Active: r != nil && r.All})
	return out
}

// inputDate is a bound as a date input shows it.
func inputDate(t time.Time) string { return t.UTC().Format(time.DateOnly) }
