package agent

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"sync"
	"testing"
	"time"
)

// What each provider puts on the wire and how it reads the answer, pinned
// byte for byte where it matters: the request's path, headers and JSON, the
// reply taken from a success, and the statusError (or plain error) taken
// from a refusal.

// wireServer answers every request with one canned response and keeps what
// it was sent.
type wireServer struct {
	*httptest.Server
	mu   sync.Mutex
	reqs []wireRequest
}

type wireRequest struct {
	Method, URI string
	Header      http.Header
	Body        []byte
}

func newWireServer(t *testing.T, status int, contentType, body string) *wireServer {
	t.Helper()
	s := &wireServer{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		s.reqs = append(s.reqs, wireRequest{r.Method, r.URL.RequestURI(), r.Header.Clone(), b})
		s.mu.Unlock()
		if contentType != "" {
			w.Header().Set("Content-Type", contentType)
		}
		w.Header().Set("Retry-After", "3")
		w.WriteHeader(status)
		io.WriteString(w, body)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *wireServer) only(t *testing.T) wireRequest {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.reqs) != 1 {
		t.Fatalf("%d requests, want 1", len(s.reqs))
	}
	return s.reqs[0]
}

// sameJSON fails unless got and want are the same JSON value.
func sameJSON(t *testing.T, got []byte, want string) {
	t.Helper()
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("body is not JSON: %v\n%s", err, got)
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(g, w) {
		t.Errorf("body =\n%s\nwant\n%s", got, want)
	}
}

// wireConversation has each kind of turn: a user's prompt, an assistant's
// text with a call, a tool's answer and refusal, a call whose arguments are
// not JSON, an empty assistant turn.
var wireConversation = modelRequest{
	Model:  "m1",
	System: "sys",
	Messages: []Message{
		{Role: RoleUser, Content: "hello"},
		{Role: RoleAssistant, Content: "thinking", ToolCalls: []ToolCall{{ID: "c1", Name: "read_file", Arguments: json.RawMessage(`{"path":"a"}`)}}},
		{Role: RoleTool, Content: "file a", ToolCallID: "c1", ToolName: "read_file"},
		{Role: RoleAssistant, ToolCalls: []ToolCall{{ID: "c2", Name: "list_files", Arguments: json.RawMessage(`not json`)}}},
		{Role: RoleTool, Content: "no", ToolCallID: "c2", IsError: true},
		{Role: RoleAssistant},
		{Role: RoleUser, Content: "more"},
	},
	Tools: []toolSpec{
		{Name: "read_file", Description: "reads", Properties: map[string]any{"path": str("p")}, Required: []string{"path"}},
		{Name: "list_files", Description: "lists", Properties: map[string]any{}},
	},
}

