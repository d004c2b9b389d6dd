package agent

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/folio-docs/folio/doccheck"
)

// A run that reaches a limit keeps its work: Folio commits what the agent
// changed, opens it as a draft pull request, and says in the job's summary
// and problems that the agent stopped early. Only a run that changed
// nothing fails, as it did before: there is nothing to lose.

// stopped is why a run ended before the agent finished, as the job's
// error would have said it.
type stopped struct {
	code    string // the error code a run without changes fails with
	message string // one sentence: which limit
	err     error  // the failure behind it, if any
	// failMessage, if set, is the job's error message when nothing changed
	// (else message).
	failMessage string
}

// failure is the error a stopped run without changes ends with.
func (s *stopped) failure() error {
	var ae *Error
	if errors.As(s.err, &ae) {
		return s.err // the provider's own failure, as it was
	}
	msg := s.message
	if s.failMessage != "" {
		msg = s.failMessage
	}
	return &Error{Code: s.code, Message: msg, Permanent: true, Err: s.err}
}

// CodeTimeout is a run that reached its time limit (Run.Deadline) having
// changed nothing.
const CodeTimeout = "timeout"

// errOutOfTime ends the model's part of a run at Run.Deadline.
var errOutOfTime = errors.New("agent: the run reached its time limit")

// outOfTime is the stop of a run whose work context (work) reached the
// run's deadline while the caller's (ctx) goes on: there is time left to
// keep the work. Nil otherwise, a cancel or a crash among them.
func outOfTime(ctx, work context.Context, run Run) *stopped {
	if ctx.Err() != nil || !errors.Is(context.Cause(work), errOutOfTime) {
		return nil
	}
	return &stopped{code: CodeTimeout, message: fmt.Sprintf("the run reached its time limit of %s.", run.TimeLimit),
		failMessage: fmt.Sprintf("The agent run exceeded its time limit of %s.", run.TimeLimit)}
}

// summary is the job's summary of a stopped run that committed its work.
func (s *stopped) summary() string {
	return "Folio stopped the agent before it finished: " + s.message +
		" What it changed so far is committed to the branch and opened as a draft pull request; review it, or send a follow-up to go on."
}

// problem is the stop as one of the job's problems, an error: the pull
// request is a draft.
func (s *stopped) problem() doccheck.Problem {
	return doccheck.Problem{Severity: doccheck.SeverityError, Message: "The agent stopped before it finished: " + s.message}
}

// The limits of a run, checked after every model call.
func (a *Agent) limitReached(run Run, res *Result) *stopped {
	switch {
	case a.cfg.JobMaxTokens > 0 && run.TokensUsed+res.Tokens > a.cfg.JobMaxTokens:
		return &stopped{code: "budget_exceeded", message: fmt.Sprintf("the job used %d tokens over all its turns, over its cap of %d.", run.TokensUsed+res.Tokens, a.cfg.JobMaxTokens)}
	case res.Tokens > a.cfg.MaxTokens:
		return &stopped{code: "budget_exceeded", message: fmt.Sprintf("the run used %d tokens, over its budget of %d.", res.Tokens, a.cfg.MaxTokens)}
	case res.Steps >= a.cfg.MaxSteps:
		return &stopped{code: "budget_exceeded", message: fmt.Sprintf("the run reached its limit of %d model calls.", a.cfg.MaxSteps)}
	}
	return nil
}

// nearLimit says which limit the run is close to ("" if none): 80 % of a
// token budget used, few model calls left, or a fifth of its time.
func (a *Agent) nearLimit(run Run, res *Result) string {
	left := a.cfg.MaxSteps - res.Steps
	switch {
	case !run.Deadline.IsZero() && time.Until(run.Deadline)*5 <= run.TimeLimit:
		return fmt.Sprintf("about %s is left of its time limit of %s", roundLeft(time.Until(run.Deadline)), run.TimeLimit)
	case a.cfg.JobMaxTokens > 0 && (run.TokensUsed+res.Tokens)*5 >= a.cfg.JobMaxTokens*4:
		return fmt.Sprintf("the job has used %d of the %d tokens it may use over all its turns", run.TokensUsed+res.Tokens, a.cfg.JobMaxTokens)
	case res.Tokens*5 >= a.cfg.MaxTokens*4:
		return fmt.Sprintf("the run has used %d of its %d tokens", res.Tokens, a.cfg.MaxTokens)
	case left <= max(2, a.cfg.MaxSteps/10):
		return fmt.Sprintf("%d model calls are left of its %d", left, a.cfg.MaxSteps)
	}
	return ""
}

// roundLeft rounds the time a run has left for the model to read: to the
// second, or to a tenth of one under ten seconds.
func roundLeft(d time.Duration) time.Duration {
	if d < 10*time.Second {
		return max(d.Round(100*time.Millisecond), 0)
	}
	return d.Round(time.Second)
}

func warningNote(near string) string {
	return folioNote + "This run is close to its limit: " + near + ". Finish the change you are making and keep the pages valid, then stop calling tools and answer with your summary. " +
		"If the limit comes first, Folio opens what is on the branch as a draft pull request."
}

// cutNote tells the model its reply was cut off at the output limit and
// not kept.
func cutNote(limit int64) string {
	return fmt.Sprintf("%sYour last reply was cut off at the output limit (%d tokens), so Folio discarded it and asks again with a larger limit. "+
		"Keep replies short: write a long page in parts (write_file with the first part, then edit_file to add the rest).", folioNote, limit)
}

// cutResult answers a call of a reply cut off even at the larger limit.
func cutResult(limit int64) string {
	return fmt.Sprintf("not run: your reply was cut off at the output limit (%d tokens), so this call's arguments may be incomplete. "+
		"Make smaller changes: write a long page in parts (write_file with the first part, then edit_file to add the rest).", limit)
}

// contextExceeded reports whether the provider refused a request for
// being longer than the model's context window. Providers say it in words
// only: OpenAI "maximum context length is …" (code context_length_exceeded),
// Anthropic "prompt is too long: … tokens > … maximum", vLLM as OpenAI,
// llama.cpp "exceeds the available context size".
func contextExceeded(se *statusError) bool {
	if se.Status != http.StatusBadRequest && se.Status != http.StatusRequestEntityTooLarge {
		return false
	}
	msg := strings.ToLower(se.Message)
	for _, s := range []string{"context length", "context_length", "context window", "context size", "prompt is too long", "too many tokens"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}
