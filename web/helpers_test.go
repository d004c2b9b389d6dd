package main

// How the tests stand Folio up, all in this file:
//
//   - newTestServer: the real router in this process, over a fresh SQLite
//     file and a Redis database of the test's own, with a project and a
//     write key; options change its configuration or parts (withEnv,
//     withModel, withGitHub, ...). The API and dashboard tests use it.
//   - testEnv: the folio command itself, for the tests of the command line
//     and of serve's life: in this process (folio, must, startServe) or as
//     a process of its own (startFolio, serveProcess).
//
// Every test takes its own Redis database of the package's one server
// (testRedis.DB), so the tests that share no process-wide state run in
// parallel. The helpers wait for what they wait for (a log line, a job's
// announced change), not for a fixed time.

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/folio-docs/folio/agent"
	"github.com/folio-docs/folio/auth"
	"github.com/folio-docs/folio/internal/testenv"
	"github.com/folio-docs/folio/jobs"
	"github.com/folio-docs/folio/model"
)

// testServer is Folio's real router over a real SQLite file and a Redis
// database of its own, served on a loopback port, with one project and a
// write key for it.
type testServer struct {
	*httptest.Server
	t       testing.TB
	app     *app
	project model.Project
	key     string
}

// serverOption changes how newTestServer stands Folio up.
type serverOption func(*serverSetup)

// serverSetup is what newTestServer builds from: the FOLIO_* environment
// its Config is loaded from, as serve's is, then changes to the app and to
// the jobs service's configuration before the services are assembled.
type serverSetup struct {
	env     testEnv
	changes []func(*app, *jobs.Config)
}

// withEnv sets FOLIO_* variables of the server's configuration.
func withEnv(vars map[string]string) serverOption {
	return func(s *serverSetup) { maps.Copy(s.env, vars) }
}

// withChange changes the app, or the jobs service's configuration, before
// the services are assembled.
func withChange(f func(*app, *jobs.Config)) serverOption {
	return func(s *serverSetup) { s.changes = append(s.changes, f) }
}

// withRedisAt points the app at another Redis (a dead one, say).
func withRedisAt(addr string) serverOption {
	return withChange(func(a *app, _ *jobs.Config) {
		a.rdb = redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1, DialTimeout: 200 * time.Millisecond})
	})
}

// withRunner gives the app an agent and starts its worker.
func withRunner(r agent.Runner) serverOption {
	return withChange(func(a *app, _ *jobs.Config) { a.runner = r })
}

// withLimit changes the rate limits (benchmarks create more than 100 jobs).
func withLimit(n int) serverOption { return withChange(func(_ *app, c *jobs.Config) { c.Limit = n }) }

// withLog sends the server's log, at every level, to w.
func withLog(w *testenv.LogBuffer) serverOption {
	return withChange(func(a *app, _ *jobs.Config) {
		a.log = slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelDebug}))
	})
}

// withModel gives the app the real agent runtime, talking to a scripted
// OpenAI-compatible server, with its workspaces in a temporary directory.
func withModel(t testing.TB, m *testenv.ModelServer) serverOption {
	return withChange(func(a *app, _ *jobs.Config) {
		a.cfg.ModelProvider, a.cfg.OpenAIBaseURL, a.cfg.OpenAIAPIKey, a.cfg.DataDir = "openai", m.URL, m.APIKey, t.TempDir()
		r, err := a.newRunner()
		if err != nil {
			t.Fatal(err)
		}
		a.runner = r
	})
}

// withKeepAlive shortens the event streams' keep-alive.
func withKeepAlive(d time.Duration) serverOption {
	return withChange(func(a *app, _ *jobs.Config) { a.cfg.EventKeepAlive = d })
}

const githubWebhookSecret = "whsec-github"

// withGitHub points the app at a fake GitHub, as FOLIO_GITHUB_API_URL,
// FOLIO_GITHUB_TOKEN and FOLIO_GITHUB_WEBHOOK_SECRET do. It goes before
// withModel, whose agent reaches GitHub too.
func withGitHub(t testing.TB, gh *testenv.FakeGitHub) serverOption {
	return withChange(func(a *app, c *jobs.Config) {
		a.cfg.GitHubAPIURL, a.cfg.GitHubToken, a.cfg.GitHubWebhookSecret = gh.URL, gh.Token, githubWebhookSecret
		h, err := a.codeHosts()
		if err != nil {
			t.Fatal(err)
		}
		a.hosts, c.Hosts = h, h
	})
}

