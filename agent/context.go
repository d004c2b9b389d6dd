package agent

import (
	"encoding/json"
	"fmt"
	"strings"
)

// What the model is sent of a conversation: the recorded messages stay
// whole (the job's messages, the pull request), but a request carries a
// bounded view of them, so that its size does not grow with every call.
//
//   - Tool outputs are masked once they are no longer among the latest
//     few. SWE-agent keeps the last 5 observations (18.0 % solved against
//     15.0 % with the whole history, in its paper's ablation); JetBrains
//     Research ("The Complexity Trap", 2025) found that masking old
//     observations halves the cost and matches summaries' solve rate. Folio
//     keeps the latest 5 to 9: outputs are masked 5 at a time, so the
//     conversation's prefix stays the same for 5 calls and a provider's
//     prompt cache (Anthropic's breakpoints, OpenAI's own) keeps serving it
//     in between. The arguments of a masked call (a page written
//     whole) are masked with it. The model can always call the tool again.
//   - The calls kept whole are also held to keptCallBytes together: a few
//     large outputs do not fill the context. The latest call is never masked.
//   - A follow-up carries the earlier turns compacted: their prompts and the
//     agent's words, without the tool calls and results, and one note of the
//     files those turns changed, which are on the branch to read again.
const (
	keepOutputs   = 5
	maskBatch     = 5
	keptCallBytes = 128 << 10
	// maskMinBytes: an output or argument this short costs no more than
	// the note that would replace it.
	maskMinBytes = 320
	// maxChangeLines bounds the note of what earlier turns changed.
	maxChangeLines = 100
)

// contextLimits says how much of the conversation a request carries whole.
type contextLimits struct {
	keep  int // tool outputs kept whole at least
	batch int // masked this many at a time
	bytes int // of the calls kept whole, together
	// whole sends the conversation as recorded, nothing masked or
	// compacted: what Folio did before, kept to measure against.
	whole bool
}

var (
	normalContext = contextLimits{keep: keepOutputs, batch: maskBatch, bytes: keptCallBytes}
	// tightContext is a second try after the provider said the request
	// exceeds the model's context window: only the latest call stays whole.
	tightContext = contextLimits{keep: 1, batch: 1, bytes: 0}
)

// folioNote opens the messages Folio adds to a conversation (warnings, a
// cut reply, what earlier turns did): they are Folio's, not the user's
// prompts.
const folioNote = "[Folio] "

// isFolioNote reports whether a user message is Folio's rather than a prompt.
func isFolioNote(content string) bool {
	return strings.HasPrefix(content, folioNote) || strings.HasPrefix(content, validationNote)
}

// turnStart is where the turn being run begins in history: at its prompts,
// the user messages it ends with.
func turnStart(history []Message) int {
	i := len(history)
	for i > 0 && history[i-1].Role == RoleUser {
		i--
	}
	return i
}

// contextView is what a request carries of msgs, whose messages from start
// on are the turn being run.
func contextView(msgs []Message, start int, lim contextLimits) []Message {
	if lim.whole {
		return msgs
	}
	view := compactTurns(msgs[:start])
	return append(view, maskOutputs(msgs[start:], lim)...)
}

// compactTurns is earlier turns without their tool calls and results: the
// prompts and what the agent said, then a note of the files they changed.
func compactTurns(earlier []Message) []Message {
	var out []Message
	var changed []string
	seen := map[string]bool{}
	afterReview := false // Folio's review came after the last message kept
	for _, m := range earlier {
		switch m.Role {
		case RoleUser:
			if !isFolioNote(m.Content) && strings.TrimSpace(m.Content) != "" {
				out = append(out, Message{Role: RoleUser, Content: m.Content})
				afterReview = false
			} else if strings.HasPrefix(m.Content, reviewNote) {
				afterReview = true
			}
		case RoleAssistant:
			if strings.TrimSpace(m.Content) != "" {
				// Words said again in answer to Folio's note (its review
				// before finishing) replace the earlier ones: the turn's last.
				if n := len(out); n > 0 && out[n-1].Role == RoleAssistant && afterReview {
					out = out[:n-1]
				}
				out = append(out, Message{Role: RoleAssistant, Content: m.Content})
				afterReview = false
			}
			for _, tc := range m.ToolCalls {
				if line := changeLine(tc); line != "" && !seen[line] {
					seen[line] = true
					changed = append(changed, line)
				}
			}
		}
	}
	if len(out) == 0 {
		return nil
	}
	note := folioNote + "The earlier turns are shown without their tool calls and results, to keep the conversation short. "
	if len(changed) == 0 {
		note += "They changed no file."
	} else {
		if len(changed) > maxChangeLines {
			changed = append(changed[:maxChangeLines], fmt.Sprintf("(and %d more)", len(changed)-maxChangeLines))
		}
		note += "What they changed is on the branch; read the files again before you change them:\n- " + strings.Join(changed, "\n- ")
	}
	return append(out, Message{Role: RoleUser, Content: note})
}

