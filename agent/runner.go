package agent

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"time"

	"github.com/folio-docs/folio/agent/workspace"
	"github.com/folio-docs/folio/codehost"
	"github.com/folio-docs/folio/doccheck"
	"github.com/folio-docs/folio/metrics"
	"github.com/folio-docs/folio/model"
)

// Error codes of a run whose settings cannot work (CONTRACT §2): permanent,
// never retried.
const (
	CodeRepositoryNotFound = "repository_not_found"
	CodeRefNotFound        = "ref_not_found"
)

// Defaults for a run's limits.
const (
	DefaultMaxSteps         = 60
	DefaultMaxTokens        = 2_000_000
	DefaultValidationRounds = 3
	// DefaultMaxOutputTokens bounds one reply: a long page written whole
	// fits within it.
	DefaultMaxOutputTokens = 16_000
)

// Config is what the agent runtime needs from Folio's configuration.
type Config struct {
	Provider         string // "openai" or "anthropic"
	OpenAIBaseURL    string
	OpenAIAPIKey     string
	AnthropicBaseURL string
	AnthropicAPIKey  string
	// Hosts opens a project's code host (codehost/hosts.Config, built by
	// the composition root); required.
	Hosts   CodeHosts
	DataDir string // workspaces go in DataDir/workspaces

	MaxSteps         int   // model calls per run; DefaultMaxSteps if 0
	MaxTokens        int64 // tokens per run; DefaultMaxTokens if 0
	ValidationRounds int   // times problems go back to the model; DefaultValidationRounds if 0
	MaxOutputTokens  int64 // tokens of one reply; DefaultMaxOutputTokens if 0
	// JobMaxTokens caps the tokens of a job over all its turns (Run's
	// TokensUsed and this run's); 0 sets no cap.
	JobMaxTokens int64
	// Prices are the models' prices (ParsePrices), by model name: a run of
	// a model priced here has a cost.
	Prices map[string]Price

	HTTPClient *http.Client // for the model and GitHub APIs; a 10-minute-timeout client if nil
	Log        *slog.Logger

	// RetryAttempts and RetryBase tune provider retries (default 6 and 1s).
	RetryAttempts int
	RetryBase     time.Duration
}

// CodeHosts opens the code host of a project's repository, as a run on
// this machine reaches it.
type CodeHosts interface {
	OpenProject(projectID, repository string) (codehost.Host, error)
}

// Agent is the Runner: Folio's agent runtime.
type Agent struct {
	cfg   Config
	log   *slog.Logger
	retry retryPolicy
	// context is how much of the conversation a request carries whole
	// (normalContext; tests measure the whole history against it).
	context contextLimits
}

var _ Runner = (*Agent)(nil)

// New checks cfg and returns the runtime. Settings a project may or may not
// need (keys, tokens) are checked per run, so one project's missing token
// does not stop the others.
func New(cfg Config) (*Agent, error) {
	switch cfg.Provider {
	case "openai", "anthropic":
	default:
		return nil, fmt.Errorf("agent: unknown model provider %q (want openai or anthropic)", cfg.Provider)
	}
	if cfg.DataDir == "" {
		return nil, errors.New("agent: a data directory is required")
	}
	if cfg.Hosts == nil {
		return nil, errors.New("agent: the code hosts are required")
	}
	if cfg.MaxSteps <= 0 {
		cfg.MaxSteps = DefaultMaxSteps
	}
	if cfg.MaxTokens <= 0 {
		cfg.MaxTokens = DefaultMaxTokens
	}
	if cfg.ValidationRounds <= 0 {
		cfg.ValidationRounds = DefaultValidationRounds
	}
	if cfg.MaxOutputTokens <= 0 {
		cfg.MaxOutputTokens = DefaultMaxOutputTokens
	}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = &http.Client{Timeout: 10 * time.Minute}
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	a := &Agent{cfg: cfg, log: cfg.Log, retry: retryPolicy{Attempts: 6, Base: time.Second, Max: 2 * time.Minute}, context: normalContext}
	if cfg.RetryAttempts > 0 {
		a.retry.Attempts = cfg.RetryAttempts
	}
	if cfg.RetryBase > 0 {
		a.retry.Base = cfg.RetryBase
	}
	return a, nil
}