// withWebhookRetry retries failed webhook deliveries after base, doubling
// up to ceiling, instead of after 10 s up to an hour.
func withWebhookRetry(base, ceiling time.Duration) serverOption {
	return withChange(func(_ *app, c *jobs.Config) { c.WebhookRetryBase, c.WebhookRetryMax = base, ceiling })
}

// newTestServer stands Folio up in this process: the real router over a
// fresh SQLite file and a Redis database of the test's own, with a project
// ("docs", acme/docs) and a write key for it, and a worker when the app has
// an agent (withRunner, withModel).
func newTestServer(t testing.TB, opts ...serverOption) *testServer {
	t.Helper()
	ctx := context.Background()
	rdb := testRedis.DB(t)
	set := serverSetup{env: testEnv{
		"FOLIO_REDIS_URL": rdb.URL, "FOLIO_DATA_DIR": t.TempDir(), "FOLIO_LOCAL_REPOS": t.TempDir(),
		"FOLIO_BASE_URL": "http://folio.test", "FOLIO_MODEL": "test-model", "FOLIO_JOB_TIMEOUT": "1m",
		"FOLIO_WEBHOOK_ALLOW_PRIVATE": "true", // the tests' receivers are on loopback
	}}
	for _, o := range opts {
		o(&set)
	}
	cfg, err := loadConfig(func(k string) string { return set.env[k] })
	if err != nil {
		t.Fatal(err)
	}
	a := &app{cfg: cfg, log: slog.New(slog.NewTextHandler(io.Discard, nil)), db: testenv.NewDB(t), rdb: rdb.Client(t)}
	jcfg := a.jobsConfig()
	for _, change := range set.changes {
		change(a, &jcfg)
	}
	if err := a.assemble(jcfg); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.queue.Close() })
	p, err := a.db.CreateProject(ctx, model.Project{Name: "docs", Repository: "acme/docs", Ref: "main"})
	if err != nil {
		t.Fatal(err)
	}
	key, _, err := a.keys.Issue(ctx, p.ID, "test", model.ScopeWrite, "never")
	if err != nil {
		t.Fatal(err)
	}
	if a.runner != nil {
		wctx, cancel := context.WithCancel(ctx)
		srv, err := a.startWorker(wctx)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cancel(); srv.Shutdown() })
	}
	s := &testServer{Server: httptest.NewServer(a.routes()), t: t, app: a, project: p, key: key}
	t.Cleanup(s.Close)
	t.Cleanup(a.jobs.EndStreams) // first: s.Close waits for open streams
	return s
}

// do sends a request with the project's key and decodes a JSON answer into out.
func (s *testServer) do(method, path, body string, out any, header ...string) *http.Response {
	s.t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, _ := http.NewRequest(method, s.URL+strings.ReplaceAll(path, "{p}", s.project.ID), rd)
	req.Header.Set("Authorization", "Bearer "+s.key)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if out != nil {
		if err := json.Unmarshal(raw, out); err != nil {
			s.t.Fatalf("%s %s: %d %s: %v", method, path, resp.StatusCode, raw, err)
		}
	}
	return resp
}

// expect sends a request and checks its status, decoding the body into out.
func (s *testServer) expect(want int, method, path, body string, out any, header ...string) *http.Response {
	s.t.Helper()
	var raw json.RawMessage
	resp := s.do(method, path, body, &raw, header...)
	if resp.StatusCode != want {
		s.t.Fatalf("%s %s = %d %s, want %d", method, path, resp.StatusCode, raw, want)
	}
	if out != nil {
		if err := json.Unmarshal(raw, out); err != nil {
			s.t.Fatal(err)
		}
	}
	return resp
}