// changeLine names what a call changed ("edit_file docs.json"), or ""
// for a call that changes nothing.
func changeLine(tc ToolCall) string {
	switch tc.Name {
	case "write_file", "edit_file", "delete_file", "move_file":
	default:
		return ""
	}
	var args map[string]any
	_ = json.Unmarshal(tc.Arguments, &args) // arguments that do not parse name no path: the line is the tool's name alone
	line := tc.Name
	for _, k := range []string{"path", "from", "to"} {
		if s, ok := args[k].(string); ok && s != "" {
			line += " " + s
		}
	}
	return line
}

// maskOutputs is a turn's messages with the outputs no longer among the
// latest lim.keep masked, lim.batch at a time, and then more, oldest first,
// while the calls kept whole exceed lim.bytes; the latest call is kept.
func maskOutputs(turn []Message, lim contextLimits) []Message {
	var outputs []int // indexes of tool results, oldest first
	call := map[string]int{}
	for i, m := range turn {
		switch m.Role {
		case RoleTool:
			outputs = append(outputs, i)
		case RoleAssistant:
			for _, tc := range m.ToolCalls {
				call[tc.ID] = len(tc.Arguments)
			}
		}
	}
	masked := 0
	if n := len(outputs); n > lim.keep {
		masked = (n - lim.keep) / lim.batch * lim.batch
	}
	// Then by size, from the newest call back.
	size := 0
	for j := len(outputs) - 1; j >= masked; j-- {
		m := turn[outputs[j]]
		size += len(m.Content) + call[m.ToolCallID]
		if size > lim.bytes && j < len(outputs)-1 {
			masked = j + 1
			break
		}
	}
	if masked == 0 {
		return turn
	}
	view := append([]Message(nil), turn...)
	hidden := map[string]bool{}
	for _, i := range outputs[:masked] {
		m := view[i]
		hidden[m.ToolCallID] = true
		if len(m.Content) > maskMinBytes {
			m.Content = fmt.Sprintf("%sThis earlier output of %s (%d bytes) is hidden to keep the conversation short. Call the tool again if you need it.", folioNote, m.ToolName, len(m.Content))
			view[i] = m
		}
	}
	for i, m := range view {
		if m.Role != RoleAssistant {
			continue
		}
		var calls []ToolCall
		for k, tc := range m.ToolCalls {
			if !hidden[tc.ID] || len(tc.Arguments) <= maskMinBytes {
				continue
			}
			if calls == nil {
				calls = append([]ToolCall(nil), m.ToolCalls...)
			}
			calls[k].Arguments = maskArguments(tc)
		}
		if calls != nil {
			m.ToolCalls = calls
			view[i] = m
		}
	}
	return view
}

// maskArguments replaces a call's long string arguments (the content of a
// page written, an edit's text) with a note of their size.
func maskArguments(tc ToolCall) json.RawMessage {
	var args map[string]any
	if json.Unmarshal(tc.Arguments, &args) != nil {
		return tc.Arguments
	}
	for k, v := range args {
		if s, ok := v.(string); ok && len(s) > maskMinBytes {
			args[k] = fmt.Sprintf("%s%d bytes, hidden to keep the conversation short; read the file to see what it holds now.", folioNote, len(s))
		}
	}
	b, err := json.Marshal(args)
	if err != nil {
		return tc.Arguments
	}
	return b
}
