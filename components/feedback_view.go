package components

import (
	"net/url"
	"time"

	"github.com/a-h/templ"

	"github.com/folio-docs/folio/model"
)

// TabFeedback is the project's Feedback tab.
const TabFeedback = "feedback"

// FeedbackPerPage is how many feedback the Feedback page lists at once.
const FeedbackPerPage = 25

// FeedbackView is a project's Feedback page: readers' feedback, newest
// first, filtered by status and source, each with its review status to
// change; Next is the older page's cursor ("" on the last).
type FeedbackView struct {
	ProjectID string
	Items     []model.Feedback
	Status    string // the status filter: "" all, or a comma-separated list
	Source    string // the source filter: "" all
	Counts    map[model.FeedbackStatus]int
	Next      string
	Paged     bool // a later page: the list does not begin with the newest
	Errors    []string
	Snippet   string // the tracker's script tag with the widget, for the empty page
	Now       time.Time
}

// FeedbackSourceLabels name the sources as the page shows them.
var FeedbackSourceLabels = []struct {
	Value model.FeedbackSource
	Label string
}{
	{model.FeedbackContextual, "Page, with a comment"},
	{model.FeedbackThumbsOnly, "Page rating"},
	{model.FeedbackCodeSnippet, "Code snippet"},
	{model.FeedbackAgent, "AI agent"},
}

func sourceLabel(s model.FeedbackSource) string {
	for _, l := range FeedbackSourceLabels {
		if l.Value == s {
			return l.Label
		}
	}
	return string(s)
}

// total counts the feedback of every status.
func (v FeedbackView) total() int {
	n := 0
	for _, c := range v.Counts {
		n += c
	}
	return n
}

// url is the page with the given status filter and the view's source.
func (v FeedbackView) url(status string) string {
	q := url.Values{}
	if status != "" {
		q.Set("status", status)
	}
	if v.Source != "" {
		q.Set("source", v.Source)
	}
	u := "/projects/" + v.ProjectID + "/feedback"
	if len(q) > 0 {
		u += "?" + q.Encode()
	}
	return u
}

// nextURL is the next page's address, its filters kept.
func (v FeedbackView) nextURL() string {
	q := url.Values{"cursor": {v.Next}}
	if v.Status != "" {
		q.Set("status", v.Status)
	}
	if v.Source != "" {
		q.Set("source", v.Source)
	}
	return "/projects/" + v.ProjectID + "/feedback?" + q.Encode()
}

// currentPage marks the link of the page shown (aria-current="page").
func currentPage(on bool) templ.Attributes {
	if on {
		return templ.Attributes{"aria-current": "page"}
	}
	return nil
}

// rating is how the reader rated the page (or snippet), in words.
func rating(f model.Feedback) (string, string) {
	switch {
	case f.Helpful == nil:
		return "No rating", "rating-none"
	case *f.Helpful:
		return "Helpful", "rating-up"
	default:
		return "Not helpful", "rating-down"
	}
}

// filterQuery is the page's filters as a query, for a form to come back to.
func (v FeedbackView) filterQuery() string {
	q := url.Values{}
	if v.Status != "" {
		q.Set("status", v.Status)
	}
	if v.Source != "" {
		q.Set("source", v.Source)
	}
	return q.Encode()
}
