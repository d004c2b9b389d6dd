package agent

import (
	"context"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/folio-docs/folio/codehost/local"
)

// A job end to end on the local host: a page edited, the branch pushed, the
// review page as prLink; a follow-up adds a commit to the same branch and
// keeps the link; the branch then merges into main.
func TestRunLocalEndToEnd(t *testing.T) {
	repo := newTestRepo(t, nil)
	model := newOpenAIServer(t,
		step{calls: []ToolCall{call("c1", "read_file", map[string]string{"path": "guides/quickstart.mdx"})}},
		step{calls: []ToolCall{call("c2", "edit_file", map[string]string{"path": "guides/quickstart.mdx", "old_string": "Install the CLI.", "new_string": "Install the CLI with `brew install acme`."})}},
		step{text: "Added the Homebrew command to the quickstart."},
	)
	a := newTestAgent(t, openAIConfig(model))
	rec := &recorder{}
	run := localRun(repo, "job1", "Mention Homebrew in the quickstart")
	res, err := a.Run(context.Background(), run, rec.record)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	wantLink := "http://folio.test/projects/proj1/jobs/job1/changes"
	if res.PRLink != wantLink || !res.Changed || res.Steps != 4 || res.Tokens != 480 || res.Summary != "Added the Homebrew command to the quickstart." {
		t.Fatalf("result = %+v, want link %s, changed, 4 steps (the last after the review), 480 tokens, the summary", res, wantLink)
	}
	if got := gitT(t, repo, "show", "folio/job1:guides/quickstart.mdx"); !strings.Contains(got, "brew install acme") {
		t.Fatalf("branch folio/job1 has quickstart:\n%s", got)
	}
	if got := gitT(t, repo, "show", "main:guides/quickstart.mdx"); strings.Contains(got, "brew") {
		t.Fatal("main changed before the merge")
	}
	if subject := gitT(t, repo, "log", "-1", "--format=%s", "folio/job1"); subject != "docs: Mention Homebrew in the quickstart" {
		t.Fatalf("commit subject = %q", subject)
	}
	// The conversation recorded: assistant, tool, assistant, tool, assistant,
	// then Folio's review of the branch's diff and the model's answer.
	msgs := rec.all()
	roles := []string{}
	for _, m := range msgs {
		roles = append(roles, m.Role)
	}
	if strings.Join(roles, ",") != "assistant,tool,assistant,tool,assistant,user,assistant" {
		t.Fatalf("recorded roles = %v", roles)
	}
	for _, want := range []string{reviewNote + ": its diff against main", "Checks: no problems.", "<diff>\n guides/quickstart.mdx | 2 +-\n", "-Install the CLI.\n+Install the CLI with `brew install acme`.\n</diff>"} {
		if !strings.Contains(msgs[5].Content, want) {
			t.Errorf("the review lacks %q:\n%s", want, msgs[5].Content)
		}
	}
	if !strings.Contains(msgs[1].Content, "Install the CLI.") || msgs[1].ToolCallID != "c1" || msgs[1].IsError {
		t.Fatalf("read_file result = %+v", msgs[1])
	}
	// The system prompt carries AGENTS.md; tools are offered.
	req := model.lastRequest()
	sys := req["messages"].([]any)[0].(map[string]any)["content"].(string)
	if !strings.Contains(sys, "Never use the word simply") {
		t.Fatalf("system prompt lacks AGENTS.md:\n%s", sys)
	}
	// It outlines the site: the navigation and the page count.
	if !strings.Contains(sys, "<site>\ndocs.json: 3 pages") || !strings.Contains(sys, "- group \"Start\": index, guides/quickstart\n</site>") {
		t.Fatalf("system prompt lacks the site's outline:\n%s", sys)
	}
	if n := len(req["tools"].([]any)); n != 7 {
		t.Fatalf("%d tools offered, want 7", n)
	}
	if req["max_tokens"] != float64(DefaultMaxOutputTokens) {
		t.Fatalf("max_tokens = %v, want the reply's limit %d", req["max_tokens"], DefaultMaxOutputTokens)
	}
	// No workspace is left behind.
	if left, _ := os.ReadDir(filepath.Join(a.cfg.DataDir, "workspaces")); len(left) != 0 {
		t.Fatalf("workspaces left: %v", left)
	}

	// Follow-up: continues on the branch with the whole conversation.
	first := gitT(t, repo, "rev-parse", "folio/job1")
	model.steps = []step{
		{calls: []ToolCall{call("c3", "write_file", map[string]string{"path": "guides/upgrade.mdx", "content": "---\ntitle: Upgrade\n---\n\nSee the [quickstart](./quickstart).\n"})}},
		{calls: []ToolCall{call("c4", "edit_file", map[string]string{"path": "docs.json", "old_string": `"guides/quickstart"]`, "new_string": `"guides/quickstart","guides/upgrade"]`})}},
		{text: "Added an upgrade page."},
	}
	run.PRLink = res.PRLink
	run.History = append(append(run.History, msgs...), Message{Role: RoleUser, Content: "Add an upgrade page"})
	res2, err := a.Run(context.Background(), run, rec.record)
	if err != nil {
		t.Fatalf("follow-up Run: %v", err)
	}
	if res2.PRLink != wantLink || !res2.Changed {
		t.Fatalf("follow-up result = %+v", res2)
	}
	if parent := gitT(t, repo, "rev-parse", "folio/job1^"); parent != first {
		t.Fatalf("follow-up commit's parent = %s, want the first run's commit %s", parent, first)
	}
	// The follow-up's review shows the whole branch: the first turn's change too.
	if review := rec.all()[len(rec.all())-2]; !strings.Contains(review.Content, "+Install the CLI with `brew install acme`.") || !strings.Contains(review.Content, "+++ b/guides/upgrade.mdx") {
		t.Errorf("the follow-up's review does not show the branch's whole diff:\n%s", review.Content)
	}
	if prompts := userPrompts(rec.all()); len(prompts) != 0 {
		t.Errorf("Folio's reviews taken for prompts: %q", prompts)
	}
	// The follow-up carries the first turn compacted: its prompt and the
	// agent's summary, then a note of what it changed, then the new prompt.
	sent := model.requests[len(model.requests)-4]["messages"].([]any)
	var shape []string
	for _, m := range sent {
		m := m.(map[string]any)
		content, _ := m["content"].(string)
		shape = append(shape, m["role"].(string)+": "+headline(content, 40))
	}
	want := []string{
		"system: You are Folio, a careful technical writ…",
		"user: Mention Homebrew in the quickstart",
		"assistant: Added the Homebrew command to the quick…",
		"user: [Folio] The earlier turns are shown wit…",
		"user: Add an upgrade page",
	}
	if strings.Join(shape, "\n") != strings.Join(want, "\n") {
		t.Fatalf("follow-up sent\n%s\nwant\n%s", strings.Join(shape, "\n"), strings.Join(want, "\n"))
	}
	if note := sent[3].(map[string]any)["content"].(string); !strings.HasSuffix(note, "\n- edit_file guides/quickstart.mdx") {
		t.Fatalf("the note of the earlier turns says:\n%s", note)
	}

	diff, err := local.Diff(context.Background(), repo, "main", "folio/job1")
	if err != nil || !strings.Contains(diff, "+Install the CLI with `brew install acme`.") || !strings.Contains(diff, "guides/upgrade.mdx") {
		t.Fatalf("Diff = %v\n%s", err, diff)
	}
	merged, err := local.Merge(context.Background(), repo, "main", "folio/job1")
	if err != nil || !merged.FastForward {
		t.Fatalf("Merge = %+v, %v; want a fast-forward", merged, err)
	}
	if got := gitT(t, repo, "show", "main:guides/upgrade.mdx"); !strings.Contains(got, "title: Upgrade") {
		t.Fatalf("main after merge lacks the upgrade page: %s", got)
	}
}

