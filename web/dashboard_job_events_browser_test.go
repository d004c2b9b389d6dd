package main

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
	"github.com/redis/go-redis/v9"

	"github.com/folio-docs/folio/db"
	"github.com/folio-docs/folio/internal/testenv"
	"github.com/folio-docs/folio/jobs"
	"github.com/folio-docs/folio/tasks"
)

// elsewhere is a jobs service of its own over the test server's database
// file and Redis, as a same-host `folio worker` process has: what it
// changes, the server hears of only through Redis.
func (s *testServer) elsewhere(t *testing.T) *jobs.Service {
	t.Helper()
	d, err := db.Open(context.Background(), s.app.db.Path())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	opt, err := redis.ParseURL(s.app.cfg.RedisURL)
	if err != nil {
		t.Fatal(err)
	}
	rdb := redis.NewClient(opt)
	t.Cleanup(func() { rdb.Close() })
	q := tasks.NewQueue(rdb)
	t.Cleanup(func() { q.Close() })
	return jobs.New(d, rdb, q, nil, slog.New(slog.NewTextHandler(io.Discard, nil)), s.app.jobsConfig())
}

// TestJobPageFollowsChangesMadeElsewhere: an open job page shows a cancel
// and a follow-up made by another jobs service (another process's), and
// the turn the worker then runs, without a reload and long before its
// fallback poll (every 30 s while the job runs; none once it ended).
func TestJobPageFollowsChangesMadeElsewhere(t *testing.T) {
	t.Parallel()
	model, release := jobModel(t)
	s := newTestServer(t, withModel(t, model))
	ctx := newBrowser(t)
	projectID, _ := signUpWithLocalProject(t, ctx, s)
	job := launch(t, ctx, s, projectID, "Rewrite the whole handbook in verse.")
	do(t, ctx, "open the running job",
		chromedp.Navigate(s.URL+"/projects/"+projectID+"/jobs/"+job.ID),
		chromedp.WaitVisible(chromedp.CSS(`#job-live[data-polling=true] .status-active`)),
	)
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[int](`window.folioMarker = 7`)); err != nil {
		t.Fatal(err)
	}
	other := s.elsewhere(t)

	start := time.Now()
	if _, err := other.Cancel(context.Background(), projectID, job.ID); err != nil {
		t.Fatal(err)
	}
	do(t, ctx, "see the cancel", chromedp.WaitVisible(chromedp.CSS(`#job-live[data-polling=false] .job-error`)))
	if got := text(t, ctx, ".job-error"); !strings.Contains(got, "canceled") {
		t.Errorf("after a cancel elsewhere the page says %q", got)
	}
	t.Logf("the page showed a cancel made elsewhere after %s", time.Since(start).Round(time.Millisecond))
	release()

	if _, err := other.Message(context.Background(), projectID, job.ID, quietPrompt); err != nil {
		t.Fatal(err)
	}
	do(t, ctx, "see the follow-up, then its turn end",
		chromedp.WaitVisible(chromedp.CSS(`.msg-user ~ .msg-user`)),
		chromedp.WaitVisible(chromedp.CSS(`#job-live[data-polling=false] .status-completed`)),
	)
	if got := text(t, ctx, ".convo"); !strings.Contains(got, "I changed nothing") {
		t.Errorf("after the follow-up's turn the conversation is:\n%s", got)
	}
	if marker, err := chromedp.Run(ctx, chromedp.Evaluate[int](`window.folioMarker || 0`)); err != nil || marker != 7 {
		t.Fatalf("the page was reloaded (marker %d, %v)", marker, err)
	}
	t.Logf("the page followed a cancel, a follow-up and its turn in %s", time.Since(start).Round(time.Millisecond))
}

