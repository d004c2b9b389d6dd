package dashboard

import (
	"context"
	"net/http"
	"net/url"
	"time"

	"github.com/folio-docs/folio/analytics"
	"github.com/folio-docs/folio/components"
)

// AnalyticsReporter counts a project's traffic for the analytics page
// (analytics.Service).
type AnalyticsReporter interface {
	Report(ctx context.Context, projectID string, q analytics.Query, u analytics.Unit, previous bool) (analytics.Report, error)
	FirstView(ctx context.Context, projectID string) (time.Time, bool, error)
}

// analyticsPageRows is the table's page size when the link names none.
const analyticsPageRows = 25

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
	q := rng.Query
	q.Limit, q.Offset = page.Limit, page.Offset
	rep, err := d.analytics.Report(r.Context(), p.ID, q, rng.Unit, !rng.All)
	if err != nil {
		d.pageError(w, r, http.StatusInternalServerError, err)
		return
	}
	v = ShowReport(v, rep)
	if r.Header.Get("HX-Target") == "pages" {
		d.render(w, r, http.StatusOK, components.AnalyticsTable(v)) // the pager swaps the table alone
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
