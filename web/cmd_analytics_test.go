package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/folio-docs/folio/analytics"
)

// User agents of each class the follow tests write.
const (
	uaBrowser = "Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0"
	uaAgent   = "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; ChatGPT-User/1.0; +https://openai.com/bot"
	uaCrawler = "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)"
)

// accessLog writes an nginx combined log as a server does, one request a
// second, and counts what it wrote by class.
type accessLog struct {
	t                     *testing.T
	n                     int
	human, ai, aiTraining int
}

// write appends requests to the file at name (made if missing): a browser,
// an AI agent and a crawler in turn.
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
		*[]*int{&l.human, &l.ai, &l.aiTraining}[l.n%3]++
		at := time.Date(2026, 4, 1, 10, 0, 0, 0, time.UTC).Add(time.Duration(l.n) * time.Second)
		fmt.Fprintf(f, "198.51.100.%d - - [%s] \"GET /docs/page-%d HTTP/1.1\" 200 5120 \"-\" \"%s\"\n",
			l.n%250, at.Format("02/Jan/2006:15:04:05 -0700"), l.n%7, ua)
	}
}

// waitCounted waits until serve's views export counts exactly what l
// wrote, failing at once if it ever counts more.
func (l *accessLog) waitCounted(base, project, key string) {
	l.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		var v analytics.Views
		if code := apiCall(l.t, "GET", base+"/v1/analytics/"+project+"/views", key, nil, &v); code != 200 {
			l.t.Fatalf("views export: %d", code)
		}
		got := v.Totals
		if got.Human > l.human || got.AI > l.ai || got.AITraining > l.aiTraining {
			l.t.Fatalf("counted %+v, more than written (human %d, ai %d, aiTraining %d): a line was stored twice", got, l.human, l.ai, l.aiTraining)
		}
		if got.Human == l.human && got.AI == l.ai && got.AITraining == l.aiTraining && got.Bots == 0 {
			return
		}
		if time.Now().After(deadline) {
			l.t.Fatalf("counted %+v after 20s, want human %d, ai %d, aiTraining %d", got, l.human, l.ai, l.aiTraining)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// folio analytics import --follow, a process of its own, counts a log as it
// grows, across a rename and a new file, a copytruncate, a SIGKILL and a
// restart, and stops cleanly on SIGTERM: serve's export counts every line
// once.
func TestAnalyticsImportFollow(t *testing.T) {
	te := newTestEnv(t)
	project, key := newAnalyticsProject(t, te)
	base, _ := serveProcess(t, te)
	dir := t.TempDir()
	name := filepath.Join(dir, "access.log")
	log := &accessLog{t: t}
	follow := func() *runningFolio {
		return startFolio(t, te, "analytics", "import", "--project", project, "--follow", name)
	}

	log.write(name, 9)
	p := follow()
	p.waitLog(t, "following .*access.log from its start", 20*time.Second)
	log.waitCounted(base, project, key)
	log.write(name, 4)
	log.waitCounted(base, project, key)

	// logrotate's default: renamed, the server still writing to the old
	// file until it reopens its log, then to a new one.
	if err := os.Rename(name, name+".1"); err != nil {
		t.Fatal(err)
	}
	log.write(name+".1", 2)
	log.write(name, 3)
	log.waitCounted(base, project, key)
	p.waitLog(t, "access.log was rotated", 5*time.Second)

	// logrotate's copytruncate.
	log.write(name, 2)
	copyFile(t, name, name+".2")
	if err := os.Truncate(name, 0); err != nil {
		t.Fatal(err)
	}
	log.write(name, 3)
	log.waitCounted(base, project, key)

	// Killed as a crash would, lines written while it is down, started
	// again: it goes on from the position it stored.
	p.kill(t)
	log.write(name, 5)
	p = follow()
	p.waitLog(t, "following .*access.log from byte [1-9][0-9]*, where the last run stopped", 20*time.Second)
	log.waitCounted(base, project, key)
	log.write(name, 1)
	log.waitCounted(base, project, key)

	p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.exited:
	case <-time.After(10 * time.Second):
		t.Fatal("the follower did not stop within 10s of SIGTERM")
	}
	if p.code != 0 || !strings.Contains(p.stderr.String(), "stopped: ") {
		t.Fatalf("after SIGTERM: exit %d, stderr:\n%s", p.code, p.stderr.String())
	}
	if log.human == 0 || log.ai == 0 || log.aiTraining == 0 {
		t.Fatalf("the log had no line of some class: %+v", log)
	}
}

// --format names every format, auto says which it found, and a format
// that is not one is refused with the list.
func TestAnalyticsImportFormats(t *testing.T) {
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