func TestOpenAIRequestOnTheWire(t *testing.T) {
	s := newWireServer(t, 200, "application/json", `{"choices":[{"message":{"content":"x"}}]}`)
	if _, err := newOpenAI(s.URL+"/v1", "sk", nil).complete(context.Background(), wireConversation); err != nil {
		t.Fatal(err)
	}
	r := s.only(t)
	if r.Method != "POST" || r.URI != "/v1/chat/completions" {
		t.Errorf("request = %s %s, want POST /v1/chat/completions", r.Method, r.URI)
	}
	for k, v := range map[string]string{"Authorization": "Bearer sk", "Content-Type": "application/json", "Accept": "application/json"} {
		if got := r.Header.Get(k); got != v {
			t.Errorf("%s = %q, want %q", k, got, v)
		}
	}
	sameJSON(t, r.Body, `{
		"model": "m1",
		"messages": [
			{"role": "system", "content": "sys"},
			{"role": "user", "content": "hello"},
			{"role": "assistant", "content": "thinking", "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "read_file", "arguments": "{\"path\":\"a\"}"}}]},
			{"role": "tool", "content": "file a", "tool_call_id": "c1"},
			{"role": "assistant", "tool_calls": [{"id": "c2", "type": "function", "function": {"name": "list_files", "arguments": "not json"}}]},
			{"role": "tool", "content": "no", "tool_call_id": "c2"},
			{"role": "assistant", "content": ""},
			{"role": "user", "content": "more"}
		],
		"tools": [
			{"type": "function", "function": {"name": "read_file", "description": "reads", "parameters": {"type": "object", "properties": {"path": {"type": "string", "description": "p"}}, "required": ["path"], "additionalProperties": false}}},
			{"type": "function", "function": {"name": "list_files", "description": "lists", "parameters": {"type": "object", "properties": {}, "additionalProperties": false}}}
		]
	}`)

	// The reply's limit: max_tokens, which every OpenAI-compatible server
	// knows; OpenAI itself is sent max_completion_tokens.
	limited := modelRequest{Model: "m", MaxTokens: 900}
	for _, tc := range []struct{ field, want string }{
		{"", `{"model": "m", "max_tokens": 900, "messages": [{"role": "system", "content": ""}]}`},
		{"max_completion_tokens", `{"model": "m", "max_completion_tokens": 900, "messages": [{"role": "system", "content": ""}]}`},
	} {
		s = newWireServer(t, 200, "application/json", `{"choices":[{"message":{"content":"x"}}]}`)
		p := newOpenAI(s.URL+"/v1", "sk", nil)
		if tc.field != "" {
			p.completionLimit = tc.field
		}
		if _, err := p.complete(context.Background(), limited); err != nil {
			t.Fatal(err)
		}
		sameJSON(t, s.only(t).Body, tc.want)
	}
	for base, want := range map[string]string{
		"https://api.openai.com/v1": "max_completion_tokens", "https://eu.api.openai.com/v1/": "max_completion_tokens",
		"http://127.0.0.1:11434/v1": "max_tokens", "https://openrouter.ai/api/v1": "max_tokens", "https://notopenai.com/v1": "max_tokens",
	} {
		if got := newOpenAI(base, "sk", nil).completionLimit; got != want {
			t.Errorf("%s is sent %s, want %s", base, got, want)
		}
	}

	// No key (a local server) still sends a well-formed header; a base URL's
	// trailing slash makes no double one.
	s = newWireServer(t, 200, "application/json", `{"choices":[{"message":{"content":"x"}}]}`)
	if _, err := newOpenAI(s.URL+"/v1/", "", nil).complete(context.Background(), modelRequest{Model: "m"}); err != nil {
		t.Fatal(err)
	}
	if r := s.only(t); r.URI != "/v1/chat/completions" || r.Header.Get("Authorization") != "Bearer none" {
		t.Errorf("request = %s with Authorization %q, want /v1/chat/completions with Bearer none", r.URI, r.Header.Get("Authorization"))
	}
}

