package jobs_test

import (
	"context"
	"testing"
	"time"

	"github.com/folio-docs/folio/agent"
	"github.com/folio-docs/folio/jobs"
	"github.com/folio-docs/folio/model"
	"github.com/folio-docs/folio/tasks"
)

func TestEventCursorIsAnEventID(t *testing.T) {
	for _, c := range []jobs.EventCursor{{}, {Message: 42, Job: 0xfedcba9876543210}, {Message: 1 << 62, Job: 1}} {
		got, ok := jobs.ParseEventCursor(c.String())
		if !ok || got != c {
			t.Errorf("ParseEventCursor(%q) = %+v, %v; want %+v", c.String(), got, ok, c)
		}
	}
	for _, bad := range []string{"", "12", "-1-0", "x-1", "1-xyz", "1-2-3", "1-10000000000000000"} {
		if c, ok := jobs.ParseEventCursor(bad); ok {
			t.Errorf("ParseEventCursor(%q) = %+v, want refused", bad, c)
		}
	}
}

// waitChanged waits for a watch to fire.
func waitChanged(t *testing.T, w *jobs.Watch, what string) {
	t.Helper()
	select {
	case <-w.Changed():
	case <-time.After(5 * time.Second):
		t.Fatalf("the watch did not fire after %s", what)
	}
}

// A change made through another Service (another process: its own Redis
// connection) wakes this process's watchers of that job, and only those;
// the events then read say what changed, and a change of usage alone is
// no job event.
func TestHubWakesTheWatchersOfAChangedJob(t *testing.T) {
	w := newWorld(t, jobs.Config{})
	ctx := context.Background()
	j := w.create("Fix the typo")
	other := w.create("Something else")
	watch := w.svc.Watch(ctx, j.ID)
	defer watch.Stop()
	bystander := w.svc.Watch(ctx, other.ID)
	defer bystander.Stop()

	evs, cur, err := w.svc.Events(ctx, w.project.ID, j.ID, jobs.EventCursor{}, true)
	if err != nil || len(evs) != 2 || evs[0].Name != jobs.EventJob || evs[1].Name != jobs.EventMessage {
		t.Fatalf("first events: %v, %v; want the job and its prompt", evs, err)
	}

	elsewhere := jobs.New(w.db, testRedis.Client(t), tasks.NewQueue(testRedis.Client(t)), nil, w.log, jobs.Config{})
	defer elsewhere.EndStreams()
	if err := elsewhere.LocalStore().AddUsage(ctx, j.ID, model.RunUsage{Steps: 3, Tokens: 300}); err != nil {
		t.Fatal(err)
	}
	if evs, _, _ := w.svc.Events(ctx, w.project.ID, j.ID, cur, false); len(evs) != 0 {
		t.Fatalf("after a change of usage alone: %v, want no event", evs)
	}
	if err := elsewhere.LocalStore().AddMessage(ctx, j.ID, 1, "", agent.Message{Role: agent.RoleAssistant, Content: "On it."}); err != nil {
		t.Fatal(err)
	}
	waitChanged(t, watch, "a message recorded elsewhere")
	evs, cur, err = w.svc.Events(ctx, w.project.ID, j.ID, cur, false)
	if err != nil || len(evs) != 1 || evs[0].Name != jobs.EventMessage || evs[0].ID != cur {
		t.Fatalf("after a message: %v (cursor %v), %v", evs, cur, err)
	}
	if _, err := elsewhere.Cancel(ctx, w.project.ID, j.ID); err != nil {
		t.Fatal(err)
	}
	waitChanged(t, watch, "a cancel elsewhere")
	if evs, _, _ := w.svc.Events(ctx, w.project.ID, j.ID, cur, false); len(evs) != 1 || evs[0].Name != jobs.EventJob {
		t.Fatalf("after a cancel: %v, want the job", evs)
	}
	select {
	case <-bystander.Changed():
		t.Fatal("the watcher of another job was woken")
	default:
	}

	w.svc.EndStreams()
	select {
	case <-watch.Closed():
	case <-time.After(5 * time.Second):
		t.Fatal("EndStreams did not close the watches")
	}
}

// When the hub's Redis connection is cut, go-redis re-subscribes; the hub
// then wakes every watcher, since announcements made meanwhile were lost.
func TestHubWakesEveryWatcherWhenItResubscribes(t *testing.T) {
	w := newWorld(t, jobs.Config{})
	defer w.svc.EndStreams()
	ctx := context.Background()
	j := w.create("Fix the typo")
	watch := w.svc.Watch(ctx, j.ID)
	defer watch.Stop()
	select {
	case <-watch.Changed():
		t.Fatal("woken before anything changed")
	default:
	}
	if err := w.rdb.ClientKillByFilter(ctx, "TYPE", "pubsub").Err(); err != nil {
		t.Fatal(err)
	}
	waitChanged(t, watch, "the hub's connection was cut and made again")
}
