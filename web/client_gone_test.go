package main

import (
	"bufio"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/folio-docs/folio/internal/testenv"
	"github.com/folio-docs/folio/jobs"
)

// cutShort is a request whose body stops before its Content-Length.
type cutShort struct {
	name, method, path string
	header             map[string]string
	body               string // what arrives of the promised 100 bytes
}

// send writes c's request over a real socket, with request id id, then
// half-closes the socket (closeAll: closes it) and returns the status line
// of the answer, if one came.
func (c cutShort) send(t *testing.T, addr, id string, closeAll bool) string {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s HTTP/1.1\r\nHost: %s\r\nContent-Length: 100\r\nX-Request-Id: %s\r\n", c.method, c.path, addr, id)
	for k, v := range c.header {
		fmt.Fprintf(&b, "%s: %s\r\n", k, v)
	}
	b.WriteString("\r\n" + c.body)
	if _, err := conn.Write([]byte(b.String())); err != nil {
		t.Fatal(err)
	}
	if closeAll {
		return ""
	}
	conn.(*net.TCPConn).CloseWrite()
	conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	line, err := bufio.NewReader(conn).ReadString('\n')
	if err != nil {
		t.Fatalf("%s: no answer to a half-closed request: %v", c.name, err)
	}
	return strings.TrimSpace(line)
}

// requestLog waits for the access-log line of request id and returns it.
func requestLog(t *testing.T, log *testenv.LogBuffer, id string) string {
	t.Helper()
	re := regexp.MustCompile(`(?m)^.*msg=request .*request_id=` + regexp.QuoteMeta(id) + `.*$`)
	if !log.Wait(re, 10*time.Second, nil) {
		t.Fatalf("no access-log line for request %s in:\n%s", id, log.String())
	}
	return re.FindString(log.String())
}

// A client that sends less body than it promised, then half-closes or
// drops its connection, gets a 400 if it still listens, and the server
// logs it at INFO: no 5xx, no ERROR line, on every kind of route that
// reads a body.
func TestCutShortBodiesAreTheClientsFault(t *testing.T) {
	t.Parallel()
	log := &testenv.LogBuffer{}
	s := newTestServer(t, withLog(log), withChange(func(a *app, _ *jobs.Config) { a.cfg.GitHubWebhookSecret = "whsec" }))
	owner := s.addUser(t, "owner@example.com")
	p := s.createProject(t, owner)
	c := s.client(t)
	if res := s.login(t, c, "owner@example.com", "correct horse"); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("sign in: %d", res.StatusCode)
	}
	u, _ := url.Parse(s.URL)
	var cookie string
	for _, ck := range c.Jar.Cookies(u) {
		cookie += ck.Name + "=" + ck.Value + "; "
	}
	if cookie == "" {
		t.Fatal("signing in set no session cookie")
	}
	form := map[string]string{"Content-Type": "application/x-www-form-urlencoded"}
	apiJSON := map[string]string{"Content-Type": "application/json", "Authorization": "Bearer " + s.key}
	cases := []cutShort{
		{"JSON API", "POST", "/v2/agent/" + s.project.ID + "/job", apiJSON, `{"prompt":"Document the`},
		{"sign-in form", "POST", "/login", form, "email=owner%40example.com&pass"},
		{"signed-in form", "POST", "/projects/" + p.ID + "/keys", map[string]string{"Content-Type": form["Content-Type"], "Cookie": cookie}, "name=ci&scope=wr"},
		{"tracker", "POST", "/api/event", map[string]string{"Content-Type": "application/json"}, `{"project":"` + s.project.ID},
		{"events", "POST", "/v1/analytics/" + s.project.ID + "/events", apiJSON, `{"events":[{"path":"/a"`},
		{"github webhook", "POST", "/webhooks/github", map[string]string{"Content-Type": "application/json", "X-GitHub-Event": "pull_request"}, `{"action":"clo`},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, closeAll := range []bool{false, true} {
				id := fmt.Sprintf("cut-%d-%t", i, closeAll)
				status := c.send(t, u.Host, id, closeAll)
				if !closeAll && !strings.HasPrefix(status, "HTTP/1.1 400 ") {
					t.Errorf("half-closed: answered %q, want 400", status)
				}
				line := requestLog(t, log, id)
				if !strings.Contains(line, "status=400") {
					t.Errorf("closed=%t: logged %q, want status=400", closeAll, line)
				}
			}
		})
	}
	for _, line := range strings.Split(log.String(), "\n") {
		if strings.Contains(line, "level=ERROR") || strings.Contains(line, "level=WARN") || strings.Contains(line, "status=5") {
			t.Errorf("a client's fault was logged as the server's: %s", line)
		}
	}
	if !strings.Contains(log.String(), `level=INFO msg="client went away"`) {
		t.Errorf("no INFO line says a client went away:\n%s", log.String())
	}
}
