package handlers

import (
	"errors"
	"net/http"

	"github.com/folio-docs/folio/jobs"
)

// JobMerge merges a job's branch into its ref in the local repository and
// archives the job, as merging a pull request on GitHub does.
func (d *Dashboard) JobMerge(w http.ResponseWriter, r *http.Request) {
	p, j, ok := d.memberJob(w, r)
	if !ok {
		return
	}
	_, res, err := d.jobs.MergeLocal(r.Context(), p.ID, j.ID)
	switch {
	case errors.Is(err, jobs.ErrNotLocal):
		d.renderChanges(w, r, http.StatusConflict, p, j, "This job's repository is on GitHub: merge its pull request there.")
		return
	case errors.Is(err, jobs.ErrBusy):
		d.renderChanges(w, r, http.StatusConflict, p, j, "The agent is still working on this branch; merge once its turn ends.")
		return
	case errors.Is(err, jobs.ErrArchived):
		d.renderChanges(w, r, http.StatusConflict, p, j, "This job is archived; its branch is not merged from here.")
		return
	case errors.Is(err, jobs.ErrNothingPushed):
		d.renderChanges(w, r, http.StatusConflict, p, j, "The agent has not pushed a branch: there is nothing to merge.")
		return
	case errors.Is(err, jobs.ErrMergeConflict):
		d.renderChanges(w, r, http.StatusConflict, p, j, "This branch conflicts with "+j.Ref+": both changed the same lines since the job started. "+
			"Nothing was merged. Send the agent a follow-up to redo the change on top of "+j.Ref+", or merge it by hand.")
		return
	case err != nil:
		d.pageError(w, r, http.StatusInternalServerError, err)
		return
	}
	how := "merge commit"
	switch {
	case res.AlreadyMerged:
		how = "already merged; now at"
	case res.FastForward:
		how = "fast-forward to"
	}
	d.flash(r, "Merged "+j.Branch+" into "+j.Ref+" ("+how+" "+res.Commit[:min(10, len(res.Commit))]+"). The job is archived.")
	redirect(w, r, "/projects/"+p.ID+"/jobs/"+j.ID+"/changes")
}