// Problems found by validation go back to the model; what it leaves is
// reported in the pull request body.
func TestRunValidationRounds(t *testing.T) {
	repo := newTestRepo(t, nil)
	model := newOpenAIServer(t,
		step{calls: []ToolCall{call("c1", "write_file", map[string]string{"path": "guides/faq.mdx", "content": "---\ntitle: [FAQ\n---\n\nSee [setup](/guides/setup).\n"})}},
		step{text: "Wrote the FAQ."},
		step{calls: []ToolCall{call("c2", "write_file", map[string]string{"path": "guides/faq.mdx", "content": "---\ntitle: FAQ\n---\n\nSee [the quickstart](/guides/quickstart).\n"})}},
		step{text: "Fixed the FAQ."},
	)
	a := newTestAgent(t, openAIConfig(model))
	rec := &recorder{}
	if _, err := a.Run(context.Background(), localRun(repo, "job2", "Write an FAQ"), rec.record); err != nil {
		t.Fatal(err)
	}
	var note string
	for _, m := range rec.all() {
		if m.Role == RoleUser {
			note = m.Content
		}
	}
	for _, want := range []string{"guides/faq.mdx:2: the frontmatter is not valid YAML", `link "/guides/setup" points at a page that does not exist`} {
		if !strings.Contains(note, want) {
			t.Errorf("validation note lacks %q:\n%s", want, note)
		}
	}
	if got := gitT(t, repo, "show", "folio/job2:guides/faq.mdx"); !strings.Contains(got, "title: FAQ") {
		t.Fatalf("the fixed page did not arrive: %s", got)
	}
}

