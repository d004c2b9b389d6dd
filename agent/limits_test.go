package agent

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/folio-docs/folio/doccheck"
	"github.com/folio-docs/folio/internal/testenv"
	"github.com/folio-docs/folio/model"
)

// onGitHub is a run of job "jl" on a fake GitHub holding the docs site,
// with a model speaking OpenAI's protocol that follows steps.
func onGitHub(t *testing.T, steps ...step) (*testenv.FakeGitHub, *scriptedModel, Config, Run) {
	t.Helper()
	gh := testenv.NewFakeGitHub(t, docsSite())
	m := newOpenAIServer(t, steps...)
	cfg := openAIConfig(m)
	cfg.Hosts = testHosts(gh.URL, gh.Token)
	run := Run{JobID: "jl", Project: model.Project{ID: "p", Repository: "acme/docs", Ref: "main"}, Model: "gpt-test", Branch: "folio/jl",
		History: []Message{{Role: RoleUser, Content: "Add an FAQ"}}}
	return gh, m, cfg, run
}

var writeFAQ = step{calls: []ToolCall{call("w1", "write_file", map[string]string{"path": "faq.mdx", "content": "---\ntitle: FAQ\n---\n\nAsk away.\n"})}}

func listing(id string) step { return step{calls: []ToolCall{call(id, "list_files", nil)}} }

// notes are the [Folio] notes recorded, in order.
func notes(msgs []Message) []string {
	var out []string
	for _, m := range msgs {
		if m.Role == RoleUser && strings.HasPrefix(m.Content, folioNote) {
			out = append(out, m.Content)
		}
	}
	return out
}

// checkStopped fails unless the run ended as a draft pull request holding
// faq.mdx, and said why in its summary, its problems and the pull request.
func checkStopped(t *testing.T, gh *testenv.FakeGitHub, res Result, err error, why string) {
	t.Helper()
	if err != nil {
		t.Fatalf("Run: %v; want the work kept", err)
	}
	if !res.Changed || res.PRLink != "https://github.com/acme/docs/pull/1" {
		t.Fatalf("result = %+v, want a commit and the pull request", res)
	}
	if !strings.HasPrefix(res.Summary, "Folio stopped the agent before it finished: "+why) || !strings.Contains(res.Summary, "draft pull request") {
		t.Fatalf("summary = %q, want it to say the agent stopped: %s", res.Summary, why)
	}
	last := res.Problems[len(res.Problems)-1]
	if last.Severity != doccheck.SeverityError || last.Path != "" || last.Message != "The agent stopped before it finished: "+why {
		t.Fatalf("problems = %+v, want the stop last", res.Problems)
	}
	pulls := gh.Pulls()
	if len(pulls) != 1 || !pulls[0].Draft || !strings.Contains(pulls[0].Body, "## Stopped before finishing") || !strings.Contains(pulls[0].Body, why) {
		t.Fatalf("pull requests = %+v, want one draft saying why it stopped", pulls)
	}
	if got := gitT(t, gh.Bare, "show", "folio/jl:faq.mdx"); !strings.Contains(got, "Ask away.") {
		t.Fatalf("the branch holds faq.mdx:\n%s", got)
	}
}

// A run that reaches its limit of model calls keeps what it changed: a
// commit and a draft pull request that say it stopped. The model was
// warned first, and the calls of its last reply ran.
func TestRunStepLimitKeepsWork(t *testing.T) {
	gh, m, cfg, run := onGitHub(t, listing("l1"), listing("l2"), writeFAQ, listing("l3"))
	cfg.MaxSteps = 3
	rec := &recorder{}
	res, err := newTestAgent(t, cfg).Run(context.Background(), run, rec.record)
	checkStopped(t, gh, res, err, "the run reached its limit of 3 model calls.")
	if res.Steps != 3 || len(m.requests) != 3 {
		t.Fatalf("%d steps, %d requests; want 3", res.Steps, len(m.requests))
	}
	warned := notes(rec.all())
	if len(warned) != 1 || !strings.Contains(warned[0], "close to its limit: 2 model calls are left of its 3") {
		t.Fatalf("notes = %q, want one warning after the first call", warned)
	}
	// The warning ended the second request.
	sent := m.requests[1]["messages"].([]any)
	if last := sent[len(sent)-1].(map[string]any); last["role"] != "user" || !strings.HasPrefix(last["content"].(string), "[Folio] This run is close to its limit") {
		t.Fatalf("the second request ends with %v, want the warning", last)
	}
}