func TestAnthropicRequestOnTheWire(t *testing.T) {
	s := newWireServer(t, 200, "application/json", `{"content":[]}`)
	if _, err := newAnthropic(s.URL, "ak", nil).complete(context.Background(), wireConversation); err != nil {
		t.Fatal(err)
	}
	r := s.only(t)
	if r.Method != "POST" || r.URI != "/v1/messages" {
		t.Errorf("request = %s %s, want POST /v1/messages", r.Method, r.URI)
	}
	for k, v := range map[string]string{"X-Api-Key": "ak", "Anthropic-Version": "2023-06-01", "Content-Type": "application/json", "Accept": "application/json"} {
		if got := r.Header.Get(k); got != v {
			t.Errorf("%s = %q, want %q", k, got, v)
		}
	}
	// Turns of one side merge, tool results ride in a user turn, the empty
	// assistant turn is left out, arguments that are not an object become {}.
	// The last tool, the system prompt and the latest block are cache
	// breakpoints.
	sameJSON(t, r.Body, `{
		"model": "m1",
		"max_tokens": 16000,
		"system": [{"type": "text", "text": "sys", "cache_control": {"type": "ephemeral"}}],
		"messages": [
			{"role": "user", "content": [{"type": "text", "text": "hello"}]},
			{"role": "assistant", "content": [
				{"type": "text", "text": "thinking"},
				{"type": "tool_use", "id": "c1", "name": "read_file", "input": {"path": "a"}}
			]},
			{"role": "user", "content": [
				{"type": "tool_result", "tool_use_id": "c1", "is_error": false, "content": [{"type": "text", "text": "file a"}]}
			]},
			{"role": "assistant", "content": [{"type": "tool_use", "id": "c2", "name": "list_files", "input": {}}]},
			{"role": "user", "content": [
				{"type": "tool_result", "tool_use_id": "c2", "is_error": true, "content": [{"type": "text", "text": "no"}]},
				{"type": "text", "text": "more", "cache_control": {"type": "ephemeral"}}
			]}
		],
		"tools": [
			{"name": "read_file", "description": "reads", "input_schema": {"type": "object", "properties": {"path": {"type": "string", "description": "p"}}, "required": ["path"], "additionalProperties": false}},
			{"name": "list_files", "description": "lists", "input_schema": {"type": "object", "properties": {}, "additionalProperties": false}, "cache_control": {"type": "ephemeral"}}
		]
	}`)

	// The latest block is marked whatever its kind: here a tool's result.
	s = newWireServer(t, 200, "application/json", `{"content":[]}`)
	toolLast := modelRequest{Model: "m", Messages: wireConversation.Messages[:3]}
	if _, err := newAnthropic(s.URL, "ak", nil).complete(context.Background(), toolLast); err != nil {
		t.Fatal(err)
	}
	sameJSON(t, s.only(t).Body, `{
		"model": "m",
		"max_tokens": 16000,
		"system": [{"type": "text", "text": "", "cache_control": {"type": "ephemeral"}}],
		"messages": [
			{"role": "user", "content": [{"type": "text", "text": "hello"}]},
			{"role": "assistant", "content": [
				{"type": "text", "text": "thinking"},
				{"type": "tool_use", "id": "c1", "name": "read_file", "input": {"path": "a"}}
			]},
			{"role": "user", "content": [
				{"type": "tool_result", "tool_use_id": "c1", "is_error": false, "content": [{"type": "text", "text": "file a"}], "cache_control": {"type": "ephemeral"}}
			]}
		]
	}`)

	s = newWireServer(t, 200, "application/json", `{"content":[]}`)
	if _, err := newAnthropic(s.URL+"/", "ak", nil).complete(context.Background(), modelRequest{Model: "m", MaxTokens: 5}); err != nil {
		t.Fatal(err)
	}
	r = s.only(t)
	if r.URI != "/v1/messages" {
		t.Errorf("request to %s, want /v1/messages", r.URI)
	}
	sameJSON(t, r.Body, `{"model": "m", "max_tokens": 5, "system": [{"type": "text", "text": "", "cache_control": {"type": "ephemeral"}}]}`)
}

// wireAnswer is a provider's answer and what complete makes of it.
type wireAnswer struct {
	name        string
	status      int
	contentType string
	body        string
	reply       modelReply   // on success
	refusal     *statusError // a refusal with what the provider said
	otherErr    bool         // an error that is no refusal (retried as transient)
}

func checkAnswers(t *testing.T, answers []wireAnswer, complete func(url string) (modelReply, error)) {
	for _, a := range answers {
		t.Run(a.name, func(t *testing.T) {
			s := newWireServer(t, a.status, a.contentType, a.body)
			reply, err := complete(s.URL)
			var se *statusError
			switch {
			case a.refusal != nil:
				if !errors.As(err, &se) || *se != *a.refusal {
					t.Fatalf("err = %#v, want %#v", err, a.refusal)
				}
			case a.otherErr:
				if err == nil || errors.As(err, &se) {
					t.Fatalf("err = %#v, want an error that is no refusal", err)
				}
			default:
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(reply, a.reply) {
					t.Fatalf("reply = %+v, want %+v", reply, a.reply)
				}
			}
		})
	}
}

