package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/folio-docs/folio/internal/testenv"
)

// A repository whose pages are symbolic links to files of the machine that
// runs Folio (its own database, /etc/hostname): neither the agent's tools
// nor the checks read them, and the job says each is a link it will not
// follow.
func TestJobDoesNotFollowLinksOutOfTheCheckout(t *testing.T) {
	t.Parallel()
	m := testenv.NewModelServer(t, func(messages []testenv.ChatMessage) testenv.ModelReply {
		switch last := messages[len(messages)-1]; {
		case last.Role == "tool" && strings.HasPrefix(last.Text(), "wrote"):
			return testenv.ModelReply{Text: "Added the guide."}
		case last.Role == "tool":
			return testenv.ModelReply{Calls: []testenv.ModelCall{{Name: "write_file", Args: map[string]string{
				"path": "guide.mdx", "content": "---\ntitle: Guide\n---\n\nSee [the data](/data#users) and [the host](/host).\n"}}}}
		}
		return testenv.ModelReply{Calls: []testenv.ModelCall{{Name: "read_file", Args: map[string]string{"path": "data.mdx"}}}}
	})
	s := newTestServer(t, withModel(t, m))
	hostname, err := os.ReadFile("/etc/hostname")
	if err != nil {
		t.Fatalf("this test links a page to /etc/hostname, which cannot be read here: %v", err)
	}

	dir := filepath.Join(t.TempDir(), "docs")
	testenv.WriteFiles(t, dir, map[string]string{
		"docs.json": `{"theme":"mint","name":"Acme","colors":{"primary":"#0D9373"},"navigation":{"groups":[{"group":"Start","pages":["index","data","host"]}]}}`,
		"index.mdx": "---\ntitle: Welcome\n---\n\nHello.\n",
	})
	for name, target := range map[string]string{"data.mdx": s.app.db.Path(), "host.mdx": "/etc/hostname"} {
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	git(t, dir, "init", "--quiet", "--initial-branch=main")
	git(t, dir, "add", "--all")
	git(t, dir, "commit", "--quiet", "-m", "docs with links out")
	s.useRepository(t, dir)

	var j map[string]any
	s.expect(201, "POST", "/v2/agent/{p}/job", `{"prompt":"Add a guide."}`, &j)
	if done := s.pollJob(j["id"].(string)); done.Status != "completed" {
		t.Fatalf("job ended %+v, want completed", done)
	}
	s.expect(200, "GET", "/v2/agent/{p}/job/"+j["id"].(string), "", &j)
	var problems []string
	for _, p := range j["problems"].([]any) {
		p := p.(map[string]any)
		problems = append(problems, p["path"].(string)+": "+p["message"].(string))
	}
	all := strings.Join(problems, "\n")
	const link = "is a symbolic link leading outside the repository; the checks do not follow it"
	for _, want := range []string{
		`guide.mdx: link "/data#users" points at data.mdx, which ` + link,
		`guide.mdx: link "/host" points at host.mdx, which ` + link,
		`docs.json: navigation names page "data", but data.mdx ` + link,
		`docs.json: navigation names page "host", but host.mdx ` + link,
	} {
		if !strings.Contains(all, want) {
			t.Errorf("the job's problems lack %q:\n%s", want, all)
		}
	}

	var msgs struct {
		Messages []struct{ Role, Content string }
	}
	s.expect(200, "GET", "/v2/agent/{p}/job/"+j["id"].(string)+"/messages", "", &msgs)
	var tool string
	for _, msg := range msgs.Messages {
		if msg.Role == "tool" && tool == "" {
			tool = msg.Content
		}
		for _, leak := range []string{"SQLite format 3", strings.TrimSpace(string(hostname))} {
			// A short hostname ("vm") could occur in any text by chance.
			if len(leak) >= 8 && strings.Contains(msg.Content, leak) {
				t.Fatalf("a %s message quotes a file outside the checkout (%q):\n%s", msg.Role, leak, msg.Content)
			}
		}
	}
	if !strings.Contains(tool, "outside the repository") {
		t.Fatalf("read_file of data.mdx answered %q, want a refusal", tool)
	}
}
