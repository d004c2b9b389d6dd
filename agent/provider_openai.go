package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
)

// openaiProvider speaks Chat Completions with tools, which OpenAI, Ollama,
// vLLM, llama.cpp's server and OpenRouter all serve.
type openaiProvider struct {
	api *apiClient
	// completionLimit is the field that bounds a reply: OpenAI itself wants
	// max_completion_tokens (its reasoning models refuse max_tokens);
	// Ollama, LM Studio and llama.cpp's server know only max_tokens, which
	// vLLM and OpenRouter also take.
	completionLimit string
	// strict sends the tools as strict schemas, which OpenAI then holds
	// the model's arguments to (for a reply of one call: it does not promise
	// it for parallel calls, which stay on); other servers get plain
	// schemas, since some refuse a type that may be null.
	strict bool
}

func newOpenAI(baseURL, apiKey string, hc *http.Client) *openaiProvider {
	if apiKey == "" {
		apiKey = "none" // local servers need no key, but the header must be well-formed
	}
	p := &openaiProvider{api: newAPIClient(baseURL, http.Header{"Authorization": {"Bearer " + apiKey}}, hc), completionLimit: "max_tokens"}
	if isOpenAI(baseURL) {
		p.completionLimit, p.strict = "max_completion_tokens", true
	}
	return p
}

// isOpenAI reports whether baseURL is OpenAI's own API.
func isOpenAI(baseURL string) bool {
	u, err := url.Parse(baseURL)
	return err == nil && (u.Hostname() == "openai.com" || strings.HasSuffix(u.Hostname(), ".openai.com"))
}

// What Chat Completions is sent and answers, as far as Folio uses it.
type (
	openaiRequest struct {
		Model               string          `json:"model,omitempty"`
		MaxTokens           int64           `json:"max_tokens,omitempty"`
		MaxCompletionTokens int64           `json:"max_completion_tokens,omitempty"`
		Messages            []openaiMessage `json:"messages,omitempty"`
		Tools               []openaiTool    `json:"tools,omitempty"`
	}
	openaiMessage struct {
		Role       string           `json:"role"`
		Content    *string          `json:"content,omitempty"`
		ToolCalls  []openaiToolCall `json:"tool_calls,omitempty"`
		ToolCallID *string          `json:"tool_call_id,omitempty"`
	}
	openaiToolCall struct {
		ID       string          `json:"id"`
		Type     string          `json:"type"`
		Function *openaiFunction `json:"function,omitempty"` // left out when empty, as the SDK did
	}
	openaiFunction struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	}
	openaiTool struct {
		Type     string `json:"type"`
		Function struct {
			Name        string         `json:"name"`
			Description string         `json:"description"`
			Parameters  map[string]any `json:"parameters"`
			Strict      bool           `json:"strict,omitempty"`
		} `json:"function"`
	}
	openaiResponse struct {
		Choices []struct {
			Message struct {
				Content   jsonText `json:"content"`
				ToolCalls []struct {
					ID       jsonText `json:"id"`
					Type     jsonText `json:"type"`
					Function struct {
						Name      jsonText `json:"name"`
						Arguments jsonText `json:"arguments"` // a string; some servers send an object
					} `json:"function"`
				} `json:"tool_calls"`
			} `json:"message"`
			FinishReason jsonText `json:"finish_reason"`
		} `json:"choices"`
		// prompt_tokens counts every prompt token, those read from the
		// cache (which OpenAI keeps by itself) included.
		Usage struct {
			PromptTokens        jsonCount `json:"prompt_tokens"`
			PromptTokensDetails struct {
				CachedTokens jsonCount `json:"cached_tokens"`
			} `json:"prompt_tokens_details"`
			CompletionTokens jsonCount `json:"completion_tokens"`
		} `json:"usage"`
	}
)

