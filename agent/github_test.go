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

// A follow-up on a job whose pull request someone marked ready for review
// turns it back into a draft when the change is not ready to merge: the
// run stopped at a limit, or errors are left. When GitHub refuses (a token
// without the permission), the pull request is still updated, and the
// job's summary and problems say plainly that it stays ready.
func TestRunGitHubReadyPullRequestGoesBackToDraft(t *testing.T) {
	broken := step{calls: []ToolCall{call("b1", "write_file", map[string]string{"path": "broken.mdx", "content": "---\ntitle: [unclosed\n---\n\nBody.\n"})}}
	// readyPullRequest is job "jobr" after a clean first turn whose pull
	// request a reviewer then marked ready.
	readyPullRequest := func(t *testing.T) (*testenv.FakeGitHub, *scriptedModel, *Agent, Run) {
		t.Helper()
		gh := testenv.NewFakeGitHub(t, docsSite())
		m := newOpenAIServer(t,
			step{calls: []ToolCall{call("c1", "edit_file", map[string]string{"path": "index.mdx", "old_string": "Welcome", "new_string": "Welcome to Acme"})}},
			step{text: "Retitled the home page."})
		cfg := openAIConfig(m)
		cfg.Hosts = testHosts(gh.URL, gh.Token)
		cfg.MaxSteps = 4
		a := newTestAgent(t, cfg)
		rec := &recorder{}
		run := Run{JobID: "jobr", Project: db.Project{ID: "p", Repository: "acme/docs", Ref: "main"}, Model: "gpt-test", Branch: "folio/jobr",
			History: []Message{{Role: RoleUser, Content: "Retitle the home page"}}}
		res, err := a.Run(context.Background(), run, rec.record)
		if err != nil || res.PRLink != "https://github.com/acme/docs/pull/1" || gh.Pulls()[0].Draft {
			t.Fatalf("first turn = %+v, %v, pulls %+v; want a ready pull request", res, err, gh.Pulls())
		}
		gh.MarkReadyOnGitHub(t, 1)
		run.PRLink = res.PRLink
		run.History = append(append(run.History, rec.all()...), Message{Role: RoleUser, Content: "Add a page"})
		return gh, m, a, run
	}
	t.Run("stopped at a limit", func(t *testing.T) {
		gh, m, a, run := readyPullRequest(t)
		m.steps = []step{broken, listing("l1"), listing("l2"), listing("l3"), listing("l4")}
		res, err := a.Run(context.Background(), run, (&recorder{}).record)
		if err != nil || res.PRLink != run.PRLink || !strings.HasPrefix(res.Summary, "Folio stopped the agent before it finished: the run reached its limit of 4 model calls.") {
			t.Fatalf("follow-up = %+v, %v; want it stopped at its limit with the pull request kept", res, err)
		}
		if p := gh.Pulls(); len(p) != 1 || !p[0].Draft || !strings.Contains(p[0].Body, "## Stopped before finishing") {
			t.Fatalf("pull requests = %+v, want #1 a draft again", p)
		}
		if reqs := gh.Requests("POST", "/graphql"); len(reqs) != 1 {
			t.Fatalf("%d GraphQL requests, want one convertPullRequestToDraft", len(reqs))
		}
	})
	t.Run("errors left, GitHub refuses", func(t *testing.T) {
		gh, m, a, run := readyPullRequest(t)
		gh.RefuseDraftConversion()
		m.steps = nil
		for range DefaultValidationRounds + 1 {
			m.steps = append(m.steps, broken, step{text: "Added a page."})
		}
		a.cfg.MaxSteps = DefaultMaxSteps
		res, err := a.Run(context.Background(), run, (&recorder{}).record)
		if err != nil || res.PRLink != run.PRLink || !doccheck.HasErrors(res.Problems) {
			t.Fatalf("follow-up = %+v, %v; want it to end with errors and the pull request kept", res, err)
		}
		still := "The pull request is still marked ready for review although Folio's checks found errors in it: Folio could not turn it back into a draft (GitHub's GraphQL API refused: Resource not accessible by integration). Do not merge it as it is."
		if res.Summary != "Added a page.\n\n"+still {
			t.Fatalf("summary = %q, want the answer and that the pull request stays ready", res.Summary)
		}
		if last := res.Problems[len(res.Problems)-1]; last.Severity != doccheck.SeverityWarning || last.Message != still {
			t.Fatalf("problems = %+v, want the ready pull request last", res.Problems)
		}
		if p := gh.Pulls(); len(p) != 1 || p[0].Draft || !strings.Contains(p[0].Body, "broken.mdx") {
			t.Fatalf("pull requests = %+v, want #1 updated, still ready", p)
		}
	})
}