func TestOpenAIAnswers(t *testing.T) {
	const jsonType = "application/json"
	checkAnswers(t, []wireAnswer{
		{name: "text and calls", status: 200, contentType: jsonType,
			body: `{"id":"x","choices":[{"index":0,"message":{"role":"assistant","content":"hi","tool_calls":[` +
				`{"id":"t1","type":"function","function":{"name":"f","arguments":"{\"a\":1}"}},` +
				`{"id":"t2","type":"custom","custom":{"name":"g","input":"x"}},` +
				`{"id":"t3","type":"function","function":{"name":"h","arguments":"bad"}},` +
				`{"id":"t4","type":"function","function":{"name":"h","arguments":""}}]},"finish_reason":"length"}],` +
				`"usage":{"prompt_tokens":7,"completion_tokens":3}}`,
			reply: modelReply{Content: "hi", Tokens: 10, Input: 7, Output: 3, Truncated: true, ToolCalls: []ToolCall{
				{ID: "t1", Name: "f", Arguments: json.RawMessage(`{"a":1}`)},
				{ID: "t3", Name: "h", Arguments: json.RawMessage(`"bad"`)},
				{ID: "t4", Name: "h", Arguments: json.RawMessage(`{}`)},
			}}},
		{name: "cached tokens", status: 200, contentType: jsonType,
			body: `{"choices":[{"message":{"content":"ok"},"finish_reason":"stop"}],` +
				`"usage":{"prompt_tokens":2006,"completion_tokens":300,"total_tokens":2306,"prompt_tokens_details":{"cached_tokens":1920,"audio_tokens":0},"completion_tokens_details":{"reasoning_tokens":0}}}`,
			reply: modelReply{Content: "ok", Tokens: 2306, Input: 2006, Cached: 1920, Output: 300}},
		{name: "cut at the output limit", status: 200, contentType: jsonType,
			body:  `{"choices":[{"message":{"content":null,"tool_calls":[{"id":"t1","type":"function","function":{"name":"write_file","arguments":"{\"path\":\"a.mdx\",\"content\":\"---\\ntitle: A"}}]},"finish_reason":"length"}],"usage":{"prompt_tokens":50,"completion_tokens":16000}}`,
			reply: modelReply{Tokens: 16050, Input: 50, Output: 16000, Truncated: true, ToolCalls: []ToolCall{{ID: "t1", Name: "write_file", Arguments: json.RawMessage(`"{\"path\":\"a.mdx\",\"content\":\"---\\ntitle: A"`)}}}},
		{name: "null content, untyped call, arguments as an object", status: 200, contentType: jsonType,
			body:  `{"choices":[{"message":{"content":null,"tool_calls":[{"id":"t1","function":{"name":"f","arguments":{"a":1}}}]}}],"usage":{"prompt_tokens":7}}`,
			reply: modelReply{Tokens: 7, Input: 7, ToolCalls: []ToolCall{{ID: "t1", Name: "f", Arguments: json.RawMessage(`{"a":1}`)}}}},
		{name: "no choices", status: 200, contentType: jsonType, body: `{"choices":[]}`, otherErr: true},
		{name: "not JSON by its type", status: 200, contentType: "text/plain", body: `{"choices":[{"message":{"content":"x"}}]}`, otherErr: true},
		{name: "not JSON", status: 200, contentType: jsonType, body: `not json`, otherErr: true},
		{name: "refusal with a message", status: 401, contentType: jsonType, body: `{"error":{"message":"bad key","type":"x"}}`,
			refusal: &statusError{Status: 401, Message: "bad key", RetryAfter: 3 * time.Second}},
		{name: "refusal without a message", status: 400, contentType: jsonType, body: `{"error":{"type":"x","code":"c"}}`,
			refusal: &statusError{Status: 400, Message: `{"type":"x","code":"c"}`, RetryAfter: 3 * time.Second}},
		{name: "refusal without an error object", status: 400, contentType: jsonType, body: `{"object":"error","message":"elsewhere"}`,
			refusal: &statusError{Status: 400, Message: "", RetryAfter: 3 * time.Second}},
		{name: "a proxy's page", status: 502, contentType: "text/html", body: `<html>Bad Gateway</html>`,
			refusal: &statusError{Status: 502, Message: "", RetryAfter: 3 * time.Second}},
		{name: "empty", status: 500, body: ``,
			refusal: &statusError{Status: 500, Message: "", RetryAfter: 3 * time.Second}},
	}, func(url string) (modelReply, error) {
		return newOpenAI(url+"/v1", "sk", nil).complete(context.Background(), wireConversation)
	})
}

