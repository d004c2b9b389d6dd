package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/folio-docs/folio/analytics"
	"github.com/folio-docs/folio/model"
)

// workerdVersion is the workerd `go tool task test` installs from npm.
const workerdVersion = "1.20260730.1"

// workerd finds Cloudflare's Workers runtime: FOLIO_WORKERD, the copy
// `go tool task test` installs in the user's cache, or one on the PATH.
func workerd(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("FOLIO_WORKERD"); p != "" {
		return p
	}
	cache := os.Getenv("XDG_CACHE_HOME")
	if cache == "" {
		home, _ := os.UserHomeDir()
		cache = filepath.Join(home, ".cache")
	}
	p := filepath.Join(cache, "folio-workerd", "node_modules", "@cloudflare", "workerd-linux-64", "bin", "workerd")
	if _, err := os.Stat(p); err == nil {
		return p
	}
	if p, err := exec.LookPath("workerd"); err == nil {
		return p
	}
	t.Fatalf("workerd is not installed: go tool task test installs it (npm install workerd@%s into %s), or set FOLIO_WORKERD", workerdVersion, filepath.Dir(filepath.Dir(filepath.Dir(filepath.Dir(p)))))
	return ""
}

// workerdConfig runs scripts/folio-worker.js on addr with its variables,
// reaching loopback (a Worker may only reach public addresses by default).
const workerdConfig = `using Workerd = import "/workerd/workerd.capnp";

const config :Workerd.Config = (
  services = [
    (name = "main", worker = .folio),
    (name = "internet", network = (allow = ["public", "private", "local"])),
  ],
  sockets = [(name = "http", address = %q, http = (), service = "main")],
);

const folio :Workerd.Worker = (
  modules = [(name = "worker.js", esModule = embed "folio-worker.js")],
  compatibilityDate = "2024-09-23",
  bindings = [
    (name = "FOLIO_URL", text = %q),
    (name = "FOLIO_PROJECT", text = %q),
    (name = "FOLIO_KEY", text = %q),
    (name = "ORIGIN", text = %q),
  ],
);
`

// TestCloudflareWorkerSnippet runs the README's Worker in workerd, the
// runtime Cloudflare's Workers run on, in front of a static docs site, and
// reads through it as a browser and as an AI agent would: the pages come
// back as the site sent them, at once, though Folio's events API answers a
// second late, and Folio counts the page reads, not the assets, errors or
// posts.
func TestCloudflareWorkerSnippet(t *testing.T) {
	t.Parallel()
	bin := workerd(t)
	s := newTestServer(t)
	key, _, err := s.app.keys.Issue(context.Background(), s.project.ID, "worker", model.ScopeIngest, "never")
	if err != nil {
		t.Fatal(err)
	}
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Site", "docs")
		switch r.URL.Path {
		case "/docs/start":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, "<h1>Start</h1>")
		case "/llms.txt":
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			fmt.Fprint(w, "# Docs")
		case "/site.css":
			w.Header().Set("Content-Type", "text/css")
			fmt.Fprint(w, "h1{}")
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(site.Close)
	// Folio's events API, a second late: the pages must not wait for it.
	target, _ := url.Parse(s.URL)
	proxy := httputil.NewSingleHostReverseProxy(target)
	reports := make(chan string, 16)
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(time.Second)
		reports <- r.Method + " " + r.URL.Path
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(slow.Close)

	dir := t.TempDir()
	script, err := os.ReadFile("../scripts/folio-worker.js")
	if err != nil {
		t.Fatal(err)
	}
	addr := freeAddr(t)
	config := fmt.Sprintf(workerdConfig, addr, slow.URL, s.project.ID, key, site.URL)
	for name, body := range map[string][]byte{"folio-worker.js": script, "config.capnp": []byte(config)} {
		if err := os.WriteFile(filepath.Join(dir, name), body, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	var out strings.Builder
	cmd := exec.Command(bin, "serve", filepath.Join(dir, "config.capnp"))
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("workerd did not listen on %s within 20 s:\n%s", addr, out.String())
		}
	}

	browser := "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_4) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Safari/605.1.15"
	agent := "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; ChatGPT-User/1.0; +https://openai.com/bot"
	get := func(method, path, ua, ip string) (*http.Response, string, time.Duration) {
		t.Helper()
		req, _ := http.NewRequest(method, "http://"+addr+path, nil)
		req.Header.Set("User-Agent", ua)
		req.Header.Set("CF-Connecting-IP", ip) // as Cloudflare's edge sets it
		req.Header.Set("Referer", "https://www.google.com/")
		t0 := time.Now()
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("%s %s through workerd: %v\n%s", method, path, err, out.String())
		}
		defer res.Body.Close()
		body, _ := io.ReadAll(res.Body)
		return res, string(body), time.Since(t0)
	}
	for _, c := range []struct {
		method, path, ua, ip string
		status               int
		body                 string
	}{
		{"GET", "/docs/start", browser, "203.0.113.7", 200, "<h1>Start</h1>"},
		{"GET", "/docs/start", agent, "198.51.100.9", 200, "<h1>Start</h1>"},
		{"GET", "/llms.txt", agent, "198.51.100.9", 200, "# Docs"},
		{"GET", "/site.css", browser, "203.0.113.7", 200, "h1{}"},
		{"GET", "/missing", browser, "203.0.113.7", 404, "404 page not found\n"},
		{"POST", "/docs/start", browser, "203.0.113.7", 200, "<h1>Start</h1>"},
	} {
		res, body, took := get(c.method, c.path, c.ua, c.ip)
		if res.StatusCode != c.status || body != c.body || res.Header.Get("X-Site") != "docs" {
			t.Errorf("%s %s: %d %q (X-Site %q), want the site's %d %q", c.method, c.path, res.StatusCode, body, res.Header.Get("X-Site"), c.status, c.body)
		}
		if took > 700*time.Millisecond {
			t.Errorf("%s %s took %v: the page waited for Folio's answer", c.method, c.path, took)
		}
	}

	// The three page reads reach Folio, one event each, and nothing else.
	want := analytics.ViewCounts{Human: 1, AI: 2, Total: 3}
	var v struct{ Totals analytics.ViewCounts }
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		s.expect(200, "GET", "/v1/analytics/{p}/views", "", &v)
		if v.Totals == want || time.Now().After(deadline) {
			break
		}
	}
	if v.Totals != want {
		t.Fatalf("views %+v, want %+v (workerd: %s)", v.Totals, want, out.String())
	}
	if n := len(reports); n != 3 {
		t.Errorf("the Worker sent %d reports, want 3", n)
	}
	for range len(reports) {
		if r := <-reports; r != "POST /v1/analytics/"+s.project.ID+"/events" {
			t.Errorf("the Worker sent %s", r)
		}
	}
}

// TestREADMEHasTheWorkerSnippet keeps the README's Worker the one tested.
func TestREADMEHasTheWorkerSnippet(t *testing.T) {
	t.Parallel()
	script, err := os.ReadFile("../scripts/folio-worker.js")
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(readme), "```js\n"+string(script)+"```\n") {
		t.Fatal("README.md does not show scripts/folio-worker.js as it is, in a js block")
	}
}
