package agent

import (
	"fmt"
	"strings"

	"github.com/folio-docs/folio/agent/workspace"
	"github.com/folio-docs/folio/doccheck"
)

// validationNote opens the message that hands validation problems back to
// the model; such messages are Folio's, not the user's prompts.
const validationNote = "Folio checked your changes before opening the pull request and found problems. Fix them, then answer with your summary again:"

// userPrompts are the user's own prompts in the conversation, oldest first.
func userPrompts(msgs []Message) []string {
	var out []string
	for _, m := range msgs {
		if m.Role == RoleUser && !isFolioNote(m.Content) && strings.TrimSpace(m.Content) != "" {
			out = append(out, strings.TrimSpace(m.Content))
		}
	}
	return out
}

// finalAnswer is the model's last words: its summary of the turn.
func finalAnswer(msgs []Message) string {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == RoleAssistant && len(msgs[i].ToolCalls) == 0 && strings.TrimSpace(msgs[i].Content) != "" {
			return strings.TrimSpace(msgs[i].Content)
		}
	}
	return ""
}

// headline shortens text to its first line, at most n characters.
func headline(text string, n int) string {
	line, _, _ := strings.Cut(strings.TrimSpace(text), "\n")
	line = strings.TrimSpace(line)
	if r := []rune(line); len(r) > n {
		line = strings.TrimSpace(string(r[:n-1])) + "…"
	}
	return line
}

func prTitle(prompts []string) string {
	if len(prompts) == 0 {
		return "Docs update by Folio"
	}
	return headline(prompts[0], 72)
}

var statusWords = map[string]string{"A": "added", "M": "modified", "D": "deleted"}

func commitMessage(jobID, prompt string, changes []workspace.Change) string {
	var b strings.Builder
	subject := headline(prompt, 68)
	if subject == "" {
		subject = "Update docs"
	}
	b.WriteString("docs: " + subject + "\n\n")
	for _, c := range changes {
		fmt.Fprintf(&b, "- %s %s\n", statusWords[c.Status], c.Path)
	}
	fmt.Fprintf(&b, "\nFolio-Job: %s\n", jobID)
	return b.String()
}

func prBody(jobID string, prompts []string, summary string, changes []workspace.Change, problems []doccheck.Problem, stopped string) string {
	var b strings.Builder
	b.WriteString("## Request\n\n")
	for i, p := range prompts {
		if i > 0 {
			b.WriteString("\nFollow-up:\n\n")
		}
		b.WriteString("> " + strings.ReplaceAll(p, "\n", "\n> ") + "\n")
	}
	if stopped != "" {
		b.WriteString("\n## Stopped before finishing\n\nFolio stopped the agent: " + stopped + " This pull request holds what it changed until then.\n")
	} else if summary != "" {
		b.WriteString("\n## Summary\n\n" + summary + "\n")
	}
	if len(changes) > 0 {
		b.WriteString("\n## Latest changes\n\n")
		for _, c := range changes {
			fmt.Fprintf(&b, "- `%s` (%s)\n", c.Path, statusWords[c.Status])
		}
	}
	if len(problems) > 0 {
		b.WriteString("\n## Validation problems left\n\nFolio's checks still report these; please review them:\n\n")
		for _, p := range problems {
			b.WriteString("- " + p.String() + "\n")
		}
	}
	fmt.Fprintf(&b, "\n---\nOpened by Folio for agent job `%s`.\n", jobID)
	return b.String()
}

// stillReady says plainly that the pull request is ready for review
// although its change is not ready to merge: someone marked it ready, and
// the code host would not turn it back into a draft, for reason.
func stillReady(stopped bool, reason string) string {
	why := "Folio's checks found errors in it"
	if stopped {
		why = "the agent stopped before it finished"
	}
	return "The pull request is still marked ready for review although " + why +
		": Folio could not turn it back into a draft (" + reason + "). Do not merge it as it is."
}
