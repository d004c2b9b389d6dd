package main

import (
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/folio-docs/folio/internal/testenv"
)

// heldModel is the scripted model (NotesWriter), except that a prompt
// holding "[hold]" makes the first call of each such conversation wait
// until the test releases it: a run in the middle of its work.
type heldModel struct {
	*testenv.ModelServer
	mu      sync.Mutex
	seen    map[string]bool
	holding chan string // the prompt being held
	release chan struct{}
}

func newHeldModel(t *testing.T) *heldModel {
	g := &heldModel{seen: map[string]bool{}, holding: make(chan string, 8), release: make(chan struct{})}
	g.ModelServer = testenv.NewModelServer(t, func(ms []testenv.ChatMessage) testenv.ModelReply {
		last := ms[len(ms)-1]
		if last.Role == "user" && strings.Contains(last.Text(), "[hold]") {
			g.mu.Lock()
			first := !g.seen[last.Text()]
			g.seen[last.Text()] = true
			g.mu.Unlock()
			if first {
				g.holding <- last.Text()
				<-g.release
			}
		}
		return testenv.NotesWriter(ms)
	})
	// Before the model server closes: it waits for its held handlers.
	t.Cleanup(func() { g.releaseAll() })
	return g
}

func (g *heldModel) releaseAll() {
	g.mu.Lock()
	defer g.mu.Unlock()
	select {
	case <-g.release:
	default:
		close(g.release)
	}
}

func (g *heldModel) waitHeld(t *testing.T) string {
	t.Helper()
	select {
	case p := <-g.holding:
		return p
	case <-time.After(30 * time.Second):
		t.Fatal("no run reached the model")
		return ""
	}
}

// apiClient calls serve's public API with a project key.
type apiClient struct {
	t       *testing.T
	base    string
	project string
	key     string
}

func (c apiClient) call(method, path, body string, out any) int {
	c.t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, _ := http.NewRequest(method, c.base+strings.ReplaceAll(path, "{p}", c.project), rd)
	req.Header.Set("Authorization", "Bearer "+c.key)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	if out != nil && json.Unmarshal(raw, out) != nil {
		c.t.Fatalf("%s %s: %d %s", method, path, res.StatusCode, raw)
	}
	return res.StatusCode
}

func (c apiClient) waitJob(id string, within time.Duration) jobJSON {
	c.t.Helper()
	deadline := time.Now().Add(within)
	for {
		var j jobJSON
		if code := c.call("GET", "/v2/agent/{p}/job/"+id, "", &j); code != 200 {
			c.t.Fatalf("GET job %s: %d", id, code)
		}
		if j.Status != "active" {
			return j
		}
		if time.Now().After(deadline) {
			c.t.Fatalf("job %s still active after %s", id, within)
		}
		time.Sleep(25 * time.Millisecond)
	}
}

