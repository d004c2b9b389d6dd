package dashboard

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/folio-docs/folio/model"
)

// TestJobFormError pins what a job page answers each refusal of the jobs
// domain with: the contract's status (a prompt refused is a 422, as every
// refused form) and the page's sentence.
func TestJobFormError(t *testing.T) {
	for _, tc := range []struct {
		err    error
		status int
		msg    string
	}{
		{model.Invalid("prompt", `Field "prompt" must be at most 32000 characters; it has 32001.`), 422,
			"Write a prompt for the agent (up to 32,000 characters)."},
		{&model.RateLimitedError{Limit: 100, Reset: 61 * time.Second}, 429,
			"Rate limit reached: this project may send 100 of these an hour. Try again in 2m."},
		{model.ErrJobNotFound, 404, "This job no longer exists."},
		{model.ErrJobArchived, 409, "This job is archived: it takes no more follow-ups."},
		{fmt.Errorf("db: %w", model.ErrJobNotActive), 409, "This job is no longer running: there is nothing to cancel."},
		{model.ErrIdempotencyConflict, 409, "This form was already sent with another prompt. Reload the page and try again."},
		{model.ErrQueueUnavailable, 503, "The job queue is unavailable right now, so nothing was started. Try again in a moment."},
		// What the page cannot explain is a 500, its cause for the log.
		{model.Invalid("ref", "no such branch"), 500, ""},
		{model.ErrJobBusy, 500, ""},
		{errors.New("disk full"), 500, ""},
	} {
		if status, msg := jobFormError(tc.err); status != tc.status || msg != tc.msg {
			t.Errorf("jobFormError(%v) = %d %q, want %d %q", tc.err, status, msg, tc.status, tc.msg)
		}
	}
}

func TestMergeWords(t *testing.T) {
	for _, tc := range []struct {
		err    error
		status int
		msg    string
	}{
		{model.ErrJobBusy, 409, "The agent is still working on this branch; merge once its turn ends."},
		{model.ErrJobArchived, 409, "This job is archived; its branch is not merged from here."},
		{model.ErrNothingToMerge, 409, "There is nothing to merge: the branch brings no change to main."},
		{fmt.Errorf("github: pull request #3: %w", model.ErrMergeConflict), 409, "This branch does not merge cleanly into main (both changed the same lines, or the code host refused). " +
			"Nothing was merged. Send the agent a follow-up to redo the change on top of main, or merge it by hand."},
		{model.ErrJobNotFound, 500, ""},
	} {
		status, msg := pageRefusal(tc.err, func(err error) string { return mergeWords(err, "main") })
		if status != tc.status || msg != tc.msg {
			t.Errorf("merge refused with %v: %d %q, want %d %q", tc.err, status, msg, tc.status, tc.msg)
		}
	}
}
