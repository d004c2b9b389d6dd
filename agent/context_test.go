package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// readTurn is a turn of n read_file calls, each answered with size bytes.
func readTurn(n, size int) []Message {
	turn := []Message{{Role: RoleUser, Content: "Look around"}}
	for i := range n {
		id := fmt.Sprintf("c%d", i)
		turn = append(turn,
			Message{Role: RoleAssistant, ToolCalls: []ToolCall{call(id, "read_file", map[string]string{"path": "a.mdx"})}},
			Message{Role: RoleTool, ToolCallID: id, ToolName: "read_file", Content: strings.Repeat("x", size)})
	}
	return turn
}

// whole lists the tool outputs of view sent as they were.
func whole(view []Message) []string {
	var ids []string
	for _, m := range view {
		if m.Role == RoleTool && !strings.HasPrefix(m.Content, folioNote) {
			ids = append(ids, m.ToolCallID)
		}
	}
	return ids
}

func TestMaskOutputs(t *testing.T) {
	ids := func(from, to int) []string {
		var out []string
		for i := from; i < to; i++ {
			out = append(out, fmt.Sprintf("c%d", i))
		}
		return out
	}
	for _, tc := range []struct {
		name      string
		n, size   int
		lim       contextLimits
		wantWhole []string
	}{
		{"five kept", 5, 1000, normalContext, ids(0, 5)},
		{"nine kept until a batch is due", 9, 1000, normalContext, ids(0, 9)},
		{"ten: five masked", 10, 1000, normalContext, ids(5, 10)},
		{"fourteen: still five masked", 14, 1000, normalContext, ids(5, 14)},
		{"fifteen: ten masked", 15, 1000, normalContext, ids(10, 15)},
		{"large outputs: 128 KB kept", 3, 60 << 10, normalContext, ids(1, 3)},
		{"the latest is kept whatever its size", 2, 200 << 10, normalContext, ids(1, 2)},
		{"tight: only the latest", 4, 1000, tightContext, ids(3, 4)},
		{"short outputs are never masked", 15, 100, normalContext, ids(0, 15)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			turn := readTurn(tc.n, tc.size)
			before := fmt.Sprint(turn)
			view := maskOutputs(turn, tc.lim)
			if got := whole(view); !reflect.DeepEqual(got, tc.wantWhole) {
				t.Fatalf("whole: %v, want %v", got, tc.wantWhole)
			}
			if fmt.Sprint(turn) != before {
				t.Fatal("the recorded messages changed")
			}
			for _, m := range view {
				if m.Role == RoleTool && strings.HasPrefix(m.Content, folioNote) &&
					m.Content != fmt.Sprintf("[Folio] This earlier output of read_file (%d bytes) is hidden to keep the conversation short. Call the tool again if you need it.", tc.size) {
					t.Fatalf("mask = %q", m.Content)
				}
			}
		})
	}
}

// A masked call's long arguments are masked with its output; short ones,
// and the calls kept whole, are sent as they were.
func TestMaskOutputsArguments(t *testing.T) {
	page := strings.Repeat("Lorem ipsum. ", 100)
	turn := []Message{{Role: RoleUser, Content: "Write"},
		{Role: RoleAssistant, ToolCalls: []ToolCall{
			call("w", "write_file", map[string]string{"path": "a.mdx", "content": page}),
			call("d", "delete_file", map[string]string{"path": "b.mdx"}),
		}},
		{Role: RoleTool, ToolCallID: "w", ToolName: "write_file", Content: "wrote a.mdx"},
		{Role: RoleTool, ToolCallID: "d", ToolName: "delete_file", Content: "deleted b.mdx"},
		{Role: RoleAssistant, ToolCalls: []ToolCall{call("w2", "write_file", map[string]string{"path": "c.mdx", "content": page})}},
		{Role: RoleTool, ToolCallID: "w2", ToolName: "write_file", Content: "wrote c.mdx"},
	}
	view := maskOutputs(turn, tightContext)
	var args map[string]string
	json.Unmarshal(view[1].ToolCalls[0].Arguments, &args)
	if args["path"] != "a.mdx" || args["content"] != "[Folio] 1300 bytes, hidden to keep the conversation short; read the file to see what it holds now." {
		t.Fatalf("masked call's arguments = %v", args)
	}
	if string(view[1].ToolCalls[1].Arguments) != `{"path":"b.mdx"}` || !reflect.DeepEqual(view[4], turn[4]) {
		t.Fatalf("short arguments or the latest call changed: %s, %+v", view[1].ToolCalls[1].Arguments, view[4])
	}
	if string(turn[1].ToolCalls[0].Arguments) == string(view[1].ToolCalls[0].Arguments) {
		t.Fatal("the recorded call changed")
	}
}