// TestSeveralMachines runs Folio as on several machines: one serve with its
// own data directory and no worker, two workers that each have only an
// empty directory and serve's URL and token, one Redis, the scripted model
// and a local repository reached over git HTTP.
func TestSeveralMachines(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts four processes and waits out a lease")
	}
	model := newHeldModel(t)
	repo := newDocsRepo(t)
	const token = "a-worker-token-of-at-least-32-characters"

	server := newTestEnv(t)
	server["FOLIO_ADDR"] = freeAddr(t)
	server["FOLIO_WORKER"] = "false"
	server["FOLIO_WORKER_TOKEN"] = token
	server["FOLIO_MODEL"] = "test-model"
	projectID := server.must(t, "", "project", "create", "--name", "docs", "--repo", repo)
	key := server.must(t, "", "key", "create", "--project", projectID)
	base := "http://" + server["FOLIO_ADDR"]
	serve := startFolio(t, server, "serve")
	serve.waitLog(t, "folio serving", 30*time.Second)

	worker := func(tok string) (testEnv, *runningFolio) {
		te := testEnv{
			"FOLIO_DATA_DIR": t.TempDir(), "FOLIO_REDIS_URL": server["FOLIO_REDIS_URL"],
			"FOLIO_SERVER_URL": base, "FOLIO_WORKER_TOKEN": tok,
			"FOLIO_MODEL_PROVIDER": "openai", "FOLIO_OPENAI_BASE_URL": model.URL, "FOLIO_OPENAI_API_KEY": model.APIKey,
		}
		return te, startFolio(t, te, "worker")
	}

	// A worker with a wrong token says so in one line and exits at start-up.
	_, wrong := worker("not-the-token-but-also-32-characters-long")
	select {
	case <-wrong.exited:
	case <-time.After(30 * time.Second):
		t.Fatal("a worker with a wrong token kept running")
	}
	if msg := strings.TrimSpace(wrong.stderr.String()); wrong.code == 0 || strings.Count(msg, "\n") != 0 || !strings.Contains(msg, "FOLIO_WORKER_TOKEN") || strings.Contains(msg, token) {
		t.Fatalf("wrong token: exit %d, stderr %q; want non-zero and one line naming FOLIO_WORKER_TOKEN", wrong.code, msg)
	}

	w1env, w1 := worker(token)
	_, w2 := worker(token)
	w1.waitLog(t, "worker started", 30*time.Second)
	w2.waitLog(t, "worker started", 30*time.Second)
	for _, p := range []*runningFolio{w1, w2} {
		if _, err := os.Stat(filepath.Join(w1env["FOLIO_DATA_DIR"], "folio.db")); err == nil {
			t.Fatal("a remote worker created a database")
		}
		if strings.Contains(p.stderr.String(), token) {
			t.Fatal("a worker logged its token")
		}
	}
	api := apiClient{t: t, base: base, project: projectID, key: key}

	// A job and a follow-up complete, on the local repository, with serve's links.
	var created jobJSON
	if code := api.call("POST", "/v2/agent/{p}/job", `{"prompt":"Explain how to rotate API keys."}`, &created); code != 201 {
		t.Fatalf("create: %d", code)
	}
	done := api.waitJob(created.ID, 60*time.Second)
	wantLink := base + "/projects/" + projectID + "/jobs/" + created.ID + "/changes"
	if done.Status != "completed" || done.PRLink == nil || *done.PRLink != wantLink {
		t.Fatalf("job ended %+v, want completed with prLink %s", done, wantLink)
	}
	// The turn's outcome travels back from whichever worker ran it, over
	// the worker API when that worker is remote.
	if done.Summary == nil || *done.Summary != "Wrote notes/1.md." || done.Problems == nil || len(done.Problems) != 0 {
		t.Fatalf("job ended with summary %v and problems %v, want the agent's answer and []", done.Summary, done.Problems)
	}
	branch := "folio/" + created.ID
	if got := git(t, repo, "show", branch+":notes/1.md"); !strings.Contains(got, "rotate API keys") {
		t.Fatalf("notes/1.md on %s is %q", branch, got)
	}
	var again jobJSON
	if code := api.call("POST", "/v2/agent/{p}/job/"+created.ID+"/message", `{"prompt":"Now the expiry rules."}`, &again); code != 200 {
		t.Fatalf("follow-up: %d", code)
	}
	done = api.waitJob(created.ID, 60*time.Second)
	if done.Status != "completed" || done.PRLink == nil || *done.PRLink != wantLink {
		t.Fatalf("follow-up ended %+v, want completed with the same prLink", done)
	}
	if got := git(t, repo, "show", branch+":notes/2.md"); !strings.Contains(got, "expiry rules") {
		t.Fatalf("notes/2.md on %s is %q", branch, got)
	}
	for _, p := range []*runningFolio{w1, w2} {
		if strings.Contains(p.stderr.String(), "run picked up") && !regexp.MustCompile(`run picked up.*since_enqueue=`).MatchString(p.stderr.String()) {
			t.Fatalf("a pickup was logged without its latency:\n%s", p.stderr.String())
		}
	}

	// A cancel stops a run held in the middle of its work on whichever worker.
	var held jobJSON
	api.call("POST", "/v2/agent/{p}/job", `{"prompt":"[hold] to be cancelled"}`, &held)
	model.waitHeld(t)
	var canceled jobJSON
	if code := api.call("POST", "/v2/agent/{p}/job/"+held.ID+"/cancel", "", &canceled); code != 200 || canceled.Status != "failed" || canceled.Error == nil || canceled.Error.Code != "canceled" {
		t.Fatalf("cancel: %d %+v", code, canceled)
	}

	// kill -9 of the worker in the middle of a run: the other retries it
	// within 30 s, and the turn is committed once.
	var doomed jobJSON
	api.call("POST", "/v2/agent/{p}/job", `{"prompt":"[hold] survive a dead worker"}`, &doomed)
	model.waitHeld(t)
	victim, survivor := w1, w2
	pickedUp := regexp.MustCompile(`run picked up.*job_id=` + doomed.ID)
	if !pickedUp.MatchString(w1.stderr.String()) {
		victim, survivor = w2, w1
	}
	if !pickedUp.MatchString(victim.stderr.String()) {
		t.Fatalf("neither worker logged the pickup of %s", doomed.ID)
	}
	killed := time.Now()
	if err := victim.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-victim.exited
	model.releaseAll() // the dead worker's model call ends; the next is not held
	recovered := api.waitJob(doomed.ID, 40*time.Second)
	took := time.Since(killed)
	if recovered.Status != "completed" || took > 30*time.Second {
		t.Fatalf("after kill -9: %s after %s, want completed within 30s", recovered.Status, took)
	}
	if !pickedUp.MatchString(survivor.stderr.String()) {
		t.Fatal("the surviving worker did not pick the run up")
	}
	t.Logf("a run whose worker was killed completed %s after the kill", took.Round(time.Millisecond))
	if n := strings.TrimSpace(git(t, repo, "rev-list", "--count", "main..folio/"+doomed.ID)); n != "1" {
		t.Fatalf("folio/%s has %s commits beyond main, want 1 (one turn, one commit)", doomed.ID, n)
	}

	// The cancelled job takes a follow-up on the surviving worker.
	api.call("POST", "/v2/agent/{p}/job/"+held.ID+"/message", `{"prompt":"Try again."}`, nil)
	if j := api.waitJob(held.ID, 60*time.Second); j.Status != "completed" {
		t.Fatalf("follow-up after cancel: %+v", j)
	}

	// The repository over git HTTP: a project key clones, but may not push.
	clone := filepath.Join(t.TempDir(), "clone")
	authed := strings.Replace(base, "http://", "http://anyone:"+key+"@", 1) + "/git/" + projectID + ".git"
	git(t, "", "clone", "--quiet", authed, clone)
	git(t, clone, "fetch", "--quiet", "origin", branch)
	if out, err := gitTry(clone, "push", "origin", "HEAD:refs/heads/folio/by-a-key"); err == nil {
		t.Fatalf("a push with a project key was accepted: %s", out)
	}
	if out, err := gitTry("", "ls-remote", base+"/git/"+projectID+".git"); err == nil {
		t.Fatalf("ls-remote without a key was answered: %s", out)
	}
	// The worker token pushes folio/* branches, and nothing else.
	asWorker := []string{"-c", "http.extraHeader=Authorization: Basic " + base64.StdEncoding.EncodeToString([]byte("w:"+token))}
	plain := base + "/git/" + projectID + ".git"
	git(t, clone, "commit", "--quiet", "--allow-empty", "-m", "not the agent's")
	if out, err := gitTry(clone, append(asWorker, "push", plain, "HEAD:refs/heads/main")...); err == nil || !strings.Contains(out, "only folio/* branches") {
		t.Fatalf("a push of main with the worker token: %v %s", err, out)
	}
	if out, err := gitTry(clone, append(asWorker, "push", plain, "HEAD:refs/heads/folio/by-the-worker")...); err != nil {
		t.Fatalf("a push of a folio/* branch with the worker token: %v %s", err, out)
	}
}

// gitTry runs git where failure is the expected outcome.
func gitTry(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0")
	out, err := cmd.CombinedOutput()
	return string(out), err
}
