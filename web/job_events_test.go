package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/folio-docs/folio/internal/testenv"
	"github.com/folio-docs/folio/jobs"
	"github.com/folio-docs/folio/model"
)

// sseFrame is one server-sent event as it came over the wire, or a comment
// (Event "" and Comment set).
type sseFrame struct {
	ID, Event, Data, Comment string
}

func (f sseFrame) String() string {
	if f.Comment != "" {
		return ":" + f.Comment
	}
	return fmt.Sprintf("%s#%s %.120s", f.Event, f.ID, f.Data)
}

// eventStream is a job's event stream read by a real HTTP client over a
// real socket; it parses the framing itself.
type eventStream struct {
	t      testing.TB
	res    *http.Response
	frames chan sseFrame
	ended  chan error // the body's end: nil for a clean EOF
}

// openEvents opens GET url with key and, if given, Last-Event-ID and the
// header's name-value pairs.
func openEvents(t testing.TB, url, key, lastEventID string, header ...string) *eventStream {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Accept", "text/event-stream")
	if lastEventID != "" {
		req.Header.Set("Last-Event-ID", lastEventID)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if res.StatusCode != 200 || res.Header.Get("Content-Type") != "text/event-stream" {
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		t.Fatalf("GET %s = %d %s %s", url, res.StatusCode, res.Header.Get("Content-Type"), body)
	}
	s := &eventStream{t: t, res: res, frames: make(chan sseFrame, 256), ended: make(chan error, 1)}
	go s.read()
	t.Cleanup(s.close)
	return s
}

// read parses the stream: fields up to a blank line make an event; a line
// starting with ":" is a comment.
func (s *eventStream) read() {
	defer close(s.frames)
	rd := bufio.NewReader(s.res.Body)
	var f sseFrame
	var data []string
	for {
		line, err := rd.ReadString('\n')
		if err != nil {
			if err == io.EOF && line == "" {
				err = nil
			}
			s.ended <- err
			return
		}
		line = strings.TrimSuffix(line, "\n")
		switch {
		case line == "":
			if f.Event != "" || len(data) > 0 {
				f.Data = strings.Join(data, "\n")
				s.frames <- f
			}
			f, data = sseFrame{}, nil
		case strings.HasPrefix(line, ":"):
			s.frames <- sseFrame{Comment: strings.TrimSpace(line[1:])}
		default:
			field, value, _ := strings.Cut(line, ":")
			value = strings.TrimPrefix(value, " ")
			switch field {
			case "id":
				f.ID = value
			case "event":
				f.Event = value
			case "data":
				data = append(data, value)
			}
		}
	}
}

func (s *eventStream) close() { s.res.Body.Close() }

// frame is the next frame, comment or event, or false once until fires.
func (s *eventStream) frame(until <-chan time.Time) (sseFrame, bool) {
	s.t.Helper()
	select {
	case f, ok := <-s.frames:
		if !ok {
			s.t.Fatal("the stream ended")
		}
		return f, true
	case <-until:
		return sseFrame{}, false
	}
}

// next is the next event, skipping comments.
func (s *eventStream) next() sseFrame {
	s.t.Helper()
	deadline := time.After(15 * time.Second)
	for {
		f, ok := s.frame(deadline)
		if !ok {
			s.t.Fatal("no event within 15s")
		}
		if f.Comment == "" {
			return f
		}
	}
}

// keepAlives checks that nothing but comments comes until n have come: the
// stream quiet for n keep-alive periods by the server's
// own clock, which a slow machine stretches but cannot cut short, as it
// could a window of the test's. They must come within 5s: far more than n
// periods of the tests' keep-alive (200 ms) at any load, and less than one
// of the default (10 s), so a stream that kept the default would fail.
func (s *eventStream) keepAlives(n int) {
	s.t.Helper()
	deadline := time.After(5 * time.Second)
	for got := 0; got < n; got++ {
		f, ok := s.frame(deadline)
		if !ok {
			s.t.Fatalf("%d keep-alive comments within 5s, want %d", got, n)
		}
		if f.Comment == "" {
			s.t.Fatalf("unexpected event %s", f)
		}
	}
}

// streamedJob and streamedMessage are the events' data.
type streamedJob struct {
	Status string  `json:"status"`
	PRLink *string `json:"prLink"`
	Error  *struct {
		Code string `json:"code"`
	} `json:"error"`
}

type streamedMessage struct {
	Turn    int    `json:"turn"`
	Role    string `json:"role"`
	Content string `json:"content"`
}

// summary names an event as the test expects it: "job:completed",
// "message:assistant:1:done: …".
func summary(t testing.TB, f sseFrame) string {
	t.Helper()
	switch f.Event {
	case jobs.EventJob:
		var j streamedJob
		if err := json.Unmarshal([]byte(f.Data), &j); err != nil {
			t.Fatalf("job event %s: %v", f, err)
		}
		s := "job:" + j.Status
		if j.PRLink != nil {
			s += "+pr"
		}
		if j.Error != nil {
			s += ":" + j.Error.Code
		}
		return s
	case jobs.EventMessage:
		var m streamedMessage
		if err := json.Unmarshal([]byte(f.Data), &m); err != nil {
			t.Fatalf("message event %s: %v", f, err)
		}
		return fmt.Sprintf("message:%s:%d:%s", m.Role, m.Turn, m.Content)
	}
	t.Fatalf("unknown event %s", f)
	return ""
}

// expectEvents reads len(want) events and checks them in order (a want
// ending in "*" is a prefix); it returns them.
func (s *eventStream) expectEvents(want ...string) []sseFrame {
	s.t.Helper()
	var got []sseFrame
	for i, w := range want {
		f := s.next()
		got = append(got, f)
		if sum := summary(s.t, f); sum != w && !(strings.HasSuffix(w, "*") && strings.HasPrefix(sum, strings.TrimSuffix(w, "*"))) {
			s.t.Fatalf("event %d = %s, want %s (all so far: %v)", i+1, sum, w, got)
		}
		if f.ID == "" {
			s.t.Fatalf("event %s has no id", f)
		}
	}
	return got
}

// The stream of a job followed through its first turn, a follow-up and a
// cancel: the job at every change of status, each message as it is
// recorded, ids to resume from, and a client that reconnects gets what it
// missed and nothing twice.
func TestJobEventsFollowAJobThroughAFollowUpAndACancel(t *testing.T) {
	t.Parallel()
	g := newGatedRunner()
	s := newTestServer(t, withRunner(g), withKeepAlive(200*time.Millisecond))
	var created struct{ ID string }
	s.expect(201, "POST", "/v2/agent/{p}/job", `{"prompt":"Fix the typo"}`, &created)
	url := s.URL + "/v2/agent/" + s.project.ID + "/job/" + created.ID + "/events"

	stream := openEvents(t, url, s.key, "")
	all := stream.expectEvents("job:active", "message:user:1:Fix the typo")
	g.waitRun(t)
	g.replies <- nil
	all = append(all, stream.expectEvents("message:assistant:1:done: Fix the typo", "job:completed+pr")...)

	// The job event is exactly GET job (nothing changed since).
	var raw json.RawMessage
	s.expect(200, "GET", "/v2/agent/{p}/job/"+created.ID, "", &raw)
	if got := all[len(all)-1].Data; got != string(raw) {
		t.Fatalf("the job event is\n%s\nGET job is\n%s", got, raw)
	}

	s.expect(200, "POST", "/v2/agent/{p}/job/"+created.ID+"/message", `{"prompt":"Also fix the title"}`, nil)
	all = append(all, stream.expectEvents("message:user:2:Also fix the title", "job:active")...)
	g.waitRun(t)
	s.expect(200, "POST", "/v2/agent/{p}/job/"+created.ID+"/cancel", "", nil)
	all = append(all, stream.expectEvents("job:failed+pr:canceled")...)
	stream.keepAlives(2) // and nothing more
	stream.close()

	// A client that lost the connection after the first completion gets
	// the job as it is now, then the messages it missed, and no more.
	again := openEvents(t, url, s.key, all[3].ID)
	again.expectEvents("job:failed+pr:canceled", "message:user:2:Also fix the title")
	again.keepAlives(2)
	again.close()
	// A client that saw everything gets nothing.
	uptodate := openEvents(t, url, s.key, all[len(all)-1].ID)
	uptodate.keepAlives(2)
	uptodate.close()
	// Every id resumes: from each, the job as it is now (if the client's
	// last job event showed it otherwise), then the messages after it.
	for i, f := range all {
		var want []string
		if i < len(all)-1 { // all ends with the job as it is now
			want = append(want, "job:failed+pr:canceled")
		}
		for _, later := range all[i+1:] {
			if later.Event == jobs.EventMessage {
				want = append(want, summary(t, later))
			}
		}
		rest := openEvents(t, url, s.key, f.ID)
		rest.expectEvents(want...)
		rest.keepAlives(1)
		rest.close()
	}
}

// The stream answers as the other job endpoints do: a read key suffices,
// and an unknown job, another project's job and a missing key get the
// contract's JSON errors before any stream starts.
func TestJobEventsAuthAndErrors(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	ctx := context.Background()
	var created struct{ ID string }
	s.expect(201, "POST", "/v2/agent/{p}/job", `{"prompt":"Fix the typo"}`, &created)
	readKey, _, err := s.app.keys.Issue(ctx, s.project.ID, "reader", model.ScopeRead, "never")
	if err != nil {
		t.Fatal(err)
	}
	other, err := s.app.db.CreateProject(ctx, model.Project{Name: "other", Repository: "acme/other", Ref: "main"})
	if err != nil {
		t.Fatal(err)
	}
	otherKey, _, err := s.app.keys.Issue(ctx, other.ID, "other", model.ScopeWrite, "never")
	if err != nil {
		t.Fatal(err)
	}
	events := func(project, job string) string { return s.URL + "/v2/agent/" + project + "/job/" + job + "/events" }

	stream := openEvents(t, events(s.project.ID, created.ID), readKey, "")
	stream.expectEvents("job:active", "message:user:1:Fix the typo")
	stream.close()

	for _, c := range []struct {
		name, url, key string
		status         int
		code           string
	}{
		{"unknown job", events(s.project.ID, "nosuchjob"), s.key, 404, "not_found"},
		{"another project's job", events(other.ID, created.ID), otherKey, 404, "not_found"},
		{"a job of the key's project under another's id", events(s.project.ID, created.ID), otherKey, 404, "not_found"},
		{"no key", events(s.project.ID, created.ID), "", 401, "unauthorized"},
	} {
		req, _ := http.NewRequest("GET", c.url, nil)
		if c.key != "" {
			req.Header.Set("Authorization", "Bearer "+c.key)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var e apiError
		json.NewDecoder(res.Body).Decode(&e)
		res.Body.Close()
		if res.StatusCode != c.status || e.Code != c.code || e.Error == "" || !strings.HasPrefix(res.Header.Get("Content-Type"), "application/json") {
			t.Errorf("%s: %d %s %+v, want %d %s in the contract's shape", c.name, res.StatusCode, res.Header.Get("Content-Type"), e, c.status, c.code)
		}
	}

	// HEAD answers the stream's headers and ends.
	req, _ := http.NewRequest("HEAD", events(s.project.ID, created.ID), nil)
	req.Header.Set("Authorization", "Bearer "+readKey)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 200 || res.Header.Get("Content-Type") != "text/event-stream" {
		t.Errorf("HEAD events = %d %s", res.StatusCode, res.Header.Get("Content-Type"))
	}
}

// ended waits for the stream's end and returns how it ended (nil: cleanly).
func (s *eventStream) end(within time.Duration) error {
	s.t.Helper()
	deadline := time.After(within)
	for {
		select {
		case _, ok := <-s.frames:
			if !ok {
				return <-s.ended
			}
		case <-deadline:
			s.t.Fatalf("the stream did not end within %s", within)
		}
	}
}

// A client that goes away ends its stream as a normal request: logged at
// INFO with its 200, no ERROR line; the server's graceful shutdown ends
// the streams still open, cleanly and at once, instead of waiting out its
// grace period for them.
func TestJobEventsEndWhenTheClientGoesAndOnShutdown(t *testing.T) {
	t.Parallel()
	log := &testenv.LogBuffer{}
	s := newTestServer(t, withLog(log))
	var created struct{ ID string }
	s.expect(201, "POST", "/v2/agent/{p}/job", `{"prompt":"Fix the typo"}`, &created)
	stream := openEvents(t, s.URL+"/v2/agent/"+s.project.ID+"/job/"+created.ID+"/events", s.key, "", "X-Request-Id", "stream-gone")
	stream.expectEvents("job:active", "message:user:1:Fix the typo")
	stream.close()
	if line := requestLog(t, log, "stream-gone"); !strings.Contains(line, "status=200") || !strings.Contains(line, "level=INFO") {
		t.Errorf("the stream's access-log line: %s", line)
	}
	if strings.Contains(log.String(), "level=ERROR") {
		t.Errorf("a client leaving a stream logged an error:\n%s", log.String())
	}

	te := newTestEnv(t)
	te["FOLIO_WORKER"] = "false"
	project := te.must(t, "", "project", "create", "--name", "docs", "--repo", "acme/docs")
	key := te.must(t, "", "key", "create", "--project", project)
	base, stop := startServe(t, te)
	var job struct{ ID string }
	if code := apiCall(t, "POST", base+"/v2/agent/"+project+"/job", key, map[string]string{"prompt": "Fix the typo"}, &job); code != 201 {
		t.Fatalf("create: %d", code)
	}
	url := base + "/v2/agent/" + project + "/job/" + job.ID + "/events"
	open := []*eventStream{openEvents(t, url, key, ""), openEvents(t, url, key, "")}
	for _, st := range open {
		st.expectEvents("job:active", "message:user:1:Fix the typo")
	}
	start := time.Now()
	if code := stop(); code != 0 {
		t.Fatalf("serve exited %d", code)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("serve took %s to shut down with two streams open", took)
	}
	for _, st := range open {
		if err := st.end(5 * time.Second); err != nil {
			t.Errorf("a stream ended with %v at shutdown, want a clean end", err)
		}
	}
}

// TestJobEventsAcrossProcesses: serve and a same-host worker as processes
// of their own. The stream, served by serve, shows what the worker
// process records as it records it: serve hears of it only through Redis.
func TestJobEventsAcrossProcesses(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts two processes")
	}
	model := newHeldModel(t)
	te := newTestEnv(t)
	te["FOLIO_ADDR"] = freeAddr(t)
	te["FOLIO_WORKER"] = "false"
	te["FOLIO_MODEL"] = "test-model"
	te["FOLIO_MODEL_PROVIDER"], te["FOLIO_OPENAI_BASE_URL"], te["FOLIO_OPENAI_API_KEY"] = "openai", model.URL, model.APIKey
	project := te.must(t, "", "project", "create", "--name", "docs", "--repo", newDocsRepo(t))
	key := te.must(t, "", "key", "create", "--project", project)
	serve := startFolio(t, te, "serve")
	worker := startFolio(t, te, "worker") // FOLIO_DB: serve's database, its own process
	serve.waitLog(t, "folio serving", 30*time.Second)
	worker.waitLog(t, "worker started", 30*time.Second)
	base := "http://" + te["FOLIO_ADDR"]

	announced := testRedis.Client(t).Subscribe(context.Background(), jobs.ChangesChannel)
	defer announced.Close()
	if _, err := announced.Receive(context.Background()); err != nil { // the subscription's confirmation
		t.Fatal(err)
	}
	var job struct{ ID string }
	if code := apiCall(t, "POST", base+"/v2/agent/"+project+"/job", key, map[string]string{"prompt": "[hold] Explain how to rotate API keys."}, &job); code != 201 {
		t.Fatalf("create: %d", code)
	}
	model.waitHeld(t) // the worker process runs the turn, held at its first model call
	stream := openEvents(t, base+"/v2/agent/"+project+"/job/"+job.ID+"/events", key, "")
	stream.expectEvents("job:active", "message:user:1:[hold] Explain how to rotate API keys.")
	for len(announced.Channel()) > 0 {
		<-announced.Channel()
	}
	released := time.Now()
	model.releaseAll()
	stream.expectEvents("message:assistant:1:", "message:tool:1:*", "message:assistant:1:Wrote notes/1.md.",
		"message:user:1:"+testenv.ReviewNote+"*", "message:assistant:1:Wrote notes/1.md.", "job:completed+pr")
	t.Logf("the worker process's turn reached serve's stream %s after the model answered", time.Since(released).Round(time.Millisecond))
	// While the worker ran the turn, serve wrote nothing: these announcements are the worker process's.
	n := 0
	for wait := time.After(time.Second); ; {
		select {
		case m := <-announced.Channel():
			if m.Payload == job.ID {
				n++
			}
			continue
		case <-wait:
		}
		break
	}
	if n < 6 {
		t.Errorf("the worker process announced %d changes of the job during its turn, want its 5 messages and the turn's end", n)
	}

	if code := apiCall(t, "POST", base+"/v2/agent/"+project+"/job/"+job.ID+"/message", key, map[string]string{"prompt": "Now the expiry rules."}, nil); code != 200 {
		t.Fatalf("follow-up: %d", code)
	}
	stream.expectEvents("message:user:2:Now the expiry rules.", "job:active",
		"message:assistant:2:", "message:tool:2:*", "message:assistant:2:Wrote notes/2.md.",
		"message:user:2:"+testenv.ReviewNote+"*", "message:assistant:2:Wrote notes/2.md.", "job:completed+pr")
}

// A change that was never announced (Redis failed its writer) still
// reaches the stream: it reads its job again every few keep-alives.
func TestJobEventsCatchUpWithoutAnAnnouncement(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, withKeepAlive(50*time.Millisecond))
	var created struct{ ID string }
	s.expect(201, "POST", "/v2/agent/{p}/job", `{"prompt":"Fix the typo"}`, &created)
	stream := openEvents(t, s.URL+"/v2/agent/"+s.project.ID+"/job/"+created.ID+"/events", s.key, "")
	stream.expectEvents("job:active", "message:user:1:Fix the typo")
	m := model.JobMessage{JobID: created.ID, Turn: 1, Role: "assistant", Content: "Announced nowhere.", CreatedAt: time.Now()}
	if err := s.app.db.AddJobMessage(context.Background(), m); err != nil { // straight to the database
		t.Fatal(err)
	}
	stream.expectEvents("message:assistant:1:Announced nowhere.")
}
