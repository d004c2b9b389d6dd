package agent

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/shared"
)

// openaiProvider speaks Chat Completions with tools, which OpenAI, Ollama,
// vLLM, llama.cpp's server and OpenRouter all serve.
type openaiProvider struct {
	client openai.Client
}

func newOpenAI(baseURL, apiKey string, hc *http.Client) *openaiProvider {
	if apiKey == "" {
		apiKey = "none" // local servers need no key, but the header must be well-formed
	}
	opts := []option.RequestOption{
		option.WithBaseURL(strings.TrimRight(baseURL, "/") + "/"),
		option.WithAPIKey(apiKey),
		option.WithMaxRetries(0), // completeWithRetry retries, the same way for every provider
	}
	if hc != nil {
		opts = append(opts, option.WithHTTPClient(hc))
	}
	return &openaiProvider{client: openai.NewClient(opts...)}
}

func (p *openaiProvider) complete(ctx context.Context, req modelRequest) (modelReply, error) {
	msgs := []openai.ChatCompletionMessageParamUnion{openai.SystemMessage(req.System)}
	for _, m := range req.Messages {
		switch m.Role {
		case RoleUser:
			msgs = append(msgs, openai.UserMessage(m.Content))
		case RoleTool:
			msgs = append(msgs, openai.ToolMessage(m.Content, m.ToolCallID))
		case RoleAssistant:
			var a openai.ChatCompletionAssistantMessageParam
			if m.Content != "" || len(m.ToolCalls) == 0 {
				a.Content.OfString = openai.String(m.Content)
			}
			for _, tc := range m.ToolCalls {
				a.ToolCalls = append(a.ToolCalls, openai.ChatCompletionMessageToolCallUnionParam{
					OfFunction: &openai.ChatCompletionMessageFunctionToolCallParam{
						ID:       tc.ID,
						Function: openai.ChatCompletionMessageFunctionToolCallFunctionParam{Name: tc.Name, Arguments: string(tc.Arguments)},
					},
				})
			}
			msgs = append(msgs, openai.ChatCompletionMessageParamUnion{OfAssistant: &a})
		}
	}
	var tools []openai.ChatCompletionToolUnionParam
	for _, t := range req.Tools {
		tools = append(tools, openai.ChatCompletionFunctionTool(shared.FunctionDefinitionParam{
			Name:        t.Name,
			Description: openai.String(t.Description),
			Parameters:  shared.FunctionParameters(jsonSchema(t)),
		}))
	}
	resp, err := p.client.Chat.Completions.New(ctx, openai.ChatCompletionNewParams{
		Model:    shared.ChatModel(req.Model),
		Messages: msgs,
		Tools:    tools,
	})
	if err != nil {
		var apiErr *openai.Error
		if errors.As(err, &apiErr) {
			msg := apiErr.Message
			if msg == "" {
				msg = strings.TrimSpace(apiErr.RawJSON())
			}
			var h http.Header
			if apiErr.Response != nil {
				h = apiErr.Response.Header
			}
			return modelReply{}, &statusError{Status: apiErr.StatusCode, Message: msg, RetryAfter: retryAfter(h)}
		}
		return modelReply{}, err
	}
	if len(resp.Choices) == 0 {
		return modelReply{}, errors.New("the model returned no choices")
	}
	choice := resp.Choices[0]
	reply := modelReply{
		Content:   choice.Message.Content,
		Tokens:    resp.Usage.PromptTokens + resp.Usage.CompletionTokens,
		Input:     resp.Usage.PromptTokens,
		Output:    resp.Usage.CompletionTokens,
		Truncated: choice.FinishReason == "length",
	}
	for _, tc := range choice.Message.ToolCalls {
		if tc.Type != "" && tc.Type != "function" {
			continue
		}
		reply.ToolCalls = append(reply.ToolCalls, ToolCall{ID: tc.ID, Name: tc.Function.Name, Arguments: rawArguments(tc.Function.Arguments)})
	}
	return reply, nil
}

// jsonSchema is a tool's arguments as a JSON Schema object.
func jsonSchema(t toolSpec) map[string]any {
	s := map[string]any{"type": "object", "properties": t.Properties}
	if len(t.Required) > 0 {
		s["required"] = t.Required
	}
	return s
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
