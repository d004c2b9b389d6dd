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
	if err != nil {
		status, msg := pageRefusal(err, func(err error) string { return mergeWords(err, j.Ref) })
		if status == http.StatusInternalServerError {
			d.pageError(w, r, status, err)
			return
		}
		d.renderChanges(w, r, status, p, j, msg)
		return
	}
	d.flash(r, "Merged "+merged.Branch+" into "+merged.Ref+" (now at "+merged.MergeCommit[:min(10, len(merged.MergeCommit))]+"). The job is archived.")
	redirect(w, r, "/projects/"+p.ID+"/jobs/"+j.ID+"/changes")
}

// mergeWords says to people why a merge into ref was refused, or "".
func mergeWords(err error, ref string) string {
	switch {
	case errors.Is(err, model.ErrJobBusy):
		return "The agent is still working on this branch; merge once its turn ends."
	case errors.Is(err, model.ErrJobArchived):
		return "This job is archived; its branch is not merged from here."
	case errors.Is(err, model.ErrNothingToMerge):
		return "There is nothing to merge: the branch brings no change to " + ref + "."
	case errors.Is(err, model.ErrMergeConflict):
		return "This branch does not merge cleanly into " + ref + " (both changed the same lines, or the code host refused). " +
			"Nothing was merged. Send the agent a follow-up to redo the change on top of " + ref + ", or merge it by hand."
	}
	return ""
}