// waitStatus waits until the job reads status over the API, re-reading it
// each time the jobs service announces a change of it.
func (s *testServer) waitStatus(id, status string) map[string]any {
	s.t.Helper()
	var j map[string]any
	reached := s.awaitJob(id, 10*time.Second, func() bool {
		j = nil
		s.expect(200, "GET", "/v2/agent/{p}/job/"+id, "", &j)
		return j["status"] == status
	})
	if !reached {
		s.t.Fatalf("job %s = %v, want status %s", id, j, status)
	}
	return j
}

// awaitJob calls done, which reads job id, at first and again at each
// change the jobs hub announces (a Watch taken before the first read, so
// none is missed), until it says true; it says false if within passes
// first.
func (s *testServer) awaitJob(id string, within time.Duration, done func() bool) bool {
	ctx, cancel := context.WithTimeout(context.Background(), within)
	defer cancel()
	w := s.app.jobs.Watch(ctx, id)
	defer w.Stop()
	for !done() {
		select {
		case <-w.Changed():
		case <-ctx.Done():
			return false
		}
	}
	return true
}

// client is a browserless HTTP client with a cookie jar that does not
// follow redirects, so tests see where each answer points.
func (s *testServer) client(t *testing.T) *http.Client {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	return &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

// post sends a form; headers set the browser's origin signals.
func (s *testServer) post(t *testing.T, c *http.Client, path string, form url.Values, headers map[string]string) *http.Response {
	t.Helper()
	res, _ := postForm(t, c, s.URL+path, form, headers)
	return res
}

// postForm posts a form to target as a browser would and returns the
// answer with its body read.
func postForm(t *testing.T, c *http.Client, target string, form url.Values, headers map[string]string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, target, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	res, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res, string(b)
}

// sameOrigin is what a browser sends with a form of Folio's own pages.
func (s *testServer) sameOrigin() map[string]string {
	return map[string]string{"Sec-Fetch-Site": "same-origin", "Origin": s.URL}
}

// postPage sends a form from one of Folio's pages (sameOrigin) and returns
// the answer with its body.
func (s *testServer) postPage(t *testing.T, c *http.Client, path string, form url.Values) (*http.Response, string) {
	t.Helper()
	return postForm(t, c, s.URL+path, form, s.sameOrigin())
}

// get asks for a page as a browser would.
func (s *testServer) get(t *testing.T, c *http.Client, path string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, s.URL+path, nil)
	req.Header.Set("Accept", "text/html")
	res, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res, string(b)
}

// signUp creates an account through the form and leaves c signed in.
func (s *testServer) signUp(t *testing.T, c *http.Client, email string) model.User {
	t.Helper()
	res := s.post(t, c, "/signup", url.Values{"email": {email}, "password": {"correct horse"}}, nil)
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/projects" {
		t.Fatalf("sign up %s: got %d to %q, want 303 to /projects", email, res.StatusCode, res.Header.Get("Location"))
	}
	u, err := s.app.db.UserByEmail(context.Background(), email)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// signedIn signs a new member of the test server's project in and returns
// the dashboard client.
func (s *testServer) signedIn(t *testing.T) *http.Client {
	t.Helper()
	c := s.client(t)
	u := s.signUp(t, c, "ada@example.com")
	if err := s.app.db.AddProjectMember(context.Background(), s.project.ID, u.ID); err != nil {
		t.Fatal(err)
	}
	return c
}