func TestAnthropicAnswers(t *testing.T) {
	const jsonType = "application/json"
	checkAnswers(t, []wireAnswer{
		{name: "text and calls", status: 200, contentType: jsonType,
			body: `{"id":"m","type":"message","role":"assistant","content":[{"type":"text","text":"a"},` +
				`{"type":"tool_use","id":"u1","name":"f","input":{"x":1}},{"type":"text","text":"b"},` +
				`{"type":"thinking","thinking":"hm"},{"type":"tool_use","id":"u2","name":"g"}],` +
				`"stop_reason":"max_tokens","usage":{"input_tokens":5,"output_tokens":2}}`,
			reply: modelReply{Content: "a\n\nb", Tokens: 7, Input: 5, Output: 2, Truncated: true, ToolCalls: []ToolCall{
				{ID: "u1", Name: "f", Arguments: json.RawMessage(`{"x":1}`)},
				{ID: "u2", Name: "g", Arguments: json.RawMessage(`{}`)},
			}}},
		{name: "cache read and written", status: 200, contentType: jsonType,
			body: `{"content":[{"type":"text","text":"ok"}],"stop_reason":"end_turn",` +
				`"usage":{"input_tokens":50,"cache_creation_input_tokens":248,"cache_read_input_tokens":100000,"output_tokens":503,"service_tier":"standard"}}`,
			reply: modelReply{Content: "ok", Tokens: 100801, Input: 100298, Cached: 100000, CacheWrite: 248, Output: 503}},
		{name: "cut at the output limit inside a call", status: 200, contentType: jsonType,
			body: `{"content":[{"type":"text","text":"Writing it."},{"type":"tool_use","id":"u1","name":"write_file","input":{"path":"a.mdx"}}],` +
				`"stop_reason":"max_tokens","usage":{"input_tokens":40,"output_tokens":16000}}`,
			reply: modelReply{Content: "Writing it.", Tokens: 16040, Input: 40, Output: 16000, Truncated: true,
				ToolCalls: []ToolCall{{ID: "u1", Name: "write_file", Arguments: json.RawMessage(`{"path":"a.mdx"}`)}}}},
		{name: "end of turn", status: 200, contentType: jsonType,
			body:  `{"content":[{"type":"text","text":"done"}],"stop_reason":"end_turn","usage":{"input_tokens":5,"output_tokens":2}}`,
			reply: modelReply{Content: "done", Tokens: 7, Input: 5, Output: 2}},
		{name: "not JSON by its type", status: 200, contentType: "text/plain", body: `{"content":[{"type":"text","text":"a"}]}`, otherErr: true},
		{name: "not JSON", status: 200, contentType: jsonType, body: `not json`, otherErr: true},
		{name: "refusal with a message", status: 401, contentType: jsonType, body: `{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}`,
			refusal: &statusError{Status: 401, Message: "invalid x-api-key", RetryAfter: 3 * time.Second}},
		{name: "refusal without a message", status: 400, contentType: jsonType, body: `{"type":"error","error":{"type":"x"}}`,
			refusal: &statusError{Status: 400, Message: `{"type":"error","error":{"type":"x"}}`, RetryAfter: 3 * time.Second}},
		{name: "overloaded", status: 529, contentType: jsonType, body: `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`,
			refusal: &statusError{Status: 529, Message: "Overloaded", RetryAfter: 3 * time.Second}},
		{name: "a proxy's page", status: 502, contentType: "text/html", body: "<html>Bad Gateway</html>\n",
			refusal: &statusError{Status: 502, Message: "<html>Bad Gateway</html>", RetryAfter: 3 * time.Second}},
		{name: "empty", status: 500, body: ``,
			refusal: &statusError{Status: 500, Message: "", RetryAfter: 3 * time.Second}},
	}, func(url string) (modelReply, error) {
		return newAnthropic(url, "ak", nil).complete(context.Background(), wireConversation)
	})
}

