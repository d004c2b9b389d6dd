package main

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/folio-docs/folio/db"
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
	rdb := testRedis.Client(t)
	q := tasks.NewQueue(rdb)
	t.Cleanup(func() { q.Close() })
	return jobs.New(d, rdb, q, nil, slog.New(slog.NewTextHandler(io.Discard, nil)), s.app.jobsConfig())
}

// TestJobPageFollowsChangesMadeElsewhere: an open job page shows a cancel
// and a follow-up made by another jobs service (another process's), and
// the turn the worker then runs, without a reload and long before its
// fallback poll (every 30 s while the job runs; none once it ended).
func TestJobPageFollowsChangesMadeElsewhere(t *testing.T) {
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