// The token budget, and the job's cap over all its turns, stop a run the
// same way; a run that changed nothing still fails, having nothing to keep.
func TestRunTokenLimitsKeepWork(t *testing.T) {
	t.Run("run budget", func(t *testing.T) {
		gh, _, cfg, run := onGitHub(t, writeFAQ, listing("l1"), listing("l2"))
		cfg.MaxTokens = 200 // 120 a call
		res, err := newTestAgent(t, cfg).Run(context.Background(), run, (&recorder{}).record)
		checkStopped(t, gh, res, err, "the run used 240 tokens, over its budget of 200.")
	})
	t.Run("job cap", func(t *testing.T) {
		gh, m, cfg, run := onGitHub(t, writeFAQ, listing("l1"))
		cfg.JobMaxTokens = 1000
		run.TokensUsed = 900
		rec := &recorder{}
		res, err := newTestAgent(t, cfg).Run(context.Background(), run, rec.record)
		checkStopped(t, gh, res, err, "the job used 1020 tokens over all its turns, over its cap of 1000.")
		if len(m.requests) != 1 || !strings.Contains(strings.Join(notes(rec.all()), "\n"), "the job has used 900 of the 1000 tokens") {
			t.Fatalf("%d requests, notes %q; want 1 request after a warning", len(m.requests), notes(rec.all()))
		}
	})
	t.Run("job cap already spent", func(t *testing.T) {
		_, m, cfg, run := onGitHub(t, writeFAQ)
		cfg.JobMaxTokens = 1000
		run.TokensUsed = 1000
		_, err := newTestAgent(t, cfg).Run(context.Background(), run, (&recorder{}).record)
		var ae *Error
		if !errors.As(err, &ae) || ae.Code != "budget_exceeded" || !ae.Permanent || len(m.requests) != 0 {
			t.Fatalf("err = %v after %d requests; want budget_exceeded before any", err, len(m.requests))
		}
	})
	t.Run("nothing changed", func(t *testing.T) {
		gh, _, cfg, run := onGitHub(t, listing("l1"), listing("l2"), listing("l3"))
		cfg.MaxTokens = 200
		rec := &recorder{}
		_, err := newTestAgent(t, cfg).Run(context.Background(), run, rec.record)
		var ae *Error
		if !errors.As(err, &ae) || ae.Code != "budget_exceeded" || !ae.Permanent || len(gh.Pulls()) != 0 {
			t.Fatalf("err = %v, pulls %v; want budget_exceeded and no pull request", err, gh.Pulls())
		}
		// The last reply's call was answered: the history stays one a provider takes.
		if open := unanswered(rec.all()); len(open) != 0 {
			t.Fatalf("calls left unanswered: %v", open)
		}
	})
}