// Models asks GET {base}/models (OpenAI: one page) or GET /v1/models
// (Anthropic: page after page by after_id), and lists each id once, sorted.
func TestModelsOnTheWire(t *testing.T) {
	var mu sync.Mutex
	var seen []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.Method+" "+r.URL.RequestURI()+" auth="+r.Header.Get("Authorization")+" key="+r.Header.Get("X-Api-Key")+" version="+r.Header.Get("Anthropic-Version"))
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.RequestURI() {
		case "/anthropic/v1/models":
			io.WriteString(w, `{"data":[{"id":"b","type":"model"},{"id":"a","type":"model"}],"has_more":true,"first_id":"b","last_id":"a"}`)
		case "/anthropic/v1/models?after_id=a":
			io.WriteString(w, `{"data":[{"id":"c","type":"model"},{"id":"a","type":"model"}],"has_more":false,"first_id":"c","last_id":"a"}`)
		case "/v1/models":
			io.WriteString(w, `{"object":"list","data":[{"id":"z","object":"model"},{"id":"y"},{"id":"z"}],"has_more":true,"last_id":"y"}`)
		default:
			w.WriteHeader(404)
			io.WriteString(w, `{"error":{"message":"Not found"}}`)
		}
	}))
	defer srv.Close()
	for _, tc := range []struct {
		name string
		cfg  Config
		want []string
		reqs []string
	}{
		{"anthropic", Config{Provider: "anthropic", AnthropicBaseURL: srv.URL + "/anthropic", AnthropicAPIKey: "ak"}, []string{"a", "b", "c"},
			[]string{"GET /anthropic/v1/models auth= key=ak version=2023-06-01", "GET /anthropic/v1/models?after_id=a auth= key=ak version=2023-06-01"}},
		{"openai", Config{Provider: "openai", OpenAIBaseURL: srv.URL + "/v1", OpenAIAPIKey: "sk"}, []string{"y", "z"},
			[]string{"GET /v1/models auth=Bearer sk key= version="}},
		{"openai without a list", Config{Provider: "openai", OpenAIBaseURL: srv.URL + "/nope", OpenAIAPIKey: "sk"}, nil,
			[]string{"GET /nope/models auth=Bearer sk key= version="}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mu.Lock()
			seen = nil
			mu.Unlock()
			got, err := (&Agent{cfg: tc.cfg}).Models(context.Background())
			if tc.want == nil {
				if err == nil {
					t.Fatalf("models = %q, want an error", got)
				}
			} else if err != nil || !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("models = %q, %v; want %q", got, err, tc.want)
			}
			mu.Lock()
			defer mu.Unlock()
			if !reflect.DeepEqual(seen, tc.reqs) {
				t.Errorf("requests =\n%q\nwant\n%q", seen, tc.reqs)
			}
		})
	}
}

// A provider that redirects to another origin gets no key there: the call
// fails instead of following.
func TestProviderRedirectElsewhereIsRefused(t *testing.T) {
	var mu sync.Mutex
	var leaked []string
	elsewhere := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		leaked = append(leaked, r.Header.Get("Authorization")+r.Header.Get("X-Api-Key"))
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"choices":[{"message":{"content":"x"}}],"content":[]}`)
	}))
	defer elsewhere.Close()
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, elsewhere.URL+r.URL.Path, http.StatusTemporaryRedirect)
	}))
	defer origin.Close()
	if _, err := newOpenAI(origin.URL+"/v1", "sk", nil).complete(context.Background(), wireConversation); err == nil {
		t.Error("openai: a redirect to another origin was followed")
	}
	if _, err := newAnthropic(origin.URL, "ak", nil).complete(context.Background(), wireConversation); err == nil {
		t.Error("anthropic: a redirect to another origin was followed")
	}
	if len(leaked) > 0 {
		t.Errorf("the other origin was sent %q", leaked)
	}
}

// OpenAI itself gets strict schemas: "strict": true, no other argument
// allowed, every argument required, an optional one nullable.
func TestOpenAIStrictToolsOnTheWire(t *testing.T) {
	s := newWireServer(t, 200, "application/json", `{"choices":[{"message":{"content":"x"}}]}`)
	p := newOpenAI(s.URL+"/v1", "sk", nil)
	if p.strict {
		t.Fatal("a server that is not OpenAI's got strict schemas")
	}
	if !newOpenAI("https://api.openai.com/v1", "sk", nil).strict {
		t.Fatal("OpenAI's API got plain schemas")
	}
	p.strict = true
	if _, err := p.complete(context.Background(), modelRequest{Model: "m", Tools: []toolSpec{*specNamed(t, "read_file")}}); err != nil {
		t.Fatal(err)
	}
	var body struct{ Tools []json.RawMessage }
	json.Unmarshal(s.only(t).Body, &body)
	if len(body.Tools) != 1 {
		t.Fatalf("tools sent: %s", body.Tools)
	}
	sameJSON(t, body.Tools[0], `{"type": "function", "function": {"name": "read_file", "description": `+jsonString(readFileDesc)+`, "strict": true, "parameters": {
		"type": "object", "additionalProperties": false, "required": ["limit", "offset", "path"],
		"properties": {
			"path": {"type": "string", "description": "File path relative to the repository root."},
			"offset": {"type": ["integer", "null"], "description": "The first line to show, counting from 1; null or omitted to start at the top."},
			"limit": {"type": ["integer", "null"], "description": "How many lines to show; null or omitted for as many as fit (at most 400)."}
		}}}}`)
}

func specNamed(t *testing.T, name string) *toolSpec {
	for i := range toolSpecs {
		if toolSpecs[i].Name == name {
			return &toolSpecs[i]
		}
	}
	t.Fatalf("no tool %s", name)
	return nil
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
