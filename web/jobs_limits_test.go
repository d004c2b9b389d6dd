package main

import (
	"strings"
	"testing"
	"time"

	"github.com/folio-docs/folio/internal/testenv"
)

// A job that reaches its token cap keeps its work: through the API, the
// real agent and a fake GitHub, the page it wrote is pushed and opened as
// a draft pull request, the job completes saying it stopped early, and its
// usage is counted and priced. A follow-up once the cap is spent fails
// without calling the model, and the pull request stays.
func TestJobAtItsTokenCapEndsAsADraftPullRequest(t *testing.T) {
	t.Parallel()
	gh := testenv.NewFakeGitHub(t, docsSite)
	m := testenv.NewModelServer(t, func(ms []testenv.ChatMessage) testenv.ModelReply {
		for _, msg := range ms {
			if msg.Role == "tool" {
				// The page is written: from here on it only looks around,
				// and would never stop by itself.
				return testenv.ModelReply{Calls: []testenv.ModelCall{{Name: "list_files", Args: map[string]string{}}}}
			}
		}
		return testenv.ModelReply{Calls: []testenv.ModelCall{{Name: "write_file", Args: map[string]string{
			"path": "keys.mdx", "content": "---\ntitle: Keys\n---\n\nHow keys work.\n"}}}}
	})
	// 120 tokens a call (100 in, 20 out): the third call passes 300.
	s := newTestServer(t, withEnv(map[string]string{"FOLIO_AGENT_JOB_TOKENS": "300", "FOLIO_MODEL_PRICES": "test-model=2/10/0.5"}),
		withGitHub(t, gh), withModel(t, m))

	var created jobJSON
	s.expect(201, "POST", "/v2/agent/{p}/job", `{"prompt":"Document API keys."}`, &created)
	done := s.pollJob(created.ID)
	stoppedAsDraft(t, gh, done, "the job used 360 tokens over all its turns, over its cap of 300.")

	// Usage: three calls, split and priced (300 input at $2 a million, 60
	// output at $10: $0.0012).
	var j map[string]any
	s.expect(200, "GET", "/v2/agent/{p}/job/"+created.ID, "", &j)
	usage := j["usage"].(map[string]any)
	for k, want := range map[string]float64{"steps": 3, "tokens": 360, "inputTokens": 300, "outputTokens": 60, "cachedTokens": 0, "cacheWriteTokens": 0, "costUsd": 0.0012} {
		if usage[k] != want {
			t.Errorf("usage.%s = %v, want %v", k, usage[k], want)
		}
	}
	// The conversation: each reply with its call's usage, and the warning
	// the model had before the last call.
	var msgs struct {
		Messages []struct {
			Role, Content string
			Usage         map[string]float64
		}
	}
	s.expect(200, "GET", "/v2/agent/{p}/job/"+created.ID+"/messages", "", &msgs)
	replies, warned := 0, false
	for _, msg := range msgs.Messages {
		if msg.Role == "assistant" {
			replies++
			if msg.Usage["inputTokens"] != 100 || msg.Usage["outputTokens"] != 20 {
				t.Errorf("a reply's usage = %v", msg.Usage)
			}
		}
		warned = warned || msg.Role == "user" && strings.HasPrefix(msg.Content, "[Folio] This run is close to its limit: the job has used 240 of the 300 tokens")
	}
	if replies != 3 || !warned {
		t.Fatalf("%d replies, warned %v; want 3 and a warning:\n%+v", replies, warned, msgs.Messages)
	}

	// The job page says it too.
	_, page := s.get(t, s.signedIn(t), "/projects/"+s.project.ID+"/jobs/"+created.ID)
	if !strings.Contains(page, "3 model calls, 360 tokens, $0.0012") || !strings.Contains(page, "The agent stopped before it finished") {
		t.Errorf("the job page lacks its usage or the stop:\n%s", page)
	}

	// The cap is spent: a follow-up fails at once, the pull request kept.
	calls := m.Calls()
	s.expect(200, "POST", "/v2/agent/{p}/job/"+created.ID+"/message", `{"prompt":"Add an example."}`, nil)
	again := s.pollJob(created.ID)
	if again.Status != "failed" || again.Error == nil || again.Error.Code != "budget_exceeded" || again.PRLink == nil || m.Calls() != calls {
		t.Fatalf("follow-up ended %+v (error %+v) after %d more model calls; want failed with budget_exceeded, none, and the link kept", again, again.Error, m.Calls()-calls)
	}
}