func configMissing(variable, why string) *Error {
	return &Error{Code: "config_missing", Message: fmt.Sprintf("%s is not set; %s.", variable, why), Permanent: true}
}

// provider builds the configured model client, or says which setting is missing.
func (a *Agent) provider(model string) (provider, error) {
	if model == "" {
		return nil, configMissing("FOLIO_MODEL", "the project has no model and there is no default")
	}
	switch a.cfg.Provider {
	case "anthropic":
		if a.cfg.AnthropicAPIKey == "" {
			return nil, configMissing("FOLIO_ANTHROPIC_API_KEY", "the anthropic model provider needs an API key")
		}
		return newAnthropic(a.cfg.AnthropicBaseURL, a.cfg.AnthropicAPIKey, a.cfg.HTTPClient), nil
	default:
		// OpenAI itself needs a key; Ollama, vLLM and llama.cpp usually do not.
		if u, err := url.Parse(a.cfg.OpenAIBaseURL); a.cfg.OpenAIAPIKey == "" && err == nil && strings.HasSuffix(u.Hostname(), "openai.com") {
			return nil, configMissing("FOLIO_OPENAI_API_KEY", "the OpenAI API needs an API key")
		}
		return newOpenAI(a.cfg.OpenAIBaseURL, a.cfg.OpenAIAPIKey, a.cfg.HTTPClient), nil
	}
}

// host opens the project's code host, or says why it cannot.
func (a *Agent) host(p model.Project) (codehost.Host, error) {
	h, err := a.cfg.Hosts.OpenProject(p.ID, p.Repository)
	switch {
	case errors.Is(err, codehost.ErrNoGitHubToken):
		return nil, configMissing("FOLIO_GITHUB_TOKEN", "the project's repository is on GitHub")
	case err != nil:
		return nil, &Error{Code: "repository_error", Message: err.Error(), Permanent: true}
	}
	return h, nil
}

// checkRef fails the run at once, for good, when the repository or the
// ref does not exist: no retry will make them appear. Other failures to ask
// the host may pass on a retry.
func checkRef(ctx context.Context, host codehost.Host, repo, ref string) error {
	err := host.CheckRef(ctx, ref)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, codehost.ErrRepositoryNotFound):
		return &Error{Code: CodeRepositoryNotFound, Message: fmt.Sprintf("The repository %s does not exist, or Folio's credentials cannot reach it.", repo), Permanent: true, Err: err}
	case errors.Is(err, codehost.ErrRefNotFound):
		return &Error{Code: CodeRefNotFound, Message: fmt.Sprintf("The branch %q does not exist in %s.", ref, repo), Permanent: true, Err: err}
	case ctx.Err() != nil:
		return ctx.Err()
	}
	return hostError("repository_error", "The repository could not be reached", err)
}

// refusal is a code host refusing a request (github.StatusError), which
// knows whether retrying can help.
type refusal interface {
	error
	Permanent() bool
}

// hostError classifies a code host failure: GitHub refusing (bad token, no
// access) is permanent; anything else may pass on a retry.
func hostError(code, what string, err error) error {
	var se refusal
	if errors.As(err, &se) {
		return &Error{Code: code, Message: fmt.Sprintf("%s: %s", what, se.Error()), Permanent: se.Permanent(), Err: err}
	}
	return &Error{Code: code, Message: what + ".", Err: err}
}

