package jobs

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// ChangesChannel is the Redis channel on which every process that writes a
// job (serve, same-host workers, serve on behalf of remote workers) says
// "job <id> changed". The message carries only the id: a listener reads
// the job from SQLite, so a lost message only delays, and order comes from
// the database.
const ChangesChannel = "folio:jobs:changed"

// publishTimeout bounds a change's announcement: it must not hold up the
// write it follows when Redis is slow.
const publishTimeout = 2 * time.Second

// changed announces that job id changed: its status, its links or its
// conversation. A failure is logged, never fatal to the write, which is
// already stored: streams catch up when Redis is back (Hub wakes them all
// on re-subscribing) or when they read their job again, every minute.
func (s *Service) changed(ctx context.Context, id string) {
	if s.rdb == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), publishTimeout)
	defer cancel()
	if err := s.rdb.Publish(ctx, ChangesChannel, id).Err(); err != nil {
		s.log.Warn("unable to announce a job change", "job_id", id, "err", err)
	}
}

// Hub fans the job changes announced on ChangesChannel out to this
// process's event streams: one Redis subscription for the whole process,
// however many streams are open, and a one-slot channel per stream.
// It subscribes when the first stream watches, and ends every stream on Close.
type Hub struct {
	rdb redis.UniversalClient
	log *slog.Logger

	start     sync.Once
	ready     chan struct{} // closed once the subscription is confirmed
	done      chan struct{} // closed by Close: streams end
	closeOnce sync.Once
	stopped   chan struct{} // closed when the subscription has ended

	mu       sync.Mutex
	pubsub   *redis.PubSub
	watchers map[string]map[*Watch]struct{} // by job id
}

// Watch is one stream's interest in one job.
type Watch struct {
	hub   *Hub
	jobID string
	c     chan struct{}
}

// NewHub returns a hub over rdb; it connects on the first Watch.
func NewHub(rdb redis.UniversalClient, log *slog.Logger) *Hub {
	return &Hub{rdb: rdb, log: log, ready: make(chan struct{}), done: make(chan struct{}), stopped: make(chan struct{}),
		watchers: map[string]map[*Watch]struct{}{}}
}

// subscribeWait is how long a new stream waits for the hub's subscription
// before reading the job all the same (Redis down: the stream then
// notices changes when it reads its job again, every minute).
const subscribeWait = 3 * time.Second

// Watch registers interest in jobID's changes, and returns once the hub's
// subscription is confirmed (or subscribeWait has passed), so a stream that
// reads the job after Watch misses nothing announced after its read.
func (h *Hub) Watch(ctx context.Context, jobID string) *Watch {
	h.start.Do(h.subscribe)
	w := &Watch{hub: h, jobID: jobID, c: make(chan struct{}, 1)}
	h.mu.Lock()
	set := h.watchers[jobID]
	if set == nil {
		set = map[*Watch]struct{}{}
		h.watchers[jobID] = set
	}
	set[w] = struct{}{}
	h.mu.Unlock()
	t := time.NewTimer(subscribeWait)
	defer t.Stop()
	select {
	case <-h.ready:
	case <-h.done:
	case <-ctx.Done():
	case <-t.C:
		h.log.Warn("job changes: no Redis subscription yet; streams read their jobs again every minute meanwhile", "job_id", jobID)
	}
	return w
}

// Changed receives when the job may have changed since the last receive:
// many changes between two reads are one.
func (w *Watch) Changed() <-chan struct{} { return w.c }

// Closed is closed when the hub closes (serve is shutting down).
func (w *Watch) Closed() <-chan struct{} { return w.hub.done }

// Stop ends the watch.
func (w *Watch) Stop() {
	h := w.hub
	h.mu.Lock()
	if set := h.watchers[w.jobID]; set != nil {
		delete(set, w)
		if len(set) == 0 {
			delete(h.watchers, w.jobID)
		}
	}
	h.mu.Unlock()
}

func (h *Hub) subscribe() {
	h.mu.Lock()
	defer h.mu.Unlock()
	select {
	case <-h.done:
		close(h.stopped)
		return
	default:
	}
	h.pubsub = h.rdb.Subscribe(context.Background(), ChangesChannel)
	go h.listen(h.pubsub.ChannelWithSubscriptions())
}

// listen wakes the watchers of each job announced. go-redis reconnects and
// re-subscribes by itself after a failure; a re-subscription wakes every
// watcher, since announcements made meanwhile were lost.
func (h *Hub) listen(msgs <-chan any) {
	defer close(h.stopped)
	subscribed := false
	for m := range msgs {
		switch m := m.(type) {
		case *redis.Message:
			h.wake(m.Payload)
		case *redis.Subscription:
			if m.Kind != "subscribe" {
				continue
			}
			if subscribed {
				h.log.Info("job changes: re-subscribed to Redis; streams re-read their jobs")
				h.wake("")
				continue
			}
			subscribed = true
			close(h.ready)
		}
	}
}

// wake signals the watchers of jobID, or every watcher for "".
func (h *Hub) wake(jobID string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	signal := func(set map[*Watch]struct{}) {
		for w := range set {
			select {
			case w.c <- struct{}{}:
			default: // a wake is already pending: the stream reads once for both
			}
		}
	}
	if jobID != "" {
		signal(h.watchers[jobID])
		return
	}
	for _, set := range h.watchers {
		signal(set)
	}
}

// Close ends every stream and the subscription. It may be called more than once.
func (h *Hub) Close() {
	h.closeOnce.Do(func() {
		close(h.done)
		h.start.Do(func() { close(h.stopped) }) // never subscribed
		h.mu.Lock()
		ps := h.pubsub
		h.mu.Unlock()
		if ps != nil {
			_ = ps.Close() // ends the subscription either way: its loop stops, which is what is waited for next
			<-h.stopped
		}
	})
}
