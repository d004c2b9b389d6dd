package dashboard

import (
	"errors"
	"net/http"

	"github.com/folio-docs/folio/model"
)

// JobMerge merges a job's branch into its ref — in the local repository,
// or its pull request on GitHub — and archives the job, as POST .../merge does.
func (d *Dashboard) JobMerge(w http.ResponseWriter, r *http.Request) {
	p, j, ok := d.memberJob(w, r)
	if !ok {
		return
	}
	merged, err := d.jobs.Merge(r.Context(), p.ID, j.ID)
	switch {
	case errors.Is(err, model.ErrJobBusy):
		d.renderChanges(w, r, http.StatusConflict, p, j, "The agent is still working on this branch; merge once its turn ends.")
		return
	case errors.Is(err, model.ErrJobArchived):
		d.renderChanges(w, r, http.StatusConflict, p, j, "This job is archived; its branch is not merged from here.")
		return
	case errors.Is(err, model.ErrNothingToMerge):
		d.renderChanges(w, r, http.StatusConflict, p, j, "There is nothing to merge: the branch brings no change to "+j.Ref+".")
		return
	case errors.Is(err, model.ErrMergeConflict):
		d.renderChanges(w, r, http.StatusConflict, p, j, "This branch does not merge cleanly into "+j.Ref+" (both changed the same lines, or the code host refused). "+
			"Nothing was merged. Send the agent a follow-up to redo the change on top of "+j.Ref+", or merge it by hand.")
		return
	case err != nil:
		d.pageError(w, r, http.StatusInternalServerError, err)
		return
	}
	d.flash(r, "Merged "+merged.Branch+" into "+merged.Ref+" (now at "+merged.MergeCommit[:min(10, len(merged.MergeCommit))]+"). The job is archived.")
	redirect(w, r, "/projects/"+p.ID+"/jobs/"+j.ID+"/changes")
}