// Run runs one turn of a job: the model's tool loop over a fresh checkout of
// the job's branch, validation, then commit, push and pull request.
func (a *Agent) Run(ctx context.Context, run Run, record Recorder) (res Result, err error) {
	res = Result{PRLink: run.PRLink}
	// However the run ends, what it used is priced.
	defer func() { res.CostMicros = a.cost(run.Model, res.Usage) }()
	// work ends at the run's deadline: the model is not called after it.
	// ctx goes on a little longer (WrapUpTime), for keeping the work.
	work := ctx
	if !run.Deadline.IsZero() {
		var cancel context.CancelFunc
		work, cancel = context.WithDeadlineCause(ctx, run.Deadline, errOutOfTime)
		defer cancel()
	}
	// Out of time before the model is called: nothing was changed yet, and
	// the job fails as a timeout.
	setupFailed := func(err error) error {
		if s := outOfTime(ctx, work, run); s != nil {
			return s.failure()
		}
		return err
	}
	prov, err := a.provider(run.Model)
	if err != nil {
		return res, err
	}
	host, err := a.host(run.Project)
	if err != nil {
		return res, err
	}
	if err := checkRef(work, host, run.Project.Repository, run.Project.Ref); err != nil {
		return res, setupFailed(err)
	}
	remote, err := host.Remote(work)
	if err != nil {
		var se refusal
		if work.Err() == nil && !errors.As(err, &se) && !strings.HasPrefix(err.Error(), "github:") {
			// A local path that is not a repository will not become one.
			return res, &Error{Code: "repository_error", Message: err.Error(), Permanent: true}
		}
		return res, setupFailed(hostError("repository_error", "The repository could not be reached on GitHub", err))
	}
	ws, err := workspace.Open(work, filepath.Join(a.cfg.DataDir, "workspaces"), remote.URL, remote.Env, run.Project.Ref, run.Branch)
	if err != nil {
		if work.Err() != nil {
			return res, setupFailed(work.Err())
		}
		return res, &Error{Code: "repository_error", Message: fmt.Sprintf("The repository could not be checked out at %q.", run.Project.Ref), Err: err}
	}
	defer ws.Close()
	co, err := openCheckout(ws.Dir)
	if err != nil {
		return res, err
	}
	defer co.Close()

	if a.cfg.JobMaxTokens > 0 && run.TokensUsed >= a.cfg.JobMaxTokens {
		return res, &Error{Code: "budget_exceeded", Message: fmt.Sprintf("The job has used %d tokens over its turns, its cap of %d; start a new job to go on.", run.TokensUsed, a.cfg.JobMaxTokens), Permanent: true}
	}
	msgs, problems, stop, err := a.loop(ctx, work, prov, co, ws, run, record, &res)
	if err != nil {
		return res, err
	}
	if stop != nil {
		// Nothing changed in this turn: nothing to keep, and the job fails
		// as it always did.
		changes, err := ws.Changes(ctx)
		if err != nil {
			return res, err
		}
		if len(changes) == 0 {
			return res, stop.failure()
		}
		a.log.Warn("agent: run stopped at a limit; its work goes to a draft pull request", "job", run.JobID, "why", stop.message, "err", stop.err)
	}
	return a.publish(ctx, host, ws, run, msgs, problems, stop, res)
}

