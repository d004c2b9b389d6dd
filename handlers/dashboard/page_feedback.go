package dashboard

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/folio-docs/folio/analytics"
	"github.com/folio-docs/folio/components"
	"github.com/folio-docs/folio/model"
)

// FeedbackReview lists a project's feedback and changes its review status
// (analytics.Service, which the feedback exports read too).
type FeedbackReview interface {
	FeedbackList(ctx context.Context, projectID string, q analytics.FeedbackQuery) ([]model.Feedback, *string, error)
	FeedbackStatusCounts(ctx context.Context, projectID string, q analytics.FeedbackQuery) (map[model.FeedbackStatus]int, error)
	SetFeedbackStatus(ctx context.Context, projectID, id string, status model.FeedbackStatus) (model.Feedback, error)
}

// Feedback lists a project's feedback, newest first, filtered by status
// (one, or a comma-separated list) and source, a page at a time; filters
// that are not ones are explained with a 400, never dropped.
func (d *Dashboard) Feedback(w http.ResponseWriter, r *http.Request) {
	p, ok := d.memberProject(w, r)
	if !ok {
		return
	}
	get := r.URL.Query().Get
	q, problems := analytics.ParseFeedbackQuery(func(k string) string {
		switch k {
		case "status", "source", "cursor":
			return get(k)
		case "limit":
			return strconv.Itoa(components.FeedbackPerPage)
		}
		return ""
	})
	v := components.FeedbackView{ProjectID: p.ID, Status: get("status"), Source: get("source"), Paged: get("cursor") != "", Now: time.Now(),
		Snippet: `<script defer src="` + strings.TrimSuffix(d.baseURL, "/") + `/js/folio.js" data-project="` + p.ID + `" data-feedback></script>`}
	shell := d.projectShell(r, p, components.TabFeedback, "Feedback")
	if problems != nil {
		for _, pr := range problems {
			v.Errors = append(v.Errors, pr.Message)
		}
		v.Counts = map[model.FeedbackStatus]int{}
		d.render(w, r, http.StatusBadRequest, components.FeedbackPage(shell, v))
		return
	}
	list, next, err := d.feedback.FeedbackList(r.Context(), p.ID, q)
	if err == nil {
		v.Counts, err = d.feedback.FeedbackStatusCounts(r.Context(), p.ID, q)
	}
	if err != nil {
		d.pageError(w, r, http.StatusInternalServerError, err)
		return
	}
	v.Items = list
	if next != nil {
		v.Next = *next
	}
	d.render(w, r, http.StatusOK, components.FeedbackPage(shell, v))
}
