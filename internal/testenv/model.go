package testenv

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// ChatMessage is one message of a Chat Completions request, as a model
// server receives it.
type ChatMessage struct {
	Role       string `json:"role"`
	Content    any    `json:"content"`
	ToolCallID string `json:"tool_call_id,omitempty"`
}

// Text is the message's content as plain text.
func (m ChatMessage) Text() string {
	switch c := m.Content.(type) {
	case string:
		return c
	case []any: // content parts
		out := ""
		for _, p := range c {
			if part, ok := p.(map[string]any); ok {
				if s, ok := part["text"].(string); ok {
					out += s
				}
			}
		}
		return out
	}
	return ""
}

// ModelReply is what the model answers: tool calls, or final text.
type ModelReply struct {
	Text  string
	Calls []ModelCall
}

// ModelCall is one tool call of a reply.
type ModelCall struct {
	Name string
	Args map[string]string
}

// ModelServer is an OpenAI-compatible Chat Completions server for tests.
// It speaks the real wire protocol (POST {base}/chat/completions with
// tools); what it answers is decided by Reply from the conversation, so
// Folio's real OpenAI client and agent loop run unchanged against it.
type ModelServer struct {
	URL    string // the base URL, for FOLIO_OPENAI_BASE_URL
	APIKey string // the key it requires, for FOLIO_OPENAI_API_KEY
	Reply  func(messages []ChatMessage) ModelReply
	// Models is what GET /v1/models lists, as OpenAI does; nil answers
	// 404, as servers without a list do.
	Models []string

	mu    sync.Mutex
	calls int
}

// Calls is how many completions were requested.
func (m *ModelServer) Calls() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.calls
}

// NewModelServer starts a model server that answers with reply; nil means
// NotesWriter.
func NewModelServer(t testing.TB, reply func([]ChatMessage) ModelReply) *ModelServer {
	t.Helper()
	if reply == nil {
		reply = NotesWriter
	}
	// #nosec G101 -- the test server's own made-up key
	m := &ModelServer{APIKey: "sk-test-folio", Reply: reply, Models: []string{"test-model", "gpt-test-large"}}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/models", func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+m.APIKey {
			w.WriteHeader(http.StatusUnauthorized)
			fmt.Fprint(w, `{"error":{"message":"Incorrect API key provided.","type":"invalid_request_error","code":"invalid_api_key"}}`)
			return
		}
		m.mu.Lock()
		models := m.Models
		m.mu.Unlock()
		if models == nil {
			w.WriteHeader(http.StatusNotFound)
			fmt.Fprint(w, `{"error":{"message":"Not found","type":"invalid_request_error"}}`)
			return
		}
		data := []any{}
		for _, id := range models {
			data = append(data, map[string]any{"id": id, "object": "model", "created": 1700000000, "owned_by": "folio-test"})
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data}) // the test's client reads it; a failed write fails that test
	})
	mux.HandleFunc("POST /v1/chat/completions", func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+m.APIKey {
			w.WriteHeader(http.StatusUnauthorized)
			fmt.Fprint(w, `{"error":{"message":"Incorrect API key provided.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`)
			return
		}
		var req struct {
			Model    string        `json:"model"`
			Messages []ChatMessage `json:"messages"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprintf(w, `{"error":{"message":%q,"type":"invalid_request_error"}}`, err.Error())
			return
		}
		m.mu.Lock()
		m.calls++
		n := m.calls
		m.mu.Unlock()
		rep := m.Reply(req.Messages)
		msg := map[string]any{"role": "assistant", "content": rep.Text, "refusal": nil}
		finish := "stop"
		if len(rep.Calls) > 0 {
			var calls []map[string]any
			for i, c := range rep.Calls {
				args, _ := json.Marshal(c.Args)
				calls = append(calls, map[string]any{"id": fmt.Sprintf("call_%d_%d", n, i), "type": "function",
					"function": map[string]any{"name": c.Name, "arguments": string(args)}})
			}
			msg["tool_calls"], msg["content"], finish = calls, nil, "tool_calls"
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{ // the test's client reads it; a failed write fails that test
			"id": fmt.Sprintf("chatcmpl-%d", n), "object": "chat.completion", "created": 1700000000, "model": req.Model,
			"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish, "logprobs": nil}},
			"usage":   map[string]any{"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120},
		})
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	m.URL = srv.URL + "/v1"
	return m
}

// Folio's notes open the messages the agent adds to a conversation in the
// user's place (agent.folioNote, agent.validationNote, agent.reviewNote; an
// agent test keeps them equal): they are no prompts.
const (
	FolioNote      = "[Folio] "
	ValidationNote = "Folio checked your changes before opening the pull request and found problems."
	ReviewNote     = FolioNote + "Before you finish, review the branch's whole change"
)

// IsFolioNote reports whether a user message's text is one of Folio's notes.
func IsFolioNote(text string) bool {
	return strings.HasPrefix(text, FolioNote) || strings.HasPrefix(text, ValidationNote)
}

// NotesWriter is a model that answers the n-th prompt of a conversation by
// writing notes/n.md (frontmatter and the prompt as its body), then says
// what it did once the tool has answered, and again after Folio's review.
// Folio's own notes (such as the one that sums up earlier turns) are no
// prompts.
func NotesWriter(messages []ChatMessage) ModelReply {
	prompts := 0
	for _, m := range messages {
		if m.Role == "user" && !IsFolioNote(m.Text()) {
			prompts++
		}
	}
	last := messages[len(messages)-1]
	path := fmt.Sprintf("notes/%d.md", prompts)
	if last.Role == "tool" || IsFolioNote(last.Text()) {
		return ModelReply{Text: "Wrote " + path + "."}
	}
	return ModelReply{Calls: []ModelCall{{Name: "write_file", Args: map[string]string{
		"path":    path,
		"content": fmt.Sprintf("---\ntitle: Note %d\n---\n\n%s\n", prompts, last.Text()),
	}}}}
}