// loop is the conversation with the model until it stops calling tools and
// its changes pass validation (or the validation rounds run out), or until
// a limit stops it (stop says which). It returns the whole conversation and
// the problems left. The model is called and the branch read within work,
// which ends at the run's deadline; what is recorded, and what a stop
// needs, within ctx, which outlives it.
func (a *Agent) loop(ctx, work context.Context, prov provider, co *checkout, ws *workspace.Workspace, run Run, record Recorder, res *Result) (conversation []Message, problems []doccheck.Problem, stop *stopped, err error) {
	system := systemPrompt(co)
	msgs := append([]Message(nil), run.History...)
	start := turnStart(run.History)
	say := func(m Message) error {
		m.CreatedAt = time.Now().UTC()
		msgs = append(msgs, m)
		if err := record(ctx, m); err != nil {
			return fmt.Errorf("agent: unable to record a message: %w", err)
		}
		return nil
	}
	// Tool calls left unanswered (a run stopped between the reply and its
	// results) would make providers refuse the conversation.
	answerOpen := func(why string) error {
		for _, tc := range unanswered(msgs) {
			if err := say(Message{Role: RoleTool, ToolCallID: tc.ID, ToolName: tc.Name, IsError: true, Content: why}); err != nil {
				return err
			}
		}
		return nil
	}
	// halt ends the turn at a limit: the calls asked for are answered, and
	// the checks say what the branch holds.
	halt := func(s *stopped) ([]Message, []doccheck.Problem, *stopped, error) {
		if err := answerOpen("not run: " + s.message); err != nil {
			return nil, nil, nil, err
		}
		changes, err := ws.BranchChanges(ctx)
		if err != nil {
			return nil, nil, nil, err
		}
		return msgs, doccheck.Check(co.root, changes), s, nil
	}
	// Whatever was under way when the time ran out (a model call, a read
	// of the branch) failed for that reason only: the run stops there.
	defer func() {
		if s := outOfTime(ctx, work, run); err != nil && s != nil {
			conversation, problems, stop, err = halt(s)
		}
	}()
	if err := answerOpen("not run: the previous attempt stopped before this call ran"); err != nil {
		return nil, nil, nil, err
	}
	rounds, reviewed := 0, false
	limits := a.context
	outputLimit := a.cfg.MaxOutputTokens
	raised, warned := false, false
	for {
		if s := a.limitReached(run, res); s != nil {
			return halt(s)
		}
		if s := outOfTime(ctx, work, run); s != nil {
			return halt(s)
		}
		if near := a.nearLimit(run, res); near != "" && !warned {
			warned = true
			if err := say(Message{Role: RoleUser, Content: warningNote(near)}); err != nil {
				return nil, nil, nil, err
			}
		}
		req := modelRequest{Model: run.Model, System: system, Messages: contextView(msgs, start, limits), Tools: toolSpecs, MaxTokens: outputLimit}
		reply, err := completeWithRetry(work, prov, a.retry, req)
		var ae *Error
		switch {
		case err == nil:
		case work.Err() != nil:
			return nil, nil, nil, err
		case errors.As(err, &ae) && ae.Code == CodeContextExceeded && limits != tightContext:
			// Once more with only the latest call whole.
			limits = tightContext
			continue
		case errors.As(err, &ae) && ae.Code == CodeContextExceeded:
			return halt(&stopped{code: ae.Code, message: "the conversation grew past the model's context window.", err: err})
		case errors.As(err, &ae) && ae.Code == "model_error" && outputLimit > a.cfg.MaxOutputTokens:
			// The provider refuses the larger limit (a model with a small
			// output): ask within the usual one.
			outputLimit = a.cfg.MaxOutputTokens
			continue
		case run.LastAttempt && !IsPermanent(err):
			return halt(&stopped{code: "model_unavailable", message: "the model provider kept failing, and this was the run's last attempt.", err: err})
		default:
			return nil, nil, nil, err
		}
		res.Steps++
		res.addUsage(reply)
		metrics.ModelTokens(a.cfg.Provider, run.Model, metrics.Tokens{Input: reply.Input, Cached: reply.Cached, CacheWrite: reply.CacheWrite, Output: reply.Output})
		a.log.Debug("agent: model call", "job", run.JobID, "step", res.Steps, "input", reply.Input, "cached", reply.Cached, "output", reply.Output)
		if reply.Truncated && !raised {
			// Anthropic's advice: ask again with a larger limit; the cut
			// reply, whose last call is incomplete, is not kept.
			raised, outputLimit = true, 2*a.cfg.MaxOutputTokens
			if err := say(Message{Role: RoleUser, Content: cutNote(a.cfg.MaxOutputTokens)}); err != nil {
				return nil, nil, nil, err
			}
			continue
		}
		usage := reply.usage()
		if err := say(Message{Role: RoleAssistant, Content: reply.Content, ToolCalls: reply.ToolCalls, Usage: &usage}); err != nil {
			return nil, nil, nil, err
		}
		if reply.Truncated {
			// Cut again at the larger limit: no call of it runs.
			if err := answerOpen(cutResult(outputLimit)); err != nil {
				return nil, nil, nil, err
			}
			if len(reply.ToolCalls) == 0 {
				if err := say(Message{Role: RoleUser, Content: folioNote + "Your reply was cut off at the output limit. Answer again, shorter."}); err != nil {
					return nil, nil, nil, err
				}
			}
			continue
		}
		// A limit reached by this call stops the run before the next one:
		// the calls of this reply still run, and cost nothing.
		for _, tc := range reply.ToolCalls {
			out, err := co.call(tc.Name, tc.Arguments)
			var te *toolError
			isErr := errors.As(err, &te)
			if err != nil && !isErr {
				return nil, nil, nil, fmt.Errorf("agent: tool %s failed: %w", tc.Name, err)
			}
			if isErr {
				out = te.msg
			}
			if err := say(Message{Role: RoleTool, ToolCallID: tc.ID, ToolName: tc.Name, Content: out, IsError: isErr}); err != nil {
				return nil, nil, nil, err
			}
		}
		if len(reply.ToolCalls) > 0 {
			continue
		}
		// The checks cover the whole branch, so what an earlier turn left
		// broken is still reported (and listed in the pull request).
		changes, err := ws.BranchChanges(work)
		if err != nil {
			return nil, nil, nil, err
		}
		problems := doccheck.Check(co.root, changes)
		if !reviewed {
			reviewed = true
			note, err := review(work, ws, run.Project.Ref, problems)
			if err != nil {
				return nil, nil, nil, err
			}
			if note != "" {
				if err := say(Message{Role: RoleUser, Content: note}); err != nil {
					return nil, nil, nil, err
				}
				continue
			}
		}
		if len(problems) == 0 || rounds >= a.cfg.ValidationRounds {
			return msgs, problems, nil, nil
		}
		rounds++
		note := validationNote
		for _, p := range problems {
			note += "\n- " + p.String()
		}
		if err := say(Message{Role: RoleUser, Content: note}); err != nil {
			return nil, nil, nil, err
		}
	}
}

