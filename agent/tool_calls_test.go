package agent

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

// Every call of a reply that asks for several is answered, in order, each
// with its own result, over both providers' wire formats; arguments that
// are malformed, of the wrong kind or unknown get plain words back, and do
// not stop the calls after them.
func TestRunAnswersEveryCallOfAReply(t *testing.T) {
	calls := []ToolCall{
		call("k1", "read_file", map[string]string{"path": "guides/quickstart.mdx"}),
		{ID: "k2", Name: "search_files", Arguments: json.RawMessage(`{"query": "install"`)}, // cut short
		{ID: "k3", Name: "read_file", Arguments: json.RawMessage(`{"path": 7, "offset": "two"}`)},
		{ID: "k4", Name: "read_file", Arguments: json.RawMessage(`{"file": "index.mdx"}`)},
		call("k5", "rename_page", map[string]string{"from": "a"}),
		call("k6", "write_file", map[string]string{"path": "guides/faq.mdx", "content": "---\ntitle: FAQ\n---\n\nAsk away.\n"}),
	}
	want := []struct {
		id, text string
		isErr    bool
	}{
		{"k1", "     6\tInstall the CLI.", false},
		{"k2", `the arguments are not valid JSON (they end before the object is closed): {"query": "install". Send one JSON object, like {"query": "api key"}`, true},
		{"k3", `argument "path" must be a string, not the number 7; argument "offset" must be a whole number, like 40, not the text "two"`, true},
		{"k4", `read_file has no argument "file"; its arguments are "path", "offset" and "limit"`, true},
		{"k5", `there is no tool "rename_page"; the tools are list_files, read_file, search_files, write_file, edit_file, move_file and delete_file`, true},
		{"k6", "wrote guides/faq.mdx (30 bytes)\nChecks of guides/faq.mdx: no problems.", false},
	}
	for _, provider := range []string{"openai", "anthropic"} {
		t.Run(provider, func(t *testing.T) {
			repo := newTestRepo(t, nil)
			var m *scriptedModel
			var cfg Config
			calls, want := calls, want
			if provider == "anthropic" {
				// The Messages API's input is always an object: no text cut
				// short, but a required argument sent as null.
				calls, want = append([]ToolCall(nil), calls...), append(want[:0:0], want...)
				calls[1].Arguments = json.RawMessage(`{"query": null}`)
				want[1].text = `argument "query" is required`
			}
			steps := []step{{text: "Several at once.", calls: calls}, {text: "Added an FAQ."}}
			if provider == "openai" {
				m = newOpenAIServer(t, steps...)
				cfg = openAIConfig(m)
			} else {
				m = newAnthropicServer(t, steps...)
				cfg = Config{Provider: "anthropic", AnthropicBaseURL: m.server.URL, AnthropicAPIKey: "sk-ant-test"}
			}
			rec := &recorder{}
			res, err := newTestAgent(t, cfg).Run(context.Background(), localRun(repo, "jm", "Add an FAQ"), rec.record)
			if err != nil || !res.Changed {
				t.Fatalf("Run = %+v, %v", res, err)
			}
			// Recorded: the reply, then one result per call, in order.
			msgs := rec.all()
			if len(msgs) < 1+len(want) || len(msgs[0].ToolCalls) != len(calls) {
				t.Fatalf("recorded %d messages, the first with %d calls", len(msgs), len(msgs[0].ToolCalls))
			}
			for i, w := range want {
				got := msgs[1+i]
				if got.Role != RoleTool || got.ToolCallID != w.id || got.IsError != w.isErr || !strings.Contains(got.Content, w.text) {
					t.Errorf("result %d = %+v\nwant %s (error %v) containing %q", i+1, got, w.id, w.isErr, w.text)
				}
			}
			// On the wire, the next request answers each call by its id.
			m.mu.Lock()
			next := m.requests[1]["messages"].([]any)
			m.mu.Unlock()
			var answered []string
			for _, raw := range next {
				msg := raw.(map[string]any)
				if provider == "openai" && msg["role"] == "tool" {
					answered = append(answered, msg["tool_call_id"].(string))
				}
				if blocks, ok := msg["content"].([]any); ok && provider == "anthropic" {
					for _, b := range blocks {
						if b := b.(map[string]any); b["type"] == "tool_result" {
							answered = append(answered, b["tool_use_id"].(string))
							if wantErr := b["tool_use_id"] != "k1" && b["tool_use_id"] != "k6"; b["is_error"] != wantErr {
								t.Errorf("tool_result %v: is_error %v", b["tool_use_id"], b["is_error"])
							}
						}
					}
				}
			}
			if strings.Join(answered, ",") != "k1,k2,k3,k4,k5,k6" {
				t.Fatalf("the next request answers %v, want k1 to k6 in order", answered)
			}
		})
	}
}
