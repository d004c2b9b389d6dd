package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/folio-docs/folio/codehost/github"
	"github.com/folio-docs/folio/codehost/hosts"
	"github.com/folio-docs/folio/internal/testenv"
	"github.com/folio-docs/folio/model"
)

// gitT runs git in dir and fails the test if it fails.
var gitT = testenv.Git

// newTestRepo makes a bare repository holding a small Mintlify docs site on
// main, and returns its path.
func newTestRepo(t testing.TB, files map[string]string) string {
	t.Helper()
	base := t.TempDir()
	work := filepath.Join(base, "work")
	if files == nil {
		files = docsSite()
	}
	testenv.NewRepo(t, work, files)
	bare := filepath.Join(base, "docs.git")
	gitT(t, base, "clone", "--quiet", "--bare", work, bare)
	return bare
}

func docsSite() map[string]string {
	return map[string]string{
		"docs.json":              `{"theme":"mint","name":"Acme","colors":{"primary":"#0D9373"},"navigation":{"groups":[{"group":"Start","pages":["index","guides/quickstart"]}]}}`,
		"index.mdx":              "---\ntitle: Welcome\n---\n\nRead the [quickstart](/guides/quickstart).\n",
		"guides/quickstart.mdx":  "---\ntitle: Quickstart\ndescription: Get going\n---\n\nInstall the CLI.\n",
		"AGENTS.md":              "Write in British English. Never use the word simply.\n",
		"snippets/unrelated.txt": "nothing to see\n",
	}
}

// step is one scripted model reply: tool calls to make, or final text.
type step struct {
	text  string
	calls []ToolCall
	// cut makes the reply one cut off at the output limit (OpenAI's
	// finish_reason "length", Anthropic's stop_reason "max_tokens").
	cut bool
	// cached is how many of the prompt's tokens the provider reports read
	// from its cache (and, for Anthropic, cacheWrite written to it).
	cached, cacheWrite int64
	// fail, if set, answers this request instead (status, headers, body).
	fail func(w http.ResponseWriter)
	// delay holds the answer back that long, or until the client gives up
	// (a model that stalls); the request then gets no answer.
	delay time.Duration
}

// wait holds a reply back by s.delay; false if the client went away first.
func (s step) wait(r *http.Request) bool {
	if s.delay == 0 {
		return true
	}
	t := time.NewTimer(s.delay)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-r.Context().Done():
		return false
	}
}

func call(id, name string, args map[string]string) ToolCall {
	b, _ := json.Marshal(args)
	return ToolCall{ID: id, Name: name, Arguments: b}
}

// scriptedModel is a model provider's HTTP API, speaking the real wire
// protocol, that replies with its script in order and keeps every request.
type scriptedModel struct {
	mu       sync.Mutex
	steps    []step
	requests []map[string]any
	server   *httptest.Server
	// fail, if set, answers instead of the script (status, headers, body) and is then cleared.
	fail []func(w http.ResponseWriter)
	// promptTokens, if set, is the prompt's token count reported for a
	// request body (else a fixed 100 for OpenAI, 200 for Anthropic).
	promptTokens func(body []byte) int64
	sizes        []int64 // the prompt tokens reported, request by request
	// scriptReview makes the script answer Folio's review before finishing
	// too; otherwise the model answers it by repeating its summary, as a
	// model that finds nothing to fix does.
	scriptReview bool
}

// lastText is the text of a request's last message of role, in either
// provider's format, and whether that text ends the conversation.
func lastText(req map[string]any, role string) (string, bool) {
	msgs, _ := req["messages"].([]any)
	for i := len(msgs) - 1; i >= 0; i-- {
		m, _ := msgs[i].(map[string]any)
		if m["role"] != role {
			continue
		}
		switch c := m["content"].(type) {
		case string:
			return c, i == len(msgs)-1
		case []any: // Anthropic's blocks: the last text block
			for j := len(c) - 1; j >= 0; j-- {
				if b, _ := c[j].(map[string]any); b["type"] == "text" {
					text, _ := b["text"].(string)
					return text, i == len(msgs)-1 && j == len(c)-1
				}
			}
		}
		return "", false
	}
	return "", false
}

// next takes the request and the script's next step, and the prompt's
// token count to report (fixed unless promptTokens is set).
func (m *scriptedModel) next(w http.ResponseWriter, r *http.Request, fixed int64) (step, int64, bool) {
	body, _ := io.ReadAll(r.Body)
	var req map[string]any
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, "bad json", 400)
		return step{}, 0, false
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.requests = append(m.requests, req)
	if m.promptTokens != nil {
		fixed = m.promptTokens(body)
	}
	m.sizes = append(m.sizes, fixed)
	if len(m.fail) > 0 {
		f := m.fail[0]
		m.fail = m.fail[1:]
		f(w)
		return step{}, 0, false
	}
	if note, last := lastText(req, "user"); last && strings.HasPrefix(note, reviewNote) && !m.scriptReview {
		summary, _ := lastText(req, "assistant")
		return step{text: summary}, fixed, true
	}
	if len(m.steps) == 0 {
		return step{text: "Done."}, fixed, true
	}
	s := m.steps[0]
	m.steps = m.steps[1:]
	if s.fail != nil {
		s.fail(w)
		return step{}, 0, false
	}
	return s, fixed, true
}

