package main

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/folio-docs/folio/analytics"
	"github.com/folio-docs/folio/internal/testenv"
)

// User agents of each class the follow tests use.
const (
	uaBrowser   = "Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0"
	uaAgent     = "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; ChatGPT-User/1.0; +https://openai.com/bot"
	uaClaude    = "Claude-User/1.0 (+Claude-User@anthropic.com)"
	uaCrawler   = "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)"
	uaSearchBot = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)"
)

// counted is what serve's views export should count, by class.
type counted struct {
	t    *testing.T
	want analytics.ViewCounts
}

// add expects one more view of the class of ua.
func (c *counted) add(ua string) {
	switch ua {
	case uaBrowser:
		c.want.Human++
	case uaAgent, uaClaude:
		c.want.AI++
	case uaCrawler:
		c.want.AITraining++
	case uaSearchBot:
		c.want.Bots++
	default:
		c.t.Fatalf("no class known for %q", ua)
	}
	c.want.Total = c.want.Human + c.want.AI
}

// wait waits until serve's views export counts exactly what is expected,
// failing at once if it ever counts more.
func (c *counted) wait(w followWorld) {
	c.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		var v analytics.Views
		if code := apiCall(c.t, "GET", w.base+"/v1/analytics/"+w.project+"/views", w.key, nil, &v); code != 200 {
			c.t.Fatalf("views export: %d", code)
		}
		got := v.Totals
		if got.Human > c.want.Human || got.AI > c.want.AI || got.AITraining > c.want.AITraining || got.Bots > c.want.Bots || got.AISearch > 0 {
			c.t.Fatalf("counted %+v, more than written %+v: a line was stored twice", got, c.want)
		}
		if got == c.want {
			return
		}
		if time.Now().After(deadline) {
			c.t.Fatalf("counted %+v after 20s, want %+v", got, c.want)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// accessLog writes an nginx combined log as a server does, one request a
// second: a browser, an AI agent and a crawler in turn.
type accessLog struct {
	counted
	n int
}

// write appends requests to the file at name (made if missing).
func (l *accessLog) write(name string, requests int) {
	l.t.Helper()
	f, err := os.OpenFile(name, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		l.t.Fatal(err)
	}
	defer f.Close()
	for range requests {
		l.n++
		ua := []string{uaBrowser, uaAgent, uaCrawler}[l.n%3]
		l.add(ua)
		at := time.Date(2026, 4, 1, 10, 0, 0, 0, time.UTC).Add(time.Duration(l.n) * time.Second)
		fmt.Fprintf(f, "198.51.100.%d - - [%s] \"GET /docs/page-%d HTTP/1.1\" 200 5120 \"-\" \"%s\"\n",
			l.n%250, at.Format("02/Jan/2006:15:04:05 -0700"), l.n%7, ua)
	}
}

// followWorld is what a follow test needs: a project and its key, serve
// running to count its views, and a directory for the logs.
type followWorld struct {
	te                      testEnv
	project, key, base, dir string
}

func newFollowWorld(t *testing.T) followWorld {
	t.Helper()
	w := followWorld{te: newTestEnv(t), dir: t.TempDir()}
	w.project, w.key = newAnalyticsProject(t, w.te)
	w.base, _ = serveProcess(t, w.te)
	return w
}

// follow starts folio analytics import --project … args… in a process of
// its own.
func (w followWorld) follow(t *testing.T, args ...string) *runningFolio {
	return startFolio(t, w.te, append([]string{"analytics", "import", "--project", w.project}, args...)...)
}

// folio analytics import --follow, a process of its own, counts a log as it
// grows, across a rename and a new file, a copytruncate, a SIGKILL and a
// restart, and stops cleanly on SIGTERM: serve's export counts every line
// once.
func TestAnalyticsImportFollow(t *testing.T) {
	t.Parallel()
	w := newFollowWorld(t)
	name := filepath.Join(w.dir, "access.log")
	log := &accessLog{counted: counted{t: t}}
	follow := func() *runningFolio { return w.follow(t, "--follow", name) }

	log.write(name, 9)
	p := follow()
	p.waitLog(t, "following .*access.log from its start", 20*time.Second)
	log.wait(w)
	log.write(name, 4)
	log.wait(w)

	// logrotate's default: renamed, the server still writing to the old
	// file until it reopens its log, then to a new one.
	if err := os.Rename(name, name+".1"); err != nil {
		t.Fatal(err)
	}
	log.write(name+".1", 2)
	log.write(name, 3)
	log.wait(w)
	p.waitLog(t, "access.log was rotated", 5*time.Second)

	// logrotate's copytruncate.
	log.write(name, 2)
	copyFile(t, name, name+".2")
	if err := os.Truncate(name, 0); err != nil {
		t.Fatal(err)
	}
	log.write(name, 3)
	log.wait(w)

	// Killed as a crash would, lines written while it is down, started
	// again: it goes on from the position it stored.
	p.kill(t)
	log.write(name, 5)
	p = follow()
	p.waitLog(t, "following .*access.log from byte [1-9][0-9]*, where the last run stopped", 20*time.Second)
	log.wait(w)
	log.write(name, 1)
	log.wait(w)

	p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.exited:
	case <-time.After(10 * time.Second):
		t.Fatal("the follower did not stop within 10s of SIGTERM")
	}
	if p.code != 0 || !strings.Contains(p.stderr.String(), "stopped: ") {
		t.Fatalf("after SIGTERM: exit %d, stderr:\n%s", p.code, p.stderr.String())
	}
	if log.want.Human == 0 || log.want.AI == 0 || log.want.AITraining == 0 {
		t.Fatalf("the log had no line of some class: %+v", log.want)
	}
}

// --format names every format, auto says which it found, and a format
// that is not one is refused with the list.
func TestAnalyticsImportFormats(t *testing.T) {
	t.Parallel()
	te := newTestEnv(t)
	project, _ := newAnalyticsProject(t, te)
	name := filepath.Join(t.TempDir(), "caddy.log")
	caddy := `{"level":"info","ts":1775037600.5,"logger":"http.log.access","msg":"handled request","request":{"remote_ip":"198.51.100.7","proto":"HTTP/1.1","method":"GET","host":"docs.example.com","uri":"/docs/start","headers":{"User-Agent":["` + uaAgent + `"]}},"status":200,"size":10}
not json at all
`
	if err := os.WriteFile(name, []byte(caddy), 0o600); err != nil {
		t.Fatal(err)
	}
	code, _, errs := te.folio(t, "", "analytics", "import", "--project", project, "--format", "auto", name)
	if code != 0 || !strings.Contains(errs, "format caddy") || !strings.Contains(errs, "1 page views stored") ||
		!strings.Contains(errs, name+" line 2 does not parse: not json at all") {
		t.Fatalf("import --format auto: exit %d, stderr:\n%s", code, errs)
	}
	code, _, errs = te.folio(t, "", "analytics", "import", "--project", project, "--format", "apache", name)
	if code != 2 || !strings.Contains(errs, `--format: "apache" is not a log format; use one of combined, common`) {
		t.Fatalf("import --format apache: exit %d, stderr:\n%s", code, errs)
	}
	code, _, errs = te.folio(t, "", "analytics", "import", "--project", project, "--format", "nginx:$remote_addr $status", name)
	if code != 2 || !strings.Contains(errs, "lacks a time") {
		t.Fatalf("import --format nginx:…: exit %d, stderr:\n%s", code, errs)
	}
}

// webServer is a real web server (nginx, Caddy) on loopback for a test.
type webServer struct {
	counted
	base string // http://127.0.0.1:port
	cmd  *exec.Cmd
}

// startWebServer runs bin with args until the test ends and waits until
// it answers at addr.
func startWebServer(t *testing.T, addr, bin string, env []string, args ...string) *webServer {
	t.Helper()
	path, err := exec.LookPath(bin)
	if err != nil {
		t.Fatalf("%s is needed for this test: go tool task test installs it (apt-get install -y %s): %v", bin, bin, err)
	}
	cmd := exec.Command(path, args...)
	cmd.Env = append(os.Environ(), env...)
	var out testenv.LogBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-exited
		}
		if t.Failed() {
			t.Logf("%s output:\n%s", bin, out.String())
		}
	})
	s := &webServer{counted: counted{t: t}, base: "http://" + addr, cmd: cmd}
	deadline := time.Now().Add(10 * time.Second)
	for {
		// An asset, not a page view.
		if res, err := http.Get(s.base + "/ready.css"); err == nil {
			res.Body.Close()
			return s
		}
		select {
		case <-exited:
			t.Fatalf("%s exited before it answered:\n%s", bin, out.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s did not answer at %s within 10s:\n%s", bin, addr, out.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// browse sends requests as readers and agents do, and expects the page
// views among them: a browser, two AI agents, an AI crawler and a search
// engine's crawler read pages; a stylesheet, a POST and a missing page are
// not page views.
func (s *webServer) browse(rounds int) {
	s.t.Helper()
	get := func(method, path, ua string) {
		s.t.Helper()
		req, _ := http.NewRequest(method, s.base+path, nil)
		req.Header.Set("User-Agent", ua)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			s.t.Fatal(err)
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
	}
	for i := range rounds {
		for _, ua := range []string{uaBrowser, uaAgent, uaClaude, uaCrawler, uaSearchBot} {
			get("GET", fmt.Sprintf("/docs/page-%d", i%5), ua)
			s.add(ua)
		}
		get("GET", "/assets/site.css", uaBrowser)
		get("POST", "/docs/page-1", uaBrowser)
		get("GET", "/missing", uaBrowser)
	}
}

// Real nginx on loopback, its default (combined) access log, read live by
// --follow through logrotate's way with nginx (rename, then USR1 to
// reopen) and a restart of the follower.
func TestFollowCountsRealNginx(t *testing.T) {
	t.Parallel()
	w := newFollowWorld(t)
	dir := w.dir
	log := filepath.Join(dir, "access.log")
	addr := freeAddr(t)
	conf := filepath.Join(dir, "nginx.conf")
	temp := func(name string) string { return filepath.Join(dir, name) }
	err := os.WriteFile(conf, []byte(fmt.Sprintf(`daemon off;
pid %s;
error_log %s;
events { worker_connections 64; }
http {
	access_log %s;
	client_body_temp_path %s;
	proxy_temp_path %s;
	fastcgi_temp_path %s;
	uwsgi_temp_path %s;
	scgi_temp_path %s;
	server {
		listen %s;
		location / { return 200 "docs\n"; }
		location /missing { return 404; }
	}
}
`, temp("nginx.pid"), temp("error.log"), log, temp("body"), temp("proxy"), temp("fastcgi"), temp("uwsgi"), temp("scgi"), addr)), 0o600)
	if err != nil {
		t.Fatal(err)
	}
	nginx := startWebServer(t, addr, "nginx", nil, "-e", temp("error.log"), "-p", dir, "-c", conf)
	nginx.browse(2)
	follow := func() *runningFolio { return w.follow(t, "--source", "nginx-1", "--follow", log) }
	p := follow()
	nginx.wait(w)
	nginx.browse(2)
	nginx.wait(w)

	// As logrotate's nginx rule does: rename, then USR1 makes nginx
	// reopen its log; requests in between go to the renamed file.
	if err := os.Rename(log, log+".1"); err != nil {
		t.Fatal(err)
	}
	nginx.browse(1)
	nginx.cmd.Process.Signal(syscall.SIGUSR1)
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if _, err := os.Stat(log); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("nginx did not reopen its log on USR1")
		}
	}
	nginx.browse(2)
	nginx.wait(w)
	p.waitLog(t, "access.log was rotated", 5*time.Second)

	p.kill(t)
	nginx.browse(1)
	follow() // the restarted follower; startFolio's cleanup stops it
	nginx.wait(w)
	nginx.browse(1)
	nginx.wait(w)
	t.Logf("nginx: %+v counted live", nginx.want)
}

// Real Caddy on loopback, its default JSON access log, read live by
// --follow --format caddy, the follower killed and started again.
func TestFollowCountsRealCaddy(t *testing.T) {
	t.Parallel()
	w := newFollowWorld(t)
	dir := w.dir
	log := filepath.Join(dir, "caddy.log")
	addr := freeAddr(t)
	conf := filepath.Join(dir, "Caddyfile")
	err := os.WriteFile(conf, []byte(fmt.Sprintf(`{
	admin off
	auto_https off
	storage file_system %s
}
http://%s {
	respond /missing 404
	respond "docs" 200
	log {
		output file %s
	}
}
`, filepath.Join(dir, "storage"), addr, log)), 0o600)
	if err != nil {
		t.Fatal(err)
	}
	caddy := startWebServer(t, addr, "caddy", []string{"HOME=" + dir, "XDG_DATA_HOME=" + dir, "XDG_CONFIG_HOME=" + dir},
		"run", "--config", conf, "--adapter", "caddyfile")
	caddy.browse(2)
	follow := func() *runningFolio { return w.follow(t, "--format", "caddy", "--follow", log) }
	p := follow()
	caddy.wait(w)
	caddy.browse(2)
	caddy.wait(w)
	p.kill(t)
	caddy.browse(1)
	p = follow()
	p.waitLog(t, "where the last run stopped", 20*time.Second)
	caddy.wait(w)
	t.Logf("caddy: %+v counted live", caddy.want)
}