func TestRunConfigMissing(t *testing.T) {
	repo := newTestRepo(t, nil)
	cases := []struct {
		name string
		cfg  Config
		repo string
		want string
	}{
		{"openai key", Config{Provider: "openai", OpenAIBaseURL: "https://api.openai.com/v1"}, repo, "FOLIO_OPENAI_API_KEY"},
		{"anthropic key", Config{Provider: "anthropic", AnthropicBaseURL: "https://api.anthropic.com"}, repo, "FOLIO_ANTHROPIC_API_KEY"},
		{"github token", Config{Provider: "openai", OpenAIBaseURL: "http://127.0.0.1:1/v1"}, "acme/docs", "FOLIO_GITHUB_TOKEN"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a := newTestAgent(t, tc.cfg)
			_, err := a.Run(context.Background(), localRun(tc.repo, "j", "x"), (&recorder{}).record)
			var ae *Error
			if !errors.As(err, &ae) || ae.Code != "config_missing" || !ae.Permanent || !strings.Contains(ae.Message, tc.want) {
				t.Fatalf("err = %v, want a permanent config_missing naming %s", err, tc.want)
			}
		})
	}
}

func TestRunProviderErrors(t *testing.T) {
	repo := newTestRepo(t, nil)
	t.Run("bad key fails at once with the provider's message", func(t *testing.T) {
		model := newOpenAIServer(t)
		cfg := openAIConfig(model)
		cfg.OpenAIAPIKey = "wrong"
		_, err := newTestAgent(t, cfg).Run(context.Background(), localRun(repo, "j1", "x"), (&recorder{}).record)
		var ae *Error
		if !errors.As(err, &ae) || !ae.Permanent || ae.Code != "model_error" || !strings.Contains(ae.Message, "Incorrect API key provided.") {
			t.Fatalf("err = %v, want permanent model_error with the provider's message", err)
		}
	})
	t.Run("429 and 503 are retried, honouring Retry-After", func(t *testing.T) {
		model := newOpenAIServer(t, step{text: "Nothing to change."})
		model.fail = []func(http.ResponseWriter){
			func(w http.ResponseWriter) {
				w.Header().Set("Retry-After", "7")
				w.WriteHeader(429)
				w.Write([]byte(`{"error":{"message":"Rate limit reached","type":"requests"}}`))
			},
			func(w http.ResponseWriter) { w.WriteHeader(503); w.Write([]byte(`{"error":{"message":"overloaded"}}`)) },
		}
		a := newTestAgent(t, openAIConfig(model))
		var waits []time.Duration
		a.retry.sleep = func(_ context.Context, d time.Duration) error { waits = append(waits, d); return nil }
		res, err := a.Run(context.Background(), localRun(repo, "j2", "x"), (&recorder{}).record)
		if err != nil {
			t.Fatal(err)
		}
		if len(waits) != 2 || waits[0] != 7*time.Second {
			t.Fatalf("waits = %v, want 2 with the first 7s from Retry-After", waits)
		}
		if res.Changed || res.PRLink != "" || res.Steps != 1 {
			t.Fatalf("result = %+v, want no change and no link", res)
		}
	})
	t.Run("step limit", func(t *testing.T) {
		var steps []step
		for i := range 5 {
			steps = append(steps, step{calls: []ToolCall{call("c"+string(rune('a'+i)), "list_files", nil)}})
		}
		model := newOpenAIServer(t, steps...)
		cfg := openAIConfig(model)
		cfg.MaxSteps = 3
		res, err := newTestAgent(t, cfg).Run(context.Background(), localRun(repo, "j3", "x"), (&recorder{}).record)
		var ae *Error
		if !errors.As(err, &ae) || ae.Code != "budget_exceeded" || res.Steps != 3 {
			t.Fatalf("err = %v, steps %d; want budget_exceeded after 3", err, res.Steps)
		}
	})
	t.Run("token budget", func(t *testing.T) {
		model := newOpenAIServer(t, step{calls: []ToolCall{call("c1", "list_files", nil)}}, step{calls: []ToolCall{call("c2", "list_files", nil)}})
		cfg := openAIConfig(model)
		cfg.MaxTokens = 200
		res, err := newTestAgent(t, cfg).Run(context.Background(), localRun(repo, "j4", "x"), (&recorder{}).record)
		var ae *Error
		if !errors.As(err, &ae) || ae.Code != "budget_exceeded" || res.Tokens != 240 {
			t.Fatalf("err = %v, tokens %d; want budget_exceeded at 240", err, res.Tokens)
		}
	})
}