// Earlier turns are sent as their prompts and the agent's words, and a
// note of what they changed; Folio's own notes are left out.
func TestCompactTurns(t *testing.T) {
	earlier := []Message{
		{Role: RoleUser, Content: "Add a page"},
		{Role: RoleAssistant, Content: "Let me look.", ToolCalls: []ToolCall{call("a", "read_file", map[string]string{"path": "index.mdx"})}},
		{Role: RoleTool, ToolCallID: "a", Content: "the page"},
		{Role: RoleAssistant, ToolCalls: []ToolCall{
			call("b", "write_file", map[string]string{"path": "new.mdx", "content": "x"}),
			call("c", "edit_file", map[string]string{"path": "docs.json", "old_string": "a", "new_string": "b"}),
		}},
		{Role: RoleTool, ToolCallID: "b", Content: "wrote"},
		{Role: RoleTool, ToolCallID: "c", Content: "edited"},
		{Role: RoleUser, Content: validationNote + "\n- new.mdx: broken"},
		{Role: RoleUser, Content: warningNote("2 model calls are left of its 60")},
		{Role: RoleAssistant, ToolCalls: []ToolCall{
			call("d", "edit_file", map[string]string{"path": "new.mdx", "old_string": "a", "new_string": "b"}),
			call("e", "move_file", map[string]string{"from": "old.mdx", "to": "new.mdx"}),
			call("f", "write_file", map[string]string{"path": "new.mdx", "content": "y"}),
		}},
		{Role: RoleAssistant, Content: "Added the page."},
	}
	got := compactTurns(earlier)
	var shape []string
	for _, m := range got {
		shape = append(shape, m.Role+": "+m.Content)
	}
	want := []string{
		"user: Add a page",
		"assistant: Let me look.",
		"assistant: Added the page.",
		"user: [Folio] The earlier turns are shown without their tool calls and results, to keep the conversation short. " +
			"What they changed is on the branch; read the files again before you change them:\n" +
			"- write_file new.mdx\n- edit_file docs.json\n- edit_file new.mdx\n- move_file old.mdx new.mdx",
	}
	if !reflect.DeepEqual(shape, want) {
		t.Fatalf("compacted:\n%s\nwant\n%s", strings.Join(shape, "\n"), strings.Join(want, "\n"))
	}
	if compactTurns(nil) != nil {
		t.Fatal("no earlier turn gives no note")
	}
	if got := turnStart(append(earlier, Message{Role: RoleUser, Content: "a"}, Message{Role: RoleUser, Content: "b"})); got != len(earlier) {
		t.Fatalf("turnStart = %d, want %d", got, len(earlier))
	}
}

// A run of many calls: each request carries the latest 5 to 9 outputs
// whole and the rest masked, while the job's messages keep every output.
func TestRunMasksOldOutputs(t *testing.T) {
	repo := newTestRepo(t, generatedSite(100))
	var steps []step
	for i := range 16 {
		steps = append(steps, step{calls: []ToolCall{call(fmt.Sprintf("r%d", i), "read_file", map[string]string{"path": fmt.Sprintf("section-%02d/page-%03d.mdx", i%20, i%5)})}})
	}
	m := newOpenAIServer(t, append(steps, step{text: "Read enough."})...)
	rec := &recorder{}
	if _, err := newTestAgent(t, openAIConfig(m)).Run(context.Background(), localRun(repo, "jm", "Read the pages"), rec.record); err != nil {
		t.Fatal(err)
	}
	for i, req := range m.requests {
		n, masked := 0, 0
		for _, msg := range req["messages"].([]any) {
			msg := msg.(map[string]any)
			if msg["role"] == "tool" {
				n++
				if strings.HasPrefix(msg["content"].(string), folioNote) {
					masked++
				}
			}
		}
		want := 0
		if n > keepOutputs {
			want = (n - keepOutputs) / maskBatch * maskBatch
		}
		if n != i || masked != want {
			t.Fatalf("request %d: %d outputs, %d masked; want %d, %d masked", i+1, n, masked, i, want)
		}
	}
	for _, msg := range rec.all() {
		if strings.Contains(msg.Content, "hidden to keep") {
			t.Fatalf("a recorded message is masked: %+v", msg)
		}
	}
}
