package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"

	"github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"
)

// anthropicMaxTokens bounds one reply; a long page fits well within it.
const anthropicMaxTokens = 16000

// anthropicProvider speaks the Messages API with tool_use.
type anthropicProvider struct {
	client anthropic.Client
}

func newAnthropic(baseURL, apiKey string, hc *http.Client) *anthropicProvider {
	opts := []option.RequestOption{
		option.WithBaseURL(strings.TrimRight(baseURL, "/") + "/"),
		option.WithAPIKey(apiKey),
		option.WithMaxRetries(0), // completeWithRetry retries, the same way for every provider
	}
	if hc != nil {
		opts = append(opts, option.WithHTTPClient(hc))
	}
	return &anthropicProvider{client: anthropic.NewClient(opts...)}
}

func (p *anthropicProvider) complete(ctx context.Context, req modelRequest) (modelReply, error) {
	var msgs []anthropic.MessageParam
	// The Messages API wants user and assistant turns to alternate, and tool
	// results inside a user turn: consecutive messages of one side merge.
	add := func(role anthropic.MessageParamRole, blocks ...anthropic.ContentBlockParamUnion) {
		if len(blocks) == 0 {
			return
		}
		if n := len(msgs); n > 0 && msgs[n-1].Role == role {
			msgs[n-1].Content = append(msgs[n-1].Content, blocks...)
			return
		}
		msgs = append(msgs, anthropic.MessageParam{Role: role, Content: blocks})
	}
	for _, m := range req.Messages {
		switch m.Role {
		case RoleUser:
			if m.Content != "" {
				add(anthropic.MessageParamRoleUser, anthropic.NewTextBlock(m.Content))
			}
		case RoleTool:
			add(anthropic.MessageParamRoleUser, anthropic.NewToolResultBlock(m.ToolCallID, m.Content, m.IsError))
		case RoleAssistant:
			var blocks []anthropic.ContentBlockParamUnion
			if m.Content != "" {
				blocks = append(blocks, anthropic.NewTextBlock(m.Content))
			}
			for _, tc := range m.ToolCalls {
				input := tc.Arguments
				if !bytes.HasPrefix(bytes.TrimSpace(input), []byte("{")) {
					input = json.RawMessage("{}") // tool_use input must be an object
				}
				blocks = append(blocks, anthropic.NewToolUseBlock(tc.ID, input, tc.Name))
			}
			add(anthropic.MessageParamRoleAssistant, blocks...)
		}
	}
	var tools []anthropic.ToolUnionParam
	for _, t := range req.Tools {
		tools = append(tools, anthropic.ToolUnionParam{OfTool: &anthropic.ToolParam{
			Name:        t.Name,
			Description: anthropic.String(t.Description),
			InputSchema: anthropic.ToolInputSchemaParam{Properties: t.Properties, Required: t.Required},
		}})
	}
	maxTokens := req.MaxTokens
	if maxTokens <= 0 {
		maxTokens = anthropicMaxTokens
	}
	resp, err := p.client.Messages.New(ctx, anthropic.MessageNewParams{
		Model:     anthropic.Model(req.Model),
		MaxTokens: maxTokens,
		System:    []anthropic.TextBlockParam{{Text: req.System}},
		Messages:  msgs,
		Tools:     tools,
	})
	if err != nil {
		var apiErr *anthropic.Error
		if errors.As(err, &apiErr) {
			var body struct {
				Error struct {
					Message string `json:"message"`
				} `json:"error"`
			}
			msg := strings.TrimSpace(apiErr.RawJSON())
			if json.Unmarshal([]byte(msg), &body) == nil && body.Error.Message != "" {
				msg = body.Error.Message
			}
			var h http.Header
			if apiErr.Response != nil {
				h = apiErr.Response.Header
			}
			return modelReply{}, &statusError{Status: apiErr.StatusCode, Message: msg, RetryAfter: retryAfter(h)}
		}
		return modelReply{}, err
	}
	reply := modelReply{
		Tokens:    resp.Usage.InputTokens + resp.Usage.OutputTokens,
		Input:     resp.Usage.InputTokens,
		Output:    resp.Usage.OutputTokens,
		Truncated: resp.StopReason == anthropic.StopReasonMaxTokens,
	}
	var text []string
	for _, b := range resp.Content {
		switch b.Type {
		case "text":
			text = append(text, b.Text)
		case "tool_use":
			args := json.RawMessage(b.Input)
			if len(args) == 0 {
				args = json.RawMessage("{}")
			}
			reply.ToolCalls = append(reply.ToolCalls, ToolCall{ID: b.ID, Name: b.Name, Arguments: args})
		}
	}
	reply.Content = strings.Join(text, "\n\n")
	return reply, nil
}
