package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
)

// anthropicMaxTokens bounds a reply when the request names no limit: the
// Messages API requires one.
const anthropicMaxTokens = DefaultMaxOutputTokens

// anthropicVersion is the Messages API version Folio speaks.
const anthropicVersion = "2023-06-01"

// anthropicProvider speaks the Messages API with tool_use.
type anthropicProvider struct {
	api    *apiClient
	hasKey bool
}

func newAnthropic(baseURL, apiKey string, hc *http.Client) *anthropicProvider {
	h := http.Header{"X-Api-Key": {apiKey}, "Anthropic-Version": {anthropicVersion}}
	return &anthropicProvider{api: newAPIClient(baseURL, h, hc), hasKey: apiKey != ""}
}

// What the Messages API is sent and answers, as far as Folio uses it.
type (
	anthropicRequest struct {
		Model     string             `json:"model,omitempty"`
		MaxTokens int64              `json:"max_tokens"`
		System    []anthropicText    `json:"system"`
		Messages  []anthropicMessage `json:"messages,omitempty"`
		Tools     []anthropicTool    `json:"tools,omitempty"`
	}
	anthropicMessage struct {
		Role    string `json:"role"`
		Content []any  `json:"content"` // *anthropicText, *anthropicToolUse, *anthropicToolResult
	}
	// cacheControl marks a prompt-caching breakpoint: the prefix up to and
	// including the block that carries it is cached.
	cacheControl struct {
		Type string `json:"type"` // "ephemeral"
	}
	anthropicText struct {
		Type         string        `json:"type"`
		Text         string        `json:"text"`
		CacheControl *cacheControl `json:"cache_control,omitempty"`
	}
	anthropicToolUse struct {
		Type         string          `json:"type"`
		ID           string          `json:"id"`
		Name         string          `json:"name"`
		Input        json.RawMessage `json:"input"`
		CacheControl *cacheControl   `json:"cache_control,omitempty"`
	}
	anthropicToolResult struct {
		Type         string          `json:"type"`
		ToolUseID    string          `json:"tool_use_id"`
		IsError      bool            `json:"is_error"`
		Content      []anthropicText `json:"content"`
		CacheControl *cacheControl   `json:"cache_control,omitempty"`
	}
	anthropicTool struct {
		Name        string `json:"name"`
		Description string `json:"description"`
		InputSchema struct {
			Type       string         `json:"type"`
			Properties map[string]any `json:"properties"`
			Required   []string       `json:"required,omitzero"` // [] is sent, nil is not
			// Always false: Folio's tools take no other argument. (Anthropic's
			// strict tool use is a beta for some models; Folio does not ask
			// for it, and checks the arguments itself.)
			AdditionalProperties bool `json:"additionalProperties"`
		} `json:"input_schema"`
		CacheControl *cacheControl `json:"cache_control,omitempty"`
	}
	anthropicResponse struct {
		Content []struct {
			Type  jsonText        `json:"type"`
			Text  jsonText        `json:"text"`
			ID    jsonText        `json:"id"`
			Name  jsonText        `json:"name"`
			Input json.RawMessage `json:"input"`
		} `json:"content"`
		StopReason jsonText `json:"stop_reason"`
		// input_tokens counts only what came after the last cache
		// breakpoint: the cache's reads and writes are reported beside it.
		Usage struct {
			InputTokens              jsonCount `json:"input_tokens"`
			CacheReadInputTokens     jsonCount `json:"cache_read_input_tokens"`
			CacheCreationInputTokens jsonCount `json:"cache_creation_input_tokens"`
			OutputTokens             jsonCount `json:"output_tokens"`
		} `json:"usage"`
	}
)

func textBlock(s string) *anthropicText { return &anthropicText{Type: "text", Text: s} }

// ephemeral is the one kind of cache breakpoint.
var ephemeral = &cacheControl{Type: "ephemeral"}

// markCache sets a cache breakpoint on a block of a request.
func markCache(block any) {
	switch b := block.(type) {
	case *anthropicText:
		b.CacheControl = ephemeral
	case *anthropicToolUse:
		b.CacheControl = ephemeral
	case *anthropicToolResult:
		b.CacheControl = ephemeral
	}
}

