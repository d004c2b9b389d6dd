package dashboard

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
	v := components.AnalyticsView{ProjectID: p.ID, BaseURL: d.baseURL, Offset: page.Offset, Limit: page.Limit}
	shell := d.projectShell(r, p, components.TabAnalytics, "Analytics")
	if problems != nil {
		v.Range = components.NewAnalyticsRange(get, nil, now)
		v.Invalid = problems[0].Field
		for _, pr := range problems {
			v.Errors = append(v.Errors, pr.Message)
		}
		d.render(w, r, http.StatusBadRequest, components.AnalyticsPage(shell, v))
		return
	}
	v.Range = components.NewAnalyticsRange(get, &rng, now)
	q := rng.Query
	q.Limit, q.Offset = page.Limit, page.Offset
	rep, err := d.analytics.Report(r.Context(), p.ID, q, rng.Unit, !rng.All)
	if err != nil {
		d.pageError(w, r, http.StatusInternalServerError, err)
		return
	}
	v.Visitors, v.Views, v.Buckets, v.Previous, v.NoTraffic = rep.Visitors, rep.Views, rep.Buckets, rep.Previous, !rep.HasTraffic
	if r.Header.Get("HX-Target") == "pages" {
		d.render(w, r, http.StatusOK, components.AnalyticsTable(v)) // the pager swaps the table alone
		return
	}
	d.render(w, r, http.StatusOK, components.AnalyticsPage(shell, v))
}