// A provider that says the request is past the model's context window is
// asked once more with only the latest call whole; if it refuses again,
// the run stops and keeps its work.
func TestRunContextWindow(t *testing.T) {
	tooLong := func(w http.ResponseWriter) {
		w.WriteHeader(400)
		w.Write([]byte(`{"error":{"message":"This model's maximum context length is 8192 tokens. However, your messages resulted in 9100 tokens. Please reduce the length of the messages.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}`))
	}
	read := func(id string) step {
		return step{calls: []ToolCall{call(id, "read_file", map[string]string{"path": "faq.mdx"})}}
	}
	longFAQ := step{calls: []ToolCall{call("w1", "write_file", map[string]string{"path": "faq.mdx", "content": "---\ntitle: FAQ\n---\n\n" + strings.Repeat("Ask away, any time.\n", 100)})}}
	t.Run("the tighter view passes", func(t *testing.T) {
		gh, m, cfg, run := onGitHub(t, longFAQ, read("r1"), read("r2"), step{fail: tooLong}, step{text: "Wrote the FAQ."})
		res, err := newTestAgent(t, cfg).Run(context.Background(), run, (&recorder{}).record)
		if err != nil || res.Summary != "Wrote the FAQ." || len(gh.Pulls()) != 1 || gh.Pulls()[0].Draft {
			t.Fatalf("result %+v, %v; want the run finished as usual", res, err)
		}
		// The retry masked every output but the latest.
		var whole []string
		for _, msg := range m.lastRequest()["messages"].([]any) {
			msg := msg.(map[string]any)
			if msg["role"] == "tool" && !strings.HasPrefix(msg["content"].(string), folioNote) {
				whole = append(whole, msg["tool_call_id"].(string))
			}
		}
		if strings.Join(whole, ",") != "w1,r2" { // w1's answer is too short to mask
			t.Fatalf("outputs sent whole after the refusal: %v, want w1 (short) and r2", whole)
		}
		// The page w1 wrote is masked with its call.
		first := m.lastRequest()["messages"].([]any)[2].(map[string]any)["tool_calls"].([]any)[0].(map[string]any)
		if args := first["function"].(map[string]any)["arguments"].(string); !strings.Contains(args, `"content":"[Folio] 2020 bytes, hidden`) {
			t.Fatalf("w1's arguments sent after the refusal: %s", args)
		}
	})
	t.Run("refused again", func(t *testing.T) {
		gh, _, cfg, run := onGitHub(t, writeFAQ, step{fail: tooLong}, step{fail: tooLong})
		res, err := newTestAgent(t, cfg).Run(context.Background(), run, (&recorder{}).record)
		checkStopped(t, gh, res, err, "the conversation grew past the model's context window.")
	})
	t.Run("refused again, nothing changed", func(t *testing.T) {
		_, _, cfg, run := onGitHub(t, listing("l1"), step{fail: tooLong}, step{fail: tooLong})
		_, err := newTestAgent(t, cfg).Run(context.Background(), run, (&recorder{}).record)
		var ae *Error
		if !errors.As(err, &ae) || ae.Code != CodeContextExceeded || !ae.Permanent || !strings.Contains(ae.Message, "maximum context length is 8192") {
			t.Fatalf("err = %v, want a permanent %s with the provider's words", err, CodeContextExceeded)
		}
	})
}

// On the run's last attempt, a provider that keeps failing ends it with its
// work kept; on an earlier attempt the failure is returned, to be retried.
func TestRunLastAttemptKeepsWork(t *testing.T) {
	down := func(w http.ResponseWriter) { w.WriteHeader(503); w.Write([]byte(`{"error":{"message":"overloaded"}}`)) }
	t.Run("last attempt", func(t *testing.T) {
		gh, _, cfg, run := onGitHub(t, writeFAQ, step{fail: down}, step{fail: down})
		cfg.RetryAttempts = 2
		run.LastAttempt = true
		res, err := newTestAgent(t, cfg).Run(context.Background(), run, (&recorder{}).record)
		checkStopped(t, gh, res, err, "the model provider kept failing, and this was the run's last attempt.")
	})
	t.Run("an earlier attempt", func(t *testing.T) {
		gh, _, cfg, run := onGitHub(t, writeFAQ, step{fail: down}, step{fail: down})
		cfg.RetryAttempts = 2
		_, err := newTestAgent(t, cfg).Run(context.Background(), run, (&recorder{}).record)
		var ae *Error
		if !errors.As(err, &ae) || ae.Code != "model_unavailable" || ae.Permanent || len(gh.Pulls()) != 0 {
			t.Fatalf("err = %v, pulls %v; want a transient model_unavailable and no pull request", err, gh.Pulls())
		}
	})
}

// withTimeLimit gives run a time limit from now, as the jobs worker does.
func withTimeLimit(run Run, limit time.Duration) Run {
	run.Deadline, run.TimeLimit = time.Now().Add(limit), limit
	return run
}

