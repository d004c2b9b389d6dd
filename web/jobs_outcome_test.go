package main

import (
	"strings"
	"testing"

	"github.com/folio-docs/folio/agent"
	"github.com/folio-docs/folio/doccheck"
	"github.com/folio-docs/folio/internal/testenv"
)

// A model that keeps leaving broken frontmatter gets the checks' findings
// back a bounded number of times; then the job completes — honestly, with
// what is left in problems and its last words in summary.
func TestJobWithProblemsCompletesAndSaysSo(t *testing.T) {
	t.Parallel()
	m := testenv.NewModelServer(t, func(messages []testenv.ChatMessage) testenv.ModelReply {
		if last := messages[len(messages)-1]; last.Role == "tool" || strings.HasPrefix(last.Text(), testenv.ReviewNote) {
			return testenv.ModelReply{Text: "Added the broken page."}
		}
		return testenv.ModelReply{Calls: []testenv.ModelCall{{Name: "write_file", Args: map[string]string{
			"path": "broken.mdx", "content": "---\ntitle: [unclosed\n---\n\nBody.\n"}}}}
	})
	s := newTestServer(t, withModel(t, m))
	s.useRepository(t, newDocsRepo(t))

	var j map[string]any
	s.expect(201, "POST", "/v2/agent/{p}/job", `{"prompt":"Add a page."}`, &j)
	if j["summary"] != nil || j["problems"] == nil {
		t.Fatalf("a new job has summary %v and problems %v, want null and []", j["summary"], j["problems"])
	}
	done := s.pollJob(j["id"].(string))
	if done.Status != "completed" {
		t.Fatalf("job ended %+v, want completed", done)
	}
	s.expect(200, "GET", "/v2/agent/{p}/job/"+done.ID, "", &j)
	problems, _ := j["problems"].([]any)
	if j["summary"] != "Added the broken page." || len(problems) == 0 {
		t.Fatalf("summary %v, problems %v; want the final answer and the problems left", j["summary"], j["problems"])
	}
	first := problems[0].(map[string]any)
	if first["path"] != "broken.mdx" || first["severity"] != doccheck.SeverityError || first["message"] == "" {
		t.Fatalf("problem = %v", first)
	}
	// The model was given the findings DefaultValidationRounds times: one
	// write and one summary per round, plus the first, and its answer to
	// Folio's review.
	if got, want := m.Calls(), 2*(agent.DefaultValidationRounds+1)+1; got != want {
		t.Fatalf("the model was called %d times, want %d (%d validation rounds)", got, want, agent.DefaultValidationRounds)
	}
	var msgs struct {
		Messages []struct{ Role, Content string }
	}
	s.expect(200, "GET", "/v2/agent/{p}/job/"+done.ID+"/messages", "", &msgs)
	notes := 0
	for _, msg := range msgs.Messages {
		if msg.Role == "user" && strings.HasPrefix(msg.Content, testenv.ValidationNote) && strings.Contains(msg.Content, "broken.mdx") {
			notes++
		}
	}
	if notes != agent.DefaultValidationRounds {
		t.Fatalf("%d validation notes in the conversation, want %d", notes, agent.DefaultValidationRounds)
	}
}