// TestJobPageKeepsAnEventThatArrivesDuringARefresh: the job's last event
// (completed) arrives while the page's refresh for the event before it is
// still on its way. The browser holds that refresh's answer, which shows
// the job running, until the page has received the completed event; the
// page must still end up showing the job completed, long before its
// fallback poll. (htmx drops a request queued on an element that the
// answer before it swapped away: a page that refreshed from the swapped
// element stayed "working" 30 s.)
func TestJobPageKeepsAnEventThatArrivesDuringARefresh(t *testing.T) {
	t.Parallel()
	// The model writes its note once released, and answers after the
	// tool's result once released again: the page refreshes for the note's
	// messages while the job still runs.
	write, answer := make(chan struct{}), make(chan struct{})
	release := func(gate chan struct{}) func() { return sync.OnceFunc(func() { close(gate) }) }
	releaseWrite, releaseAnswer := release(write), release(answer)
	t.Cleanup(releaseWrite)
	t.Cleanup(releaseAnswer)
	model := testenv.NewModelServer(t, func(ms []testenv.ChatMessage) testenv.ModelReply {
		gate := write
		if ms[len(ms)-1].Role == "tool" {
			gate = answer
		}
		select {
		case <-gate:
		case <-time.After(30 * time.Second):
		}
		return testenv.NotesWriter(ms)
	})
	s := newTestServer(t, withModel(t, model))
	ctx := newBrowser(t)
	projectID, _ := signUpWithLocalProject(t, ctx, s)
	job := launch(t, ctx, s, projectID, "Explain how to rotate API keys.")
	jobPage := s.URL + "/projects/" + projectID + "/jobs/" + job.ID
	do(t, ctx, "open the running job",
		chromedp.Navigate(jobPage),
		chromedp.WaitVisible(chromedp.CSS(`#job-live[data-polling=true] .status-active`)),
	)
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`window.sawCompleted = false;
		document.addEventListener('htmx:sseMessage', e => {
			if (e.detail.type === 'job' && JSON.parse(e.detail.data).status === 'completed') window.sawCompleted = true;
		}); true`)); err != nil {
		t.Fatal(err)
	}

	// Hold the first refresh whose answer shows the job running.
	held := make(chan fetch.RequestID, 1)
	paused := chromedp.Events(ctx, fetch.RequestPaused)
	go func() {
		var holding atomic.Bool
		holding.Store(true)
		for ev, err := range paused {
			if err != nil {
				return
			}
			go func() {
				if holding.Load() {
					body, err := chromedp.Call(ctx, fetch.GetResponseBody, fetch.GetResponseBodyParams{RequestID: ev.RequestID})
					if err == nil && strings.Contains(string(body.Body), `data-polling="true"`) && holding.CompareAndSwap(true, false) {
						held <- ev.RequestID
						return
					}
				}
				chromedp.Call(ctx, fetch.ContinueRequest, fetch.ContinueRequestParams{RequestID: ev.RequestID})
			}()
		}
	}()
	if _, err := chromedp.Call(ctx, fetch.Enable, fetch.EnableParams{Patterns: []*fetch.RequestPattern{
		{URLPattern: jobPage, ResourceType: network.ResourceTypeXHR, RequestStage: fetch.RequestStageResponse},
	}}); err != nil {
		t.Fatal(err)
	}

	releaseWrite()
	var id fetch.RequestID
	select {
	case id = <-held:
	case <-time.After(15 * time.Second):
		t.Fatal("the page asked for no refresh that showed the job running")
	}
	releaseAnswer()
	waitTurn(t, s, projectID, job.ID)
	pctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	if _, err := chromedp.Run(pctx, chromedp.Poll[bool](`window.sawCompleted`)); err != nil {
		t.Fatalf("the page received no completed event: %v", err)
	}
	if _, err := chromedp.Call(ctx, fetch.ContinueRequest, fetch.ContinueRequestParams{RequestID: id}); err != nil {
		t.Fatal(err)
	}
	do(t, ctx, "see the job completed", chromedp.WaitVisible(chromedp.CSS(`#job-live[data-polling=false] .status-completed`)))
}