// A run that reaches its time limit stops calling the model and keeps what
// it changed, within the context it was given (which outlives the
// deadline), whether the model stalls at the deadline or keeps calling
// tools. A run that changed nothing fails with timeout, and a cancel still
// stops a run, its work lost as before.
func TestRunTimeLimitKeepsWork(t *testing.T) {
	const limit = 3 * time.Second
	stall := step{delay: time.Hour}
	t.Run("model stalls", func(t *testing.T) {
		t.Parallel()
		gh, m, cfg, run := onGitHub(t, writeFAQ, stall)
		started := time.Now()
		res, err := newTestAgent(t, cfg).Run(context.Background(), withTimeLimit(run, limit), (&recorder{}).record)
		checkStopped(t, gh, res, err, "the run reached its time limit of 3s.")
		if took := time.Since(started); took < limit || took > limit+10*time.Second || m.count() != 2 {
			t.Fatalf("run took %s after %d requests; want it stopped at the deadline of %s during the second", took, m.count(), limit)
		}
	})
	t.Run("model keeps calling tools", func(t *testing.T) {
		t.Parallel()
		steps := []step{writeFAQ}
		for i := range 200 {
			s := listing(fmt.Sprintf("l%d", i))
			s.delay = 50 * time.Millisecond
			steps = append(steps, s)
		}
		gh, m, cfg, run := onGitHub(t, steps...)
		cfg.MaxSteps = 1000
		rec := &recorder{}
		res, err := newTestAgent(t, cfg).Run(context.Background(), withTimeLimit(run, limit), rec.record)
		checkStopped(t, gh, res, err, "the run reached its time limit of 3s.")
		if n := m.count(); n < 5 || n > 100 {
			t.Fatalf("%d requests; want the run stopped by the clock", n)
		}
		// The model was warned as the time ran short, and every call it
		// asked for was answered.
		warned := notes(rec.all())
		if len(warned) != 1 || !strings.Contains(warned[0], "close to its limit: about ") || !strings.Contains(warned[0], " is left of its time limit of 3s") {
			t.Fatalf("notes = %q, want one warning of the time left", warned)
		}
		if open := unanswered(rec.all()); len(open) != 0 {
			t.Fatalf("calls left unanswered: %v", open)
		}
	})
	t.Run("nothing changed", func(t *testing.T) {
		t.Parallel()
		gh, _, cfg, run := onGitHub(t, listing("l1"), stall)
		_, err := newTestAgent(t, cfg).Run(context.Background(), withTimeLimit(run, time.Second), (&recorder{}).record)
		var ae *Error
		if !errors.As(err, &ae) || ae.Code != CodeTimeout || !ae.Permanent || ae.Message != "The agent run exceeded its time limit of 1s." || len(gh.Pulls()) != 0 {
			t.Fatalf("err = %v, pulls %v; want a timeout and no pull request", err, gh.Pulls())
		}
	})
	t.Run("cancelled", func(t *testing.T) {
		t.Parallel()
		gh, m, cfg, run := onGitHub(t, writeFAQ, stall)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		go func() {
			for m.count() < 2 { // the model is stalling on its second request
				time.Sleep(10 * time.Millisecond)
			}
			cancel()
		}()
		_, err := newTestAgent(t, cfg).Run(ctx, withTimeLimit(run, time.Minute), (&recorder{}).record)
		if !errors.Is(err, context.Canceled) || len(gh.Pulls()) != 0 {
			t.Fatalf("err = %v, pulls %v; want the cancel and no pull request", err, gh.Pulls())
		}
	})
}