// count is how many requests came.
func (m *scriptedModel) count() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.requests)
}

func (m *scriptedModel) lastRequest() map[string]any {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.requests[len(m.requests)-1]
}

// newOpenAIServer serves POST /chat/completions like OpenAI does.
func newOpenAIServer(t testing.TB, steps ...step) *scriptedModel {
	m := &scriptedModel{steps: steps}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/chat/completions", func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer sk-test" {
			w.WriteHeader(401)
			fmt.Fprint(w, `{"error":{"message":"Incorrect API key provided.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`)
			return
		}
		s, prompt, ok := m.next(w, r, 100)
		if !ok || !s.wait(r) {
			return
		}
		msg := map[string]any{"role": "assistant", "content": s.text, "refusal": nil}
		finish := "stop"
		if len(s.calls) > 0 {
			var calls []map[string]any
			for _, c := range s.calls {
				calls = append(calls, map[string]any{"id": c.ID, "type": "function", "function": map[string]any{"name": c.Name, "arguments": string(c.Arguments)}})
			}
			msg["tool_calls"] = calls
			msg["content"] = nil
			finish = "tool_calls"
		}
		if s.cut {
			finish = "length"
		}
		usage := map[string]any{"prompt_tokens": prompt, "completion_tokens": 20, "total_tokens": prompt + 20}
		if s.cached > 0 {
			usage["prompt_tokens_details"] = map[string]any{"cached_tokens": s.cached, "audio_tokens": 0}
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{
			"id": "chatcmpl-1", "object": "chat.completion", "created": 1700000000, "model": "gpt-test",
			"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish, "logprobs": nil}},
			"usage":   usage,
		})
	})
	m.server = httptest.NewServer(mux)
	t.Cleanup(m.server.Close)
	return m
}

// newAnthropicServer serves POST /v1/messages like Anthropic does.
func newAnthropicServer(t testing.TB, steps ...step) *scriptedModel {
	m := &scriptedModel{steps: steps}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/messages", func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Api-Key") != "sk-ant-test" || r.Header.Get("Anthropic-Version") == "" {
			w.WriteHeader(401)
			fmt.Fprint(w, `{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}`)
			return
		}
		s, prompt, ok := m.next(w, r, 200)
		if !ok || !s.wait(r) {
			return
		}
		var content []any
		if s.text != "" {
			content = append(content, map[string]any{"type": "text", "text": s.text})
		}
		stop := "end_turn"
		for _, c := range s.calls {
			content = append(content, map[string]any{"type": "tool_use", "id": c.ID, "name": c.Name, "input": c.Arguments})
			stop = "tool_use"
		}
		if s.cut {
			stop = "max_tokens"
		}
		// input_tokens is what the cache neither read nor wrote.
		usage := map[string]any{"input_tokens": prompt - s.cached - s.cacheWrite, "output_tokens": 30}
		if s.cached > 0 || s.cacheWrite > 0 {
			usage["cache_read_input_tokens"], usage["cache_creation_input_tokens"] = s.cached, s.cacheWrite
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{
			"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-test",
			"content": content, "stop_reason": stop, "stop_sequence": nil,
			"usage": usage,
		})
	})
	m.server = httptest.NewServer(mux)
	t.Cleanup(m.server.Close)
	return m
}

// recorder keeps what Run records.
type recorder struct {
	mu   sync.Mutex
	msgs []Message
}

func (r *recorder) record(_ context.Context, m Message) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.msgs = append(r.msgs, m)
	return nil
}

func (r *recorder) all() []Message {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Message(nil), r.msgs...)
}

func newTestAgent(t testing.TB, cfg Config) *Agent {
	t.Helper()
	if cfg.Provider == "" {
		cfg.Provider = "openai"
	}
	if cfg.DataDir == "" {
		cfg.DataDir = t.TempDir()
	}
	if cfg.Hosts == nil {
		cfg.Hosts = testHosts("", "")
	}
	if cfg.RetryBase == 0 {
		cfg.RetryBase = 1
	}
	a, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// testHosts are the code hosts as the composition root builds them, with
// GitHub reached at apiURL with token when token is set.
func testHosts(apiURL, token string) hosts.Config {
	h := hosts.Config{BaseURL: "http://folio.test", GitHubAPIURL: apiURL}
	if token != "" {
		h.GitHubTokens = github.StaticToken(token)
	}
	return h
}

func openAIConfig(m *scriptedModel) Config {
	return Config{Provider: "openai", OpenAIBaseURL: m.server.URL + "/v1", OpenAIAPIKey: "sk-test"}
}

func localRun(repo, jobID string, prompts ...string) Run {
	var hist []Message
	for _, p := range prompts {
		hist = append(hist, Message{Role: RoleUser, Content: p})
	}
	return Run{
		JobID:   jobID,
		Project: model.Project{ID: "proj1", Repository: repo, Ref: "main"},
		Model:   "gpt-test",
		Branch:  "folio/" + jobID,
		History: hist,
	}
}