func (p *openaiProvider) complete(ctx context.Context, req modelRequest) (modelReply, error) {
	text := func(s string) *string { return &s }
	body := openaiRequest{Model: req.Model, Messages: []openaiMessage{{Role: "system", Content: text(req.System)}}}
	if p.completionLimit == "max_completion_tokens" {
		body.MaxCompletionTokens = req.MaxTokens
	} else {
		body.MaxTokens = req.MaxTokens
	}
	for _, m := range req.Messages {
		switch m.Role {
		case RoleUser:
			body.Messages = append(body.Messages, openaiMessage{Role: "user", Content: text(m.Content)})
		case RoleTool:
			body.Messages = append(body.Messages, openaiMessage{Role: "tool", Content: text(m.Content), ToolCallID: text(m.ToolCallID)})
		case RoleAssistant:
			a := openaiMessage{Role: "assistant"}
			if m.Content != "" || len(m.ToolCalls) == 0 {
				a.Content = text(m.Content)
			}
			for _, tc := range m.ToolCalls {
				c := openaiToolCall{ID: tc.ID, Type: "function"}
				if tc.Name != "" || len(tc.Arguments) > 0 {
					c.Function = &openaiFunction{Name: tc.Name, Arguments: string(tc.Arguments)}
				}
				a.ToolCalls = append(a.ToolCalls, c)
			}
			body.Messages = append(body.Messages, a)
		}
	}
	for _, t := range req.Tools {
		tool := openaiTool{Type: "function"}
		tool.Function.Name, tool.Function.Description, tool.Function.Parameters = t.Name, t.Description, t.schema(p.strict)
		tool.Function.Strict = p.strict
		body.Tools = append(body.Tools, tool)
	}
	var resp openaiResponse
	if err := p.api.call(ctx, http.MethodPost, "chat/completions", nil, body, &resp); err != nil {
		return modelReply{}, openaiRefusal(err)
	}
	if len(resp.Choices) == 0 {
		return modelReply{}, errors.New("the model returned no choices")
	}
	choice := resp.Choices[0]
	input, output := int64(resp.Usage.PromptTokens), int64(resp.Usage.CompletionTokens)
	reply := modelReply{
		Content:   string(choice.Message.Content),
		Tokens:    input + output,
		Input:     input,
		Cached:    min(int64(resp.Usage.PromptTokensDetails.CachedTokens), input),
		Output:    output,
		Truncated: choice.FinishReason == "length",
	}
	for _, tc := range choice.Message.ToolCalls {
		if tc.Type != "" && tc.Type != "function" {
			continue
		}
		reply.ToolCalls = append(reply.ToolCalls, ToolCall{ID: string(tc.ID), Name: string(tc.Function.Name), Arguments: rawArguments(string(tc.Function.Arguments))})
	}
	return reply, nil
}

// openaiRefusal reads what an OpenAI-compatible server said when it
// refused: the message of its {"error": {...}}, or that object's JSON when
// it has none.
func openaiRefusal(err error) error {
	var r *apiRefusal
	if !errors.As(err, &r) {
		return err
	}
	var body struct {
		Error json.RawMessage `json:"error"`
	}
	_ = json.Unmarshal(r.body, &body) // a body that is not JSON leaves Error empty, and the status speaks alone
	var e struct {
		Message jsonText `json:"message"`
	}
	if len(body.Error) > 0 && json.Unmarshal(body.Error, &e) != nil {
		// An error that is no object ({"error": "..."}) is no refusal, and so
		// retried as transient: what the SDK did, kept as it was.
		return fmt.Errorf("the model provider answered %d with an error that is not an object: %s", r.status, body.Error)
	}
	msg := string(e.Message)
	if msg == "" {
		msg = strings.TrimSpace(string(body.Error))
	}
	return &statusError{Status: r.status, Message: msg, RetryAfter: retryAfter(r.header)}
}

// rawArguments keeps a model's arguments as JSON even when they are not:
// malformed text becomes a JSON string, so it can be stored and the tool
// can tell the model what went wrong.
func rawArguments(s string) json.RawMessage {
	if strings.TrimSpace(s) == "" {
		return json.RawMessage("{}")
	}
	if json.Valid([]byte(s)) {
		return json.RawMessage(s)
	}
	b, _ := json.Marshal(s)
	return b
}