// A reply cut off at the output limit is not kept: the model is told, and
// asked again once with twice the limit. Cut again, its calls do not run
// and the model is told why.
func TestRunCutReply(t *testing.T) {
	partial := step{cut: true, calls: []ToolCall{{ID: "p1", Name: "write_file", Arguments: []byte(`"{\"path\":\"faq.mdx\",\"content\":\"---\\ntit"`)}}}
	for _, tc := range []struct {
		name   string
		server func(t testing.TB, steps ...step) *scriptedModel
		config func(*scriptedModel) Config
	}{
		{"openai", newOpenAIServer, openAIConfig},
		{"anthropic", newAnthropicServer, func(m *scriptedModel) Config {
			return Config{Provider: "anthropic", AnthropicBaseURL: m.server.URL, AnthropicAPIKey: "sk-ant-test"}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			repo := newTestRepo(t, nil)
			m := tc.server(t, partial, writeFAQ, partial, step{text: "Wrote the FAQ."})
			rec := &recorder{}
			res, err := newTestAgent(t, tc.config(m)).Run(context.Background(), localRun(repo, "jc", "Add an FAQ"), rec.record)
			if err != nil || !res.Changed || res.Steps != 5 {
				t.Fatalf("result %+v, %v; want the FAQ committed after 5 calls (the last after Folio's review)", res, err)
			}
			limits := []float64{}
			for _, r := range m.requests {
				limits = append(limits, r["max_tokens"].(float64))
			}
			if want := []float64{16000, 32000, 32000, 32000, 32000}; !equalFloats(limits, want) {
				t.Fatalf("max_tokens sent %v, want %v", limits, want)
			}
			// Recorded: the note in place of the first cut reply; the
			// second cut reply with its call answered, not run.
			var shape []string
			for _, msg := range rec.all() {
				shape = append(shape, msg.Role+":"+headline(msg.Content, 30))
			}
			want := []string{
				"user:[Folio] Your last reply was c…",
				"assistant:", "tool:wrote faq.mdx (30 bytes)",
				"assistant:", "tool:not run: your reply was cut o…",
				"assistant:Wrote the FAQ.",
				"user:[Folio] Before you finish, re…", "assistant:Wrote the FAQ.",
			}
			if strings.Join(shape, "|") != strings.Join(want, "|") {
				t.Fatalf("recorded\n%s\nwant\n%s", strings.Join(shape, "\n"), strings.Join(want, "\n"))
			}
			if got := rec.all()[4].Content; !strings.Contains(got, "output limit (32000 tokens)") {
				t.Fatalf("the cut call's answer = %q", got)
			}
			if got := rec.all()[0].Content; !strings.Contains(got, "output limit (16000 tokens)") {
				t.Fatalf("the note = %q", got)
			}
		})
	}
	t.Run("the larger limit refused", func(t *testing.T) {
		repo := newTestRepo(t, nil)
		tooLarge := func(w http.ResponseWriter) {
			w.WriteHeader(400)
			w.Write([]byte(`{"error":{"message":"max_tokens is too large: 32000. This model supports at most 16384 completion tokens, whereas you provided 32000.","type":"invalid_request_error","param":"max_tokens","code":"invalid_value"}}`))
		}
		m := newOpenAIServer(t, partial, step{fail: tooLarge}, writeFAQ, step{text: "Wrote the FAQ."})
		res, err := newTestAgent(t, openAIConfig(m)).Run(context.Background(), localRun(repo, "jd", "Add an FAQ"), (&recorder{}).record)
		if err != nil || !res.Changed {
			t.Fatalf("result %+v, %v; want the FAQ committed", res, err)
		}
		limits := []float64{}
		for _, r := range m.requests {
			limits = append(limits, r["max_tokens"].(float64))
		}
		if want := []float64{16000, 32000, 16000, 16000, 16000}; !equalFloats(limits, want) {
			t.Fatalf("max_tokens sent %v, want %v", limits, want)
		}
	})
}