// addUser creates an account as the operator CLI does.
func (s *testServer) addUser(t *testing.T, email string) model.User {
	t.Helper()
	hash, _ := auth.HashPassword("correct horse")
	u, err := s.app.db.CreateUser(context.Background(), email, hash)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func (s *testServer) login(t *testing.T, c *http.Client, email, password string) *http.Response {
	t.Helper()
	return s.post(t, c, "/login", url.Values{"email": {email}, "password": {password}}, nil)
}

// createProject makes a project of owner's ("Acme docs", acme/docs).
func (s *testServer) createProject(t *testing.T, owner model.User) model.Project {
	t.Helper()
	p, err := s.app.db.CreateProject(context.Background(), model.Project{Name: "Acme docs", Repository: "acme/docs", OwnerID: owner.ID})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// testEnv is a set of environment variables for one folio run, with its
// own data directory and Redis database.
type testEnv map[string]string

func newTestEnv(t testing.TB) testEnv {
	t.Helper()
	return testEnv{
		"FOLIO_DATA_DIR":  filepath.Join(t.TempDir(), "data"),
		"FOLIO_REDIS_URL": testRedis.DB(t).URL,
	}
}

// folio runs one command line in-process and returns its exit status,
// stdout and stderr.
func (te testEnv) folio(t testing.TB, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	e := env{stdin: strings.NewReader(stdin), stdout: &out, stderr: &errb, getenv: func(k string) string { return te[k] }}
	code := run(context.Background(), args, e)
	return code, out.String(), errb.String()
}

// must runs a command that has to succeed and returns its trimmed stdout.
func (te testEnv) must(t testing.TB, stdin string, args ...string) string {
	t.Helper()
	code, out, errs := te.folio(t, stdin, args...)
	if code != 0 {
		t.Fatalf("folio %s: exit %d, stderr %s", strings.Join(args, " "), code, errs)
	}
	return strings.TrimSpace(out)
}

func freeAddr(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// serving is serve's log line once it listens: from then on, connections
// wait in the listener's queue until it answers them.
var serving = regexp.MustCompile(`folio serving`)

// stopWithin is how long startServe's serve may take to stop: its grace
// for requests (30 s), then its worker's. Against a Redis that never
// answers, Asynq's shutdown waits out each of its calls (about 25 s), and
// longer on a machine busy with the tests that run beside it.
const stopWithin = 90 * time.Second

// startServe runs "folio serve" in-process until the test ends and waits
// until it answers; the returned function stops it and gives its result.
func startServe(t *testing.T, te testEnv) (base string, stop func() int) {
	t.Helper()
	te["FOLIO_ADDR"] = freeAddr(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	exited := make(chan struct{})
	log := &testenv.LogBuffer{}
	go func() {
		e := env{stdin: strings.NewReader(""), stdout: &strings.Builder{}, stderr: log, getenv: func(k string) string { return te[k] }}
		done <- run(ctx, []string{"serve"}, e)
		close(exited)
	}()
	base = "http://" + te["FOLIO_ADDR"]
	if !log.Wait(serving, 10*time.Second, exited) {
		select {
		case code := <-done:
			t.Fatalf("serve exited with %d before answering:\n%s", code, log)
		default:
			t.Fatalf("serve did not listen within 10s:\n%s", log)
		}
	}
	answers(t, base)
	stopped := false
	stop = func() int {
		if stopped {
			return 0
		}
		stopped = true
		cancel()
		select {
		case code := <-done:
			return code
		case <-time.After(stopWithin):
			t.Fatalf("serve did not stop within %s", stopWithin)
			return -1
		}
	}
	t.Cleanup(func() { stop() })
	return base, stop
}

// answers makes sure serve, which listens, answers: the request waits in
// the listener's queue until serve takes it.
func answers(t testing.TB, base string) {
	t.Helper()
	c := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}} // it leaves no idle connection behind
	res, err := c.Get(base + "/healthz")
	if err != nil {
		t.Fatalf("serve listens but does not answer: %v", err)
	}
	res.Body.Close()
}

// folioProcess is a folio command as a process of its own: this test
// binary run again as folio (see TestMain), with exactly te as its FOLIO_*
// environment.
func folioProcess(te testEnv, args ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = []string{"FOLIO_TEST_RUN_MAIN=1", "PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME")}
	for k, v := range te {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	return cmd
}

// serveProcess starts "folio serve" in a process of its own (startFolio)
// and waits until it answers; the returned function stops it with SIGTERM
// and waits for a clean exit.
func serveProcess(t *testing.T, te testEnv) (base string, stop func()) {
	t.Helper()
	te["FOLIO_ADDR"] = freeAddr(t)
	te["FOLIO_WORKER"] = "false"
	p := startFolio(t, te, "serve")
	base = "http://" + te["FOLIO_ADDR"]
	p.waitLog(t, serving.String(), 20*time.Second)
	answers(t, base)
	stopped := false
	stop = func() {
		if stopped {
			return
		}
		stopped = true
		p.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-p.exited:
			if p.code != 0 {
				t.Errorf("serve exited with %d:\n%s", p.code, p.stderr.String())
			}
		case <-time.After(30 * time.Second):
			p.cmd.Process.Kill()
			t.Errorf("serve did not stop within 30s")
		}
	}
	return base, stop
}

// runningFolio is a folio command running as a process of its own.
type runningFolio struct {
	cmd    *exec.Cmd
	stderr *testenv.LogBuffer
	exited chan struct{}
	code   int
}

// startFolio runs `folio args...` as a separate process with exactly te as
// its FOLIO_* environment, until the test ends.
func startFolio(t testing.TB, te testEnv, args ...string) *runningFolio {
	t.Helper()
	cmd := folioProcess(te, args...)
	p := &runningFolio{cmd: cmd, stderr: &testenv.LogBuffer{}, exited: make(chan struct{})}
	cmd.Stderr = p.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		cmd.Wait()
		p.code = cmd.ProcessState.ExitCode()
		close(p.exited)
	}()
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-p.exited:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-p.exited
		}
		if t.Failed() {
			t.Logf("folio %s stderr:\n%s", strings.Join(args, " "), p.stderr.String())
		}
	})
	return p
}

