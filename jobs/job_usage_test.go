package jobs_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/folio-docs/folio/agent"
	"github.com/folio-docs/folio/jobs"
	"github.com/folio-docs/folio/model"
)

// used is a run that records one reply with u and reports u, costing cost
// millionths of a dollar (nil: not known).
func used(u agent.Usage, cost *int64) step {
	return func(ctx context.Context, run agent.Run, record agent.Recorder) (agent.Result, error) {
		if err := record(ctx, agent.Message{Role: agent.RoleAssistant, Content: "Done.", Usage: &u}); err != nil {
			return agent.Result{}, err
		}
		return agent.Result{Steps: 1, Tokens: u.Input + u.Output, Usage: u, LargestRequest: u.Input, CostMicros: cost}, nil
	}
}

func micros(n int64) *int64 { return &n }

// A job's usage adds up its runs: tokens split into input (cache reads and
// writes among them) and output, and a cost in dollars while every run had
// a price. A follow-up's run is told what the job used before it.
func TestJobUsageAddsUpItsRuns(t *testing.T) {
	w := newWorld(t, jobs.Config{})
	w.startWorker()
	ctx := context.Background()
	j := w.create("one")
	view := func() jobs.Usage {
		t.Helper()
		v, err := w.svc.Show(ctx, w.project.ID, j.ID)
		if err != nil {
			t.Fatal(err)
		}
		return v.Usage
	}
	if u := view(); u.CostUSD == nil || *u.CostUSD != 0 || u.Tokens != 0 {
		t.Fatalf("a new job's usage = %+v, want nothing used and a cost of 0", u)
	}
	if run := w.runner.waitRun(t); run.TokensUsed != 0 || run.LastAttempt {
		t.Fatalf("first run told %d tokens used, last attempt %v", run.TokensUsed, run.LastAttempt)
	}
	w.runner.then(used(agent.Usage{Input: 1000, Cached: 600, CacheWrite: 100, Output: 50}, micros(1830)))
	w.waitStatus(j.ID, model.JobCompleted)
	u := view()
	if u.Steps != 1 || u.Tokens != 1050 || u.InputTokens != 1000 || u.CachedTokens != 600 || u.CacheWriteTokens != 100 || u.OutputTokens != 50 ||
		u.CostUSD == nil || *u.CostUSD != 0.00183 {
		t.Fatalf("usage after a run = %+v (cost %v)", u, u.CostUSD)
	}

	// A priced follow-up adds; the run knew the job's tokens so far.
	if _, err := w.svc.Message(ctx, w.project.ID, j.ID, "two"); err != nil {
		t.Fatal(err)
	}
	if run := w.runner.waitRun(t); run.TokensUsed != 1050 {
		t.Fatalf("the follow-up's run was told %d tokens used, want 1050", run.TokensUsed)
	}
	w.runner.then(used(agent.Usage{Input: 2000, Cached: 1500, Output: 100}, micros(2000)))
	w.waitStatus(j.ID, model.JobCompleted)
	if u := view(); u.Tokens != 3150 || u.InputTokens != 3000 || u.CachedTokens != 2100 || u.CostUSD == nil || *u.CostUSD != 0.00383 {
		t.Fatalf("usage after two runs = %+v (cost %v)", u, u.CostUSD)
	}

	// A run without a price makes the cost unknown, for good.
	for i, cost := range []*int64{nil, micros(5)} {
		if _, err := w.svc.Message(ctx, w.project.ID, j.ID, "more"); err != nil {
			t.Fatal(err)
		}
		w.runner.waitRun(t)
		w.runner.then(used(agent.Usage{Input: 10, Output: 1}, cost))
		w.waitStatus(j.ID, model.JobCompleted)
		if u := view(); u.CostUSD != nil || u.Tokens != 3150+11*int64(i+1) {
			t.Fatalf("usage = %+v, want %d tokens and the cost unknown", u, 3150+11*(i+1))
		}
	}

	// Each reply's usage is in the conversation.
	msgs, err := w.svc.Messages(ctx, w.project.ID, j.ID)
	if err != nil {
		t.Fatal(err)
	}
	var first agent.Usage
	if msgs[1].Role != agent.RoleAssistant || json.Unmarshal(msgs[1].Usage, &first) != nil || first != (agent.Usage{Input: 1000, Cached: 600, CacheWrite: 100, Output: 50}) {
		t.Fatalf("the first reply = %+v (usage %s)", msgs[1], msgs[1].Usage)
	}
	if msgs[0].Usage != nil {
		t.Fatalf("a prompt has usage %s", msgs[0].Usage)
	}
	b, _ := json.Marshal(msgs[1])
	var shown map[string]any
	json.Unmarshal(b, &shown)
	if got, _ := json.Marshal(shown["usage"]); string(got) != `{"cacheWriteTokens":100,"cachedTokens":600,"inputTokens":1000,"outputTokens":50}` {
		t.Fatalf("the reply's usage in the API = %s", got)
	}
}
