package dashboard

import (
	"errors"
	"net/http"
	"net/url"
	"time"

	"github.com/gorilla/mux"

	"github.com/folio-docs/folio/components"
	"github.com/folio-docs/folio/model"
)

// FeedbackStatus sets one feedback's review status. htmx gets the item as
// it now is (and the page's status line), a plain form post the list
// again, its filters kept, with a notice.
func (d *Dashboard) FeedbackStatus(w http.ResponseWriter, r *http.Request) {
	p, ok := d.memberProject(w, r)
	if !ok {
		return
	}
	f, err := d.feedback.SetFeedbackStatus(r.Context(), p.ID, mux.Vars(r)["feedbackId"], model.FeedbackStatus(r.PostFormValue("status")))
	var fields model.FieldErrors
	switch {
	case errors.Is(err, model.ErrNotFound):
		d.pageError(w, r, http.StatusNotFound, nil)
		return
	case errors.As(err, &fields):
		d.pageError(w, r, http.StatusBadRequest, nil)
		return
	case err != nil:
		d.pageError(w, r, http.StatusInternalServerError, err)
		return
	}
	// back is the list's filters as the page sent them; only a query is kept.
	back, _ := url.ParseQuery(r.PostFormValue("back"))
	if r.Header.Get("HX-Request") == "true" {
		d.render(w, r, http.StatusOK, components.FeedbackSaved(p.ID, f, time.Now(), back.Encode()))
		return
	}
	d.flash(r, "Feedback on "+f.Path+" is now "+f.Status.Label()+".")
	to := "/projects/" + p.ID + "/feedback"
	if q := back.Encode(); q != "" {
		to += "?" + q
	}
	redirect(w, r, to+"#feedback-"+f.ID)
}
