package handlers

import (
	"context"
	"net/http"
	"time"

	"github.com/folio-docs/folio/analytics"
	"github.com/folio-docs/folio/components"
)

// AnalyticsReporter counts a project's traffic for the analytics page
// (analytics.Service).
type AnalyticsReporter interface {
	Report(ctx context.Context, projectID string, q analytics.Query) (analytics.Report, error)
}

// analyticsPageRows is the table's page size when the link names none.
const analyticsPageRows = 25

// Analytics shows a project's visitors over a range given as the visitors
// export's parameters (dateFrom, dateTo, limit, offset), so a range is a
// link. Bad parameters get the export's messages and a 400, never a clamp.
func (d *Dashboard) Analytics(w http.ResponseWriter, r *http.Request) {
	p, ok := d.memberProject(w, r)
	if !ok {
		return
	}
	get, now := r.URL.Query().Get, time.Now()
	q, problems := analytics.ParseQuery(get)
	if problems == nil {
		q, problems = analytics.DayRange(q, now)
	}
	if get("limit") == "" {
		q.Limit = analyticsPageRows
	}
	v := components.AnalyticsView{ProjectID: p.ID, BaseURL: d.baseURL, Offset: q.Offset, Limit: q.Limit}
	shell := d.projectShell(r, p, components.TabAnalytics, "Analytics")
	if problems != nil {
		v.Range = components.NewAnalyticsRange(get, analytics.Query{}, now)
		for _, pr := range problems {
			v.Errors = append(v.Errors, pr.Message)
		}
		d.render(w, r, http.StatusBadRequest, components.AnalyticsPage(shell, v))
		return
	}
	v.Range = components.NewAnalyticsRange(get, q, now)
	rep, err := d.analytics.Report(r.Context(), p.ID, q)
	if err != nil {
		d.pageError(w, r, http.StatusInternalServerError, err)
		return
	}
	v.Visitors, v.Views, v.Days, v.NoTraffic = rep.Visitors, rep.Views, rep.Days, !rep.HasTraffic
	if r.Header.Get("HX-Target") == "pages" {
		d.render(w, r, http.StatusOK, components.AnalyticsTable(v)) // the pager swaps the table alone
		return
	}
	d.render(w, r, http.StatusOK, components.AnalyticsPage(shell, v))
}