// The Anthropic Messages API: tool_use and tool_result blocks, alternating turns.
func TestRunAnthropic(t *testing.T) {
	repo := newTestRepo(t, nil)
	model := newAnthropicServer(t,
		step{text: "Let me look.", calls: []ToolCall{call("tu1", "search_files", map[string]string{"query": "install"}), call("tu2", "read_file", map[string]string{"path": "../etc/passwd"})}},
		step{calls: []ToolCall{call("tu3", "delete_file", map[string]string{"path": "snippets/unrelated.txt"})}},
		step{text: "Removed the unused snippet."},
	)
	a := newTestAgent(t, Config{Provider: "anthropic", AnthropicBaseURL: model.server.URL, AnthropicAPIKey: "sk-ant-test"})
	rec := &recorder{}
	res, err := a.Run(context.Background(), localRun(repo, "ja", "Remove unused snippets"), rec.record)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Changed || res.Tokens != 920 || res.Steps != 4 {
		t.Fatalf("result = %+v", res)
	}
	if out := gitT(t, repo, "ls-tree", "--name-only", "-r", "folio/ja"); strings.Contains(out, "unrelated.txt") {
		t.Fatalf("snippet still on the branch:\n%s", out)
	}
	// The second request holds both tool results in one user turn, the escape refused.
	msgs := model.requests[1]["messages"].([]any)
	last := msgs[len(msgs)-1].(map[string]any)
	blocks := last["content"].([]any)
	if last["role"] != "user" || len(blocks) != 2 {
		t.Fatalf("last message = %v, want one user turn with 2 tool results", last)
	}
	second := blocks[1].(map[string]any)
	if second["type"] != "tool_result" || second["is_error"] != true || second["tool_use_id"] != "tu2" {
		t.Fatalf("escape result = %v, want an error tool_result", second)
	}
	if model.requests[0]["system"] == nil {
		t.Fatal("no system prompt sent")
	}
}
