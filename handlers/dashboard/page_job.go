package dashboard

import (
	"errors"
	"fmt"
	"math"
	"net/http"
	"strings"
	"time"

	"github.com/gorilla/mux"

	"github.com/folio-docs/folio/components"
	"github.com/folio-docs/folio/handlers/httpx"
	"github.com/folio-docs/folio/jobs"
	"github.com/folio-docs/folio/model"
)

// Job shows one job: details, conversation and the follow-up box. Asked by
// its own live part (htmx polling while the job runs), it answers only that.
func (d *Dashboard) Job(w http.ResponseWriter, r *http.Request) {
	p, j, ok := d.memberJob(w, r)
	if !ok {
		return
	}
	d.renderJob(w, r, http.StatusOK, p, j, components.JobView{FollowUp: keptField(r.Context(), "prompt")})
}

func (d *Dashboard) renderJob(w http.ResponseWriter, r *http.Request, status int, p model.Project, j model.Job, v components.JobView) {
	ms, err := d.jobs.Messages(r.Context(), p.ID, j.ID)
	if err != nil {
		d.pageError(w, r, http.StatusInternalServerError, err)
		return
	}
	v = showJob(v, p.ID, j, ms, time.Now())
	if r.Header.Get("HX-Target") == "job-live" {
		d.render(w, r, status, components.JobLive(v))
		return
	}
	d.render(w, r, status, components.JobPage(d.projectShell(r, p, components.TabJobs, "Job"), v))
}

// JobEvents is the job page's live feed: the job's event stream, as the
// API serves it, for a member of the project. The page says in ?after=
// where it stands; a browser that reconnects sends Last-Event-ID.
func (d *Dashboard) JobEvents(w http.ResponseWriter, r *http.Request) {
	p, ok := d.memberProject(w, r)
	if !ok {
		return
	}
	after, ok := jobs.ParseEventCursor(r.Header.Get("Last-Event-ID"))
	if !ok {
		after, _ = jobs.ParseEventCursor(r.URL.Query().Get("after"))
	}
	httpx.StreamJobEvents(w, r, d.jobs, d.eventKeepAlive, p.ID, mux.Vars(r)["jobId"], after, func(w http.ResponseWriter, r *http.Request, err error) {
		if errors.Is(err, model.ErrNotFound) {
			d.pageError(w, r, http.StatusNotFound, nil)
			return
		}
		d.pageError(w, r, http.StatusInternalServerError, err)
	})
}

// refuseJobForm answers a job page's form the domain refused: the page
// again, as the job now is, with why (and the follow-up's text kept).
func (d *Dashboard) refuseJobForm(w http.ResponseWriter, r *http.Request, p model.Project, j model.Job, followUp string, err error) {
	status, msg := jobFormError(err)
	if status == http.StatusInternalServerError {
		d.pageError(w, r, status, err)
		return
	}
	if now, err := d.jobs.Get(r.Context(), p.ID, j.ID); err == nil {
		j = now // the refusal may be news, such as the job having ended
	}
	d.renderJob(w, r, status, p, j, components.JobView{FollowUp: followUp, Error: msg})
}

// memberJob loads the project and the job in the path for a member of the
// project; anyone else, and a job of another project, gets 404.
func (d *Dashboard) memberJob(w http.ResponseWriter, r *http.Request) (model.Project, model.Job, bool) {
	p, ok := d.memberProject(w, r)
	if !ok {
		return model.Project{}, model.Job{}, false
	}
	j, err := d.jobs.Get(r.Context(), p.ID, mux.Vars(r)["jobId"])
	if errors.Is(err, model.ErrNotFound) {
		d.pageError(w, r, http.StatusNotFound, nil)
		return model.Project{}, model.Job{}, false
	}
	if err != nil {
		d.pageError(w, r, http.StatusInternalServerError, err)
		return model.Project{}, model.Job{}, false
	}
	return p, j, true
}

// jobFormError is a job form's answer when the jobs domain refused it
// (pageRefusal, in jobWords); 500 means the cause is for the log only.
func jobFormError(err error) (int, string) { return pageRefusal(err, jobWords) }

// jobWords says to people why the jobs domain refused a job form, or ""
// for a refusal the pages do not explain.
func jobWords(err error) string {
	var fields model.FieldErrors
	var limited *model.RateLimitedError
	switch {
	case errors.As(err, &fields) && fields.Of("prompt") != "":
		return "Write a prompt for the agent (up to " + thousands(jobs.MaxPromptLength) + " characters)."
	case errors.As(err, &limited):
		wait := time.Duration(max(1, math.Ceil(limited.Reset.Minutes()))) * time.Minute
		return fmt.Sprintf("Rate limit reached: this project may send %d of these an hour. Try again in %s.",
			limited.Limit, strings.TrimSuffix(wait.String(), "0s"))
	case errors.Is(err, model.ErrNotFound):
		return "This job no longer exists."
	case errors.Is(err, model.ErrJobArchived):
		return "This job is archived: it takes no more follow-ups."
	case errors.Is(err, model.ErrJobNotActive):
		return "This job is no longer running: there is nothing to cancel."
	case errors.Is(err, model.ErrIdempotencyConflict):
		return "This form was already sent with another prompt. Reload the page and try again."
	case errors.Is(err, model.ErrQueueUnavailable):
		return "The job queue is unavailable right now, so nothing was started. Try again in a moment."
	}
	return ""
}
