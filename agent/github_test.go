package agent

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/folio-docs/folio/db"
	"github.com/folio-docs/folio/doccheck"
	"github.com/folio-docs/folio/internal/testenv"
)

func TestRunGitHub(t *testing.T) {
	gh := testenv.NewFakeGitHub(t, docsSite())
	model := newOpenAIServer(t,
		step{calls: []ToolCall{call("c1", "edit_file", map[string]string{"path": "index.mdx", "old_string": "Welcome", "new_string": "Welcome to Acme"})}},
		step{text: "Retitled the home page."},
	)
	var logs bytes.Buffer
	cfg := openAIConfig(model)
	cfg.Hosts = testHosts(gh.URL, gh.Token)
	cfg.Log = slog.New(slog.NewTextHandler(&logs, nil))
	a := newTestAgent(t, cfg)
	rec := &recorder{}
	run := Run{JobID: "jobg", Project: db.Project{ID: "p", Repository: "acme/docs", Ref: "main", DraftPRs: true}, Model: "gpt-test", Branch: "folio/jobg",
		History: []Message{{Role: RoleUser, Content: "Retitle the home page\nIt should name the product."}}}
	res, err := a.Run(context.Background(), run, rec.record)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if res.PRLink != "https://github.com/acme/docs/pull/1" {
		t.Fatalf("prLink = %q", res.PRLink)
	}
	if got := gitT(t, gh.Bare, "show", "folio/jobg:index.mdx"); !strings.Contains(got, "title: Welcome to Acme") {
		t.Fatalf("branch that arrived has index.mdx:\n%s", got)
	}
	pulls := gh.Pulls()
	if len(pulls) != 1 {
		t.Fatalf("%d pull requests opened", len(pulls))
	}
	if c := pulls[0]; c.Head != "folio/jobg" || c.Base != "main" || !c.Draft || c.Title != "Retitle the home page" || !strings.Contains(c.Body, "Retitled the home page.") {
		t.Fatalf("pull request opened = %+v", c)
	}

	// Follow-up: another commit on the branch, the same pull request updated.
	model.steps = []step{
		{calls: []ToolCall{call("c2", "edit_file", map[string]string{"path": "index.mdx", "old_string": "Read the", "new_string": "Start with the"})}},
		{text: "Reworded the intro."},
	}
	run.PRLink = res.PRLink
	run.History = append(append(run.History, rec.all()...), Message{Role: RoleUser, Content: "Reword the intro"})
	res2, err := a.Run(context.Background(), run, rec.record)
	if err != nil || res2.PRLink != res.PRLink {
		t.Fatalf("follow-up = %+v, %v", res2, err)
	}
	if n := gitT(t, gh.Bare, "rev-list", "--count", "main..folio/jobg"); n != "2" {
		t.Fatalf("branch has %s commits over main, want 2", n)
	}
	edits := gh.Requests("PATCH", "/repos/acme/docs/pulls/1")
	if len(gh.Pulls()) != 1 || len(edits) != 1 || !strings.Contains(edits[0].Body["body"].(string), "Reword the intro") {
		t.Fatalf("pull requests %+v, edits %+v; want the one pull request updated", gh.Pulls(), edits)
	}
	if n := gh.BadAuth(); n != 0 {
		t.Fatalf("%d API calls without the token", n)
	}
	if strings.Contains(logs.String(), gh.Token) || strings.Contains(fmt.Sprint(rec.all()), gh.Token) {
		t.Fatal("the token leaked into logs or the conversation")
	}

	// A bad token is a permanent failure that does not print the token.
	cfg.Hosts = testHosts(gh.URL, "ghs_wrong")
	_, err = newTestAgent(t, cfg).Run(context.Background(), run, rec.record)
	if !IsPermanent(err) || !strings.Contains(err.Error(), "Bad credentials") || strings.Contains(err.Error(), "ghs_wrong") {
		t.Fatalf("err = %v; want a permanent error with GitHub's message and no token", err)
	}
}

// A pull request whose branch still has errors is opened as a draft, with
// the problems in its body, even on a project that opens ready ones.
func TestRunGitHubDraftWhenErrorsRemain(t *testing.T) {
	gh := testenv.NewFakeGitHub(t, docsSite())
	broken := step{calls: []ToolCall{call("c1", "write_file", map[string]string{"path": "broken.mdx", "content": "---\ntitle: [unclosed\n---\n\nBody.\n"})}}
	steps := []step{}
	for range DefaultValidationRounds + 1 {
		steps = append(steps, broken, step{text: "Added a page."})
	}
	cfg := openAIConfig(newOpenAIServer(t, steps...))
	cfg.Hosts = testHosts(gh.URL, gh.Token)
	run := Run{JobID: "jobg", Project: db.Project{ID: "p", Repository: "acme/docs", Ref: "main"}, Model: "gpt-test", Branch: "folio/jobg",
		History: []Message{{Role: RoleUser, Content: "Add a page"}}}
	res, err := newTestAgent(t, cfg).Run(context.Background(), run, (&recorder{}).record)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if !doccheck.HasErrors(res.Problems) || res.Summary != "Added a page." {
		t.Fatalf("result summary %q problems %v, want errors left", res.Summary, res.Problems)
	}
	if pulls := gh.Pulls(); len(pulls) != 1 || !pulls[0].Draft || !strings.Contains(pulls[0].Body, "broken.mdx") {
		t.Fatalf("pull requests opened = %+v, want a draft naming broken.mdx", pulls)
	}
}