// A job that reaches FOLIO_JOB_TIMEOUT keeps its work like one at a token
// cap: through the API, the real agent and a fake GitHub, the model writes
// a page and then stalls; at the time limit Folio stops waiting for it,
// pushes the page and opens it as a draft pull request, and the job
// completes saying it stopped at the time limit.
func TestJobAtItsTimeLimitEndsAsADraftPullRequest(t *testing.T) {
	t.Parallel()
	gh := testenv.NewFakeGitHub(t, docsSite)
	stalled := make(chan struct{})
	m := testenv.NewModelServer(t, func(ms []testenv.ChatMessage) testenv.ModelReply {
		for _, msg := range ms {
			if msg.Role == "tool" {
				<-stalled // the page is written: the model never answers again
				return testenv.ModelReply{Text: "Too late."}
			}
		}
		return testenv.ModelReply{Calls: []testenv.ModelCall{{Name: "write_file", Args: map[string]string{
			"path": "keys.mdx", "content": "---\ntitle: Keys\n---\n\nHow keys work.\n"}}}}
	})
	t.Cleanup(func() { close(stalled) }) // before the model server closes
	s := newTestServer(t, withEnv(map[string]string{"FOLIO_JOB_TIMEOUT": "4s"}), withGitHub(t, gh), withModel(t, m))

	var created jobJSON
	asked := time.Now()
	s.expect(201, "POST", "/v2/agent/{p}/job", `{"prompt":"Document API keys."}`, &created)
	done := s.pollJob(created.ID)
	if took := time.Since(asked); took < 4*time.Second || m.Calls() != 2 {
		t.Fatalf("the job ended after %s and %d model calls; want the second call cut at the 4s limit", took, m.Calls())
	}
	stoppedAsDraft(t, gh, done, "the run reached its time limit of 4s.")
}

// stoppedAsDraft checks a job that a limit stopped after it wrote
// keys.mdx: completed with pull request #1 and no error, its summary and
// its last problem saying why it stopped, and the page pushed and opened
// as one draft pull request that says so.
func stoppedAsDraft(t *testing.T, gh *testenv.FakeGitHub, done jobJSON, why string) {
	t.Helper()
	if done.Status != "completed" || done.PRLink == nil || *done.PRLink != "https://github.com/acme/docs/pull/1" || done.Error != nil {
		t.Fatalf("job ended %+v (error %+v), want completed with pull request #1", done, done.Error)
	}
	if done.Summary == nil || !strings.HasPrefix(*done.Summary, "Folio stopped the agent before it finished: "+why) {
		t.Fatalf("summary = %v, want it to say the agent stopped: %s", done.Summary, why)
	}
	last := done.Problems[len(done.Problems)-1]
	if last["severity"] != "error" || last["message"] != "The agent stopped before it finished: "+why {
		t.Fatalf("problems = %v, want the stop last", done.Problems)
	}
	pulls := gh.Pulls()
	if len(pulls) != 1 || !pulls[0].Draft || !strings.Contains(pulls[0].Body, "## Stopped before finishing") || !strings.Contains(pulls[0].Body, why) {
		t.Fatalf("pull requests = %+v, want one draft saying it stopped: %s", pulls, why)
	}
	if got := git(t, gh.Bare, "show", "folio/"+done.ID+":keys.mdx"); !strings.Contains(got, "How keys work.") {
		t.Fatalf("the branch holds keys.mdx:\n%s", got)
	}
}
