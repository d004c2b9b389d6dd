package agent

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/folio-docs/folio/doccheck"
	"github.com/folio-docs/folio/internal/testenv"
	"github.com/folio-docs/folio/model"
)

// childRunEnv names the file that makes TestHelperAgentProcess run a turn.
const childRunEnv = "FOLIO_TEST_AGENT_RUN"

// childRun is a turn for a process of its own to run, and where it writes
// what came of it.
type childRun struct {
	Config struct {
		OpenAIBaseURL, GitHubURL, GitHubToken, DataDir string
	}
	Run    Run
	Result string // file for the Result, as JSON
}

// TestHelperAgentProcess is not a test: it is a Folio worker in a process
// of its own (see runInChild), running one turn with nothing carried over
// in memory from the turns before it.
func TestHelperAgentProcess(t *testing.T) {
	file := os.Getenv(childRunEnv)
	if file == "" {
		return
	}
	var c childRun
	data, err := os.ReadFile(file)
	if err != nil || json.Unmarshal(data, &c) != nil {
		t.Fatalf("reading %s: %v", file, err)
	}
	cfg := Config{Provider: "openai", OpenAIBaseURL: c.Config.OpenAIBaseURL, OpenAIAPIKey: "sk-test", DataDir: c.Config.DataDir,
		Hosts: testHosts(c.Config.GitHubURL, c.Config.GitHubToken), ValidationRounds: 1}
	a, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	res, err := a.Run(context.Background(), c.Run, func(context.Context, Message) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	out, _ := json.Marshal(res)
	if err := os.WriteFile(c.Result, out, 0o644); err != nil {
		t.Fatal(err)
	}
}

// runInChild runs one turn in a new process (TestHelperAgentProcess) and
// returns its result.
func runInChild(t *testing.T, c childRun) Result {
	t.Helper()
	dir := t.TempDir()
	c.Result = filepath.Join(dir, "result.json")
	data, _ := json.Marshal(c)
	file := filepath.Join(dir, "run.json")
	if err := os.WriteFile(file, data, 0o644); err != nil {
		t.Fatal(err)
	}
	child := exec.Command(os.Args[0], "-test.run=^TestHelperAgentProcess$", "-test.count=1")
	child.Env = append(os.Environ(), childRunEnv+"="+file)
	if out, err := child.CombinedOutput(); err != nil {
		t.Fatalf("the turn's process failed: %v\n%s", err, out)
	}
	var res Result
	data, err := os.ReadFile(c.Result)
	if err != nil || json.Unmarshal(data, &res) != nil {
		t.Fatalf("the turn's process left no result: %v", err)
	}
	return res
}

// A follow-up over a branch an earlier turn left broken still reports the
// breakage, and its pull request still lists it: the end-of-turn checks
// cover everything the branch changes against its base, though this turn
// touched another page, ran in another process, and main moved on (so the
// shallow clone must dig for where the branch left it).
func TestFollowUpReportsWhatAnEarlierTurnLeftBroken(t *testing.T) {
	gh := testenv.NewFakeGitHub(t, docsSite())
	m := newOpenAIServer(t,
		step{calls: []ToolCall{call("c1", "write_file", map[string]string{"path": "guides/faq.mdx", "content": "---\ntitle: FAQ\n---\n\nSee [setup](/guides/setup).\n"})}},
		step{text: "Added an FAQ."},
		step{text: "The setup page will come later."}, // the answer to the validation round
	)
	cfg := openAIConfig(m)
	cfg.Hosts, cfg.ValidationRounds = testHosts(gh.URL, gh.Token), 1
	rec := &recorder{}
	run := Run{JobID: "jobf", Project: model.Project{ID: "p", Repository: "acme/docs", Ref: "main"}, Model: "gpt-test", Branch: "folio/jobf",
		History: []Message{{Role: RoleUser, Content: "Add an FAQ"}}}
	res, err := newTestAgent(t, cfg).Run(context.Background(), run, rec.record)
	if err != nil {
		t.Fatal(err)
	}
	broken := `guides/faq.mdx:5:5: link "/guides/setup" points at a page that does not exist`
	if len(res.Problems) != 1 || res.Problems[0].String() != broken {
		t.Fatalf("first turn's problems = %v, want %s", res.Problems, broken)
	}
	// Someone else's work lands on main in between.
	gh.Commit(t, "main", map[string]string{"changelog.mdx": "---\ntitle: Changelog\n---\n\nv2.\n"})

	m.mu.Lock()
	m.steps = []step{
		{calls: []ToolCall{call("c2", "edit_file", map[string]string{"path": "index.mdx", "old_string": "Read the", "new_string": "Start with the"})}},
		{text: "Reworded the intro."},
		{text: "Reworded the intro; the FAQ's link is for later."},
	}
	m.mu.Unlock()
	run.PRLink = res.PRLink
	run.History = append(append(run.History, rec.all()...), Message{Role: RoleUser, Content: "Reword the intro"})
	var c childRun
	c.Config.OpenAIBaseURL, c.Config.GitHubURL, c.Config.GitHubToken, c.Config.DataDir = m.server.URL+"/v1", gh.URL, gh.Token, t.TempDir()
	c.Run = run
	res2 := runInChild(t, c)

	if len(res2.Problems) != 1 || res2.Problems[0].String() != broken || !doccheck.HasErrors(res2.Problems) {
		t.Fatalf("follow-up's problems = %v, want the first turn's %s", res2.Problems, broken)
	}
	edits := gh.Requests("PATCH", "/repos/acme/docs/pulls/1")
	if len(edits) != 1 {
		t.Fatalf("%d updates of the pull request, want 1", len(edits))
	}
	if body, _ := edits[0].Body["body"].(string); !strings.Contains(body, "## Validation problems left") || !strings.Contains(body, broken) {
		t.Errorf("the updated pull request does not list the problem left:\n%s", body)
	}
	// The follow-up's review showed the whole branch against where it left
	// main, and not main's newer commit as if the branch removed it.
	m.mu.Lock()
	var review string
	for _, req := range m.requests[len(m.requests)-3:] {
		if text, last := lastText(req, "user"); last && strings.HasPrefix(text, reviewNote) {
			review = text
		}
	}
	for _, want := range []string{"- " + broken, "+++ b/guides/faq.mdx", "+Start with the"} {
		if !strings.Contains(review, want) {
			t.Errorf("the follow-up's review lacks %q:\n%s", want, review)
		}
	}
	if strings.Contains(review, "changelog") {
		t.Errorf("the follow-up's review shows main's newer commit as the branch's change:\n%s", review)
	}
	m.steps = []step{{text: "The FAQ links to a setup page that does not exist yet."}, {text: "It is still for later."}}
	asked := len(m.requests)
	m.mu.Unlock()

	// A question answered without a change gets no review, but the
	// validation round over what the branch leaves broken, which it reports.
	run.History = append(run.History, Message{Role: RoleUser, Content: "Is anything still broken?"})
	res3, err := newTestAgent(t, cfg).Run(context.Background(), run, (&recorder{}).record)
	if err != nil {
		t.Fatal(err)
	}
	if res3.Steps != 2 || res3.Changed || len(res3.Problems) != 1 || res3.Problems[0].String() != broken {
		t.Fatalf("the question's turn = %+v; want two calls, no change, the problem left", res3)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if note, _ := lastText(m.requests[len(m.requests)-1], "user"); len(m.requests) != asked+2 || !strings.HasPrefix(note, validationNote) || !strings.Contains(note, broken) {
		t.Fatalf("the question's second call was told %q, want the validation round naming %s", note, broken)
	}
}

// The scripted models of other packages' tests tell Folio's notes from
// prompts by these openings.
func TestFolioNotesMatchTestenv(t *testing.T) {
	if folioNote != testenv.FolioNote || !strings.HasPrefix(validationNote, testenv.ValidationNote) || reviewNote != testenv.ReviewNote {
		t.Fatalf("testenv's notes (%q, %q, %q) differ from the agent's (%q, %q, %q)", testenv.FolioNote, testenv.ValidationNote, testenv.ReviewNote, folioNote, validationNote, reviewNote)
	}
}