func equalFloats(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// Every reply records what its call used, and the run adds them up:
// Anthropic's cache reads and writes are part of the input.
func TestRunRecordsUsage(t *testing.T) {
	repo := newTestRepo(t, nil)
	m := newAnthropicServer(t,
		step{cacheWrite: 150, calls: []ToolCall{call("u1", "list_files", nil)}},
		step{cached: 150, cacheWrite: 30, text: "Nothing to change."},
	)
	rec := &recorder{}
	prices, err := ParsePrices("gpt-test=3/15/0.3/3.75, other=1/1/1")
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{Provider: "anthropic", AnthropicBaseURL: m.server.URL, AnthropicAPIKey: "sk-ant-test", Prices: prices}
	res, err := newTestAgent(t, cfg).Run(context.Background(), localRun(repo, "ju", "Check"), rec.record)
	if err != nil {
		t.Fatal(err)
	}
	want := Usage{Input: 400, Cached: 150, CacheWrite: 180, Output: 60}
	if res.Usage != want || res.Tokens != 460 || res.LargestRequest != 200 {
		t.Fatalf("result usage %+v, tokens %d, largest %d; want %+v, 460, 200", res.Usage, res.Tokens, res.LargestRequest, want)
	}
	// 70 plain input tokens at $3 a million, 150 read from the cache at
	// $0.30, 180 written at $3.75, 60 output at $15: 1,830 millionths.
	if res.CostMicros == nil || *res.CostMicros != 1830 {
		t.Fatalf("cost = %v, want 1830 millionths of a dollar", res.CostMicros)
	}
	msgs := rec.all()
	if u := msgs[0].Usage; u == nil || *u != (Usage{Input: 200, CacheWrite: 150, Output: 30}) {
		t.Fatalf("first reply's usage = %+v", u)
	}
	if u := msgs[2].Usage; u == nil || *u != (Usage{Input: 200, Cached: 150, CacheWrite: 30, Output: 30}) {
		t.Fatalf("second reply's usage = %+v", u)
	}
	if msgs[1].Usage != nil {
		t.Fatalf("a tool's result has usage %+v", msgs[1].Usage)
	}
}

// A model without a price has no cost; a failed run is priced too.
func TestRunCostUnknownWithoutPrice(t *testing.T) {
	repo := newTestRepo(t, nil)
	m := newOpenAIServer(t, step{text: "Nothing to change."})
	cfg := openAIConfig(m)
	cfg.Prices = map[string]Price{"gpt-other": {Input: 1}}
	res, err := newTestAgent(t, cfg).Run(context.Background(), localRun(repo, "jn", "Check"), (&recorder{}).record)
	if err != nil || res.CostMicros != nil {
		t.Fatalf("cost %v, %v; want none", res.CostMicros, err)
	}
	m = newOpenAIServer(t, listing("l1"), listing("l2"))
	cfg = openAIConfig(m)
	cfg.MaxSteps, cfg.Prices = 1, map[string]Price{"gpt-test": {Input: 2, Output: 10}}
	res, err = newTestAgent(t, cfg).Run(context.Background(), localRun(repo, "jf", "Check"), (&recorder{}).record)
	if err == nil || res.CostMicros == nil || *res.CostMicros != 400 {
		t.Fatalf("cost %v, %v; want the failed run's 100 input and 20 output tokens priced: 400", res.CostMicros, err)
	}
}

func TestParsePrices(t *testing.T) {
	got, err := ParsePrices(" gpt-4.1=2/8/0.5 ; claude-sonnet-4-5 = 3/15/0.3/3.75,")
	want := map[string]Price{"gpt-4.1": {Input: 2, Cached: 0.5, Output: 8, CacheWrite: 2}, "claude-sonnet-4-5": {Input: 3, Cached: 0.3, Output: 15, CacheWrite: 3.75}}
	if err != nil || len(got) != 2 || got["gpt-4.1"] != want["gpt-4.1"] || got["claude-sonnet-4-5"] != want["claude-sonnet-4-5"] {
		t.Fatalf("ParsePrices = %v, %v; want %v", got, err, want)
	}
	if got, err := ParsePrices(""); err != nil || len(got) != 0 {
		t.Fatalf("ParsePrices(\"\") = %v, %v", got, err)
	}
	for _, bad := range []string{"gpt-4.1", "=1/2/3", "m=1/2", "m=1/2/3/4/5", "m=1/x/3", "m=-1/0/0", "m=1/1/1,m=2/2/2", "m=NaN/1/1"} {
		if _, err := ParsePrices(bad); err == nil {
			t.Errorf("ParsePrices(%q) passed", bad)
		}
	}
}