// waitLog waits until the process has logged a line matching re.
func (p *runningFolio) waitLog(t testing.TB, re string, within time.Duration) {
	t.Helper()
	if p.stderr.Wait(regexp.MustCompile(re), within, p.exited) {
		return
	}
	select {
	case <-p.exited:
		t.Fatalf("the process exited (%d) before logging %q:\n%s", p.code, re, p.stderr.String())
	default:
		t.Fatalf("no log line %q within %s:\n%s", re, within, p.stderr.String())
	}
}

// kill ends the process at once, as a crash or the OOM killer would.
func (p *runningFolio) kill(t *testing.T) {
	t.Helper()
	if err := p.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-p.exited
}

// docsSite is the small docs site of the tests' repositories, local or on GitHub.
var docsSite = map[string]string{
	"docs.json":   `{"theme":"mint","name":"Acme","colors":{"primary":"#0D9373"},"navigation":{"groups":[{"group":"Start","pages":["index"]}]}}`,
	"index.mdx":   "---\ntitle: Welcome\n---\n\nHello.\n",
	"AGENTS.md":   "Write in plain English.\n",
	"notes/.keep": "",
}

// newDocsRepo makes a non-bare git repository holding a small docs site on
// main, as a team keeps one on a server, and returns its path.
func newDocsRepo(t testing.TB) string {
	t.Helper()
	return newDocsRepoIn(t, t.TempDir())
}

// newDocsRepoIn makes the docs repository as root/docs.
func newDocsRepoIn(t testing.TB, root string) string {
	t.Helper()
	dir := filepath.Join(root, "docs")
	testenv.NewRepo(t, dir, docsSite)
	return dir
}

var git = testenv.Git

// waitFor polls ok until it holds, for what has no announcement to wait
// on (a command's output, another process's answers).
func waitFor(t *testing.T, d time.Duration, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("waited %s for %s", d, what)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

var closeMu sync.Mutex

func closeOnce(c chan struct{}) {
	closeMu.Lock()
	defer closeMu.Unlock()
	select {
	case <-c:
	default:
		close(c)
	}
}

// between is the text of s after the first from, up to the next to.
func between(s, from, to string) string {
	i := strings.Index(s, from)
	if i < 0 {
		return ""
	}
	s = s[i+len(from):]
	if j := strings.Index(s, to); j >= 0 {
		return s[:j]
	}
	return s
}

// apiCall sends a request with a key and decodes the JSON answer into out.
func apiCall(t testing.TB, method, u, key string, body any, out any) int {
	t.Helper()
	var r *bytes.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		r = bytes.NewReader(b)
	} else {
		r = bytes.NewReader(nil)
	}
	req, _ := http.NewRequest(method, u, r)
	req.Header.Set("Authorization", "Bearer "+key)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if out != nil {
		if err := json.NewDecoder(res.Body).Decode(out); err != nil {
			t.Fatalf("%s %s: decode: %v", method, u, err)
		}
	}
	return res.StatusCode
}