func (p *anthropicProvider) complete(ctx context.Context, req modelRequest) (modelReply, error) {
	var msgs []anthropicMessage
	// The Messages API wants user and assistant turns to alternate, and tool
	// results inside a user turn: consecutive messages of one side merge.
	add := func(role string, blocks ...any) {
		if len(blocks) == 0 {
			return
		}
		if n := len(msgs); n > 0 && msgs[n-1].Role == role {
			msgs[n-1].Content = append(msgs[n-1].Content, blocks...)
			return
		}
		msgs = append(msgs, anthropicMessage{Role: role, Content: blocks})
	}
	for _, m := range req.Messages {
		switch m.Role {
		case RoleUser:
			if m.Content != "" {
				add("user", textBlock(m.Content))
			}
		case RoleTool:
			add("user", &anthropicToolResult{Type: "tool_result", ToolUseID: m.ToolCallID, IsError: m.IsError, Content: []anthropicText{*textBlock(m.Content)}})
		case RoleAssistant:
			var blocks []any
			if m.Content != "" {
				blocks = append(blocks, textBlock(m.Content))
			}
			for _, tc := range m.ToolCalls {
				input := tc.Arguments
				if !bytes.HasPrefix(bytes.TrimSpace(input), []byte("{")) {
					input = json.RawMessage("{}") // tool_use input must be an object
				}
				blocks = append(blocks, &anthropicToolUse{Type: "tool_use", ID: tc.ID, Name: tc.Name, Input: input})
			}
			add("assistant", blocks...)
		}
	}
	body := anthropicRequest{Model: req.Model, MaxTokens: req.MaxTokens, System: []anthropicText{*textBlock(req.System)}, Messages: msgs}
	if body.MaxTokens <= 0 {
		body.MaxTokens = anthropicMaxTokens
	}
	for _, t := range req.Tools {
		tool := anthropicTool{Name: t.Name, Description: t.Description}
		tool.InputSchema.Type, tool.InputSchema.Properties, tool.InputSchema.Required = "object", t.Properties, t.Required
		body.Tools = append(body.Tools, tool)
	}
	// Three cache breakpoints (of the four allowed): the tools and the
	// system prompt, the same on every call of a run, and the latest
	// message, so that the next call reads the whole conversation so far
	// from the cache (0.1 times the input price) instead of paying for it
	// again.
	if n := len(body.Tools); n > 0 {
		body.Tools[n-1].CacheControl = ephemeral
	}
	body.System[0].CacheControl = ephemeral
	if n := len(msgs); n > 0 {
		last := msgs[n-1].Content
		markCache(last[len(last)-1])
	}
	var resp anthropicResponse
	if err := p.api.call(ctx, http.MethodPost, "v1/messages", nil, body, &resp); err != nil {
		return modelReply{}, anthropicRefusal(err)
	}
	u := resp.Usage
	cached, written := int64(u.CacheReadInputTokens), int64(u.CacheCreationInputTokens)
	input, output := int64(u.InputTokens)+cached+written, int64(u.OutputTokens)
	reply := modelReply{
		Tokens:     input + output,
		Input:      input,
		Cached:     cached,
		CacheWrite: written,
		Output:     output,
		Truncated:  resp.StopReason == "max_tokens",
	}
	var text []string
	for _, b := range resp.Content {
		switch b.Type {
		case "text":
			text = append(text, string(b.Text))
		case "tool_use":
			args := b.Input
			if len(args) == 0 || string(args) == "null" {
				args = json.RawMessage("{}")
			}
			reply.ToolCalls = append(reply.ToolCalls, ToolCall{ID: string(b.ID), Name: string(b.Name), Arguments: args})
		}
	}
	reply.Content = strings.Join(text, "\n\n")
	return reply, nil
}

// anthropicRefusal reads what the Messages API said when it refused: the
// message of its {"error": {...}}, or the whole answer when it has none.
func anthropicRefusal(err error) error {
	var r *apiRefusal
	if !errors.As(err, &r) {
		return err
	}
	var body struct {
		Error struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	msg := strings.TrimSpace(string(r.body))
	if json.Unmarshal(r.body, &body) == nil && body.Error.Message != "" {
		msg = body.Error.Message
	}
	return &statusError{Status: r.status, Message: msg, RetryAfter: retryAfter(r.header)}
}