// unanswered lists the tool calls of the last assistant message that have
// no result after them.
func unanswered(msgs []Message) []ToolCall {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role != RoleAssistant {
			continue
		}
		answered := map[string]bool{}
		for _, m := range msgs[i+1:] {
			if m.Role == RoleTool {
				answered[m.ToolCallID] = true
			}
		}
		var open []ToolCall
		for _, tc := range msgs[i].ToolCalls {
			if !answered[tc.ID] {
				open = append(open, tc)
			}
		}
		return open
	}
	return nil
}

// publish commits the turn's changes, pushes the branch and opens or updates
// the pull request.
func (a *Agent) publish(ctx context.Context, host codehost.Host, ws *workspace.Workspace, run Run, msgs []Message, problems []doccheck.Problem, stop *stopped, res Result) (Result, error) {
	res.Summary, res.Problems = finalAnswer(msgs), problems
	stoppedWhy := ""
	if stop != nil {
		res.Summary, res.Problems, stoppedWhy = stop.summary(), append(append([]doccheck.Problem(nil), problems...), stop.problem()), stop.message
	}
	changes, err := ws.Changes(ctx)
	if err != nil {
		return res, err
	}
	prompts := userPrompts(msgs)
	latest := ""
	if len(prompts) > 0 {
		latest = prompts[len(prompts)-1]
	}
	changed, err := ws.Commit(ctx, commitMessage(run.JobID, latest, changes))
	if err != nil {
		return res, err
	}
	res.Changed = changed
	if changed {
		if err := ws.Push(ctx); err != nil {
			if ctx.Err() != nil {
				return res, ctx.Err()
			}
			return res, hostError("repository_error", "The branch could not be pushed", err)
		}
	}
	// Publish when this turn changed something, or when an earlier turn's
	// commits never got their pull request.
	if !changed && (run.PRLink != "" || !ws.Continued) {
		a.log.Info("agent: run finished", "job", run.JobID, "steps", res.Steps, "tokens", res.Tokens, "changed", false)
		return res, nil
	}
	// Errors left mean the change would break the site, and a stopped
	// run's work is unfinished: never ready to merge.
	unready := doccheck.HasErrors(problems) || stop != nil
	link, err := host.Publish(ctx, codehost.PullRequest{
		ProjectID: run.Project.ID, JobID: run.JobID, Branch: run.Branch, Base: run.Project.Ref,
		Title: prTitle(prompts), Body: prBody(run.JobID, prompts, res.Summary, changes, problems, stoppedWhy),
		Draft: run.Project.DraftPRs || unready, BackToDraft: unready,
	})
	if sr := (*codehost.StillReadyError)(nil); errors.As(err, &sr) {
		// Everything but the draft is done: the job says the pull request
		// is ready although it should not be merged as it is.
		a.log.Warn("agent: the pull request stays ready for review", "job", run.JobID, "err", err)
		still := stillReady(stop != nil, sr.Reason)
		res.Summary += "\n\n" + still
		res.Problems = append(res.Problems, doccheck.Problem{Severity: doccheck.SeverityWarning, Message: still})
		err = nil
	}
	if err != nil {
		if ctx.Err() != nil {
			return res, ctx.Err()
		}
		return res, hostError("pull_request_error", "The pull request could not be opened or updated", err)
	}
	res.PRLink = link
	a.log.Info("agent: run finished", "job", run.JobID, "steps", res.Steps, "tokens", res.Tokens, "largest_request", res.LargestRequest, "changed", changed, "problems", len(problems), "stopped", stop != nil)
	return res, nil
}
