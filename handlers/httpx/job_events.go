package httpx

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/folio-docs/folio/jobs"
	"github.com/folio-docs/folio/metrics"
	"github.com/folio-docs/folio/model"
)

// JobEventSource is what a job's event stream reads: the events a client
// has not seen, and a watch that fires when the job may have changed.
type JobEventSource interface {
	Events(ctx context.Context, projectID, id string, after jobs.EventCursor, connecting bool) ([]jobs.Event, jobs.EventCursor, error)
	Watch(ctx context.Context, jobID string) *jobs.Watch
}

// DefaultKeepAlive is how often a job's stream sends a comment line: the
// contract asks for one at least every 15 s, so that proxies keep the
// connection open.
const DefaultKeepAlive = 10 * time.Second

// recheckEvery is how many keep-alives apart an idle stream reads its job
// again all the same (a minute by default), in case an announcement was
// lost: a change announced nowhere (Redis failed its writer) shows then.
const recheckEvery = 6

// streamWriteTimeout drops a client that takes nothing for this long.
const streamWriteTimeout = 30 * time.Second

// StreamJobEvents serves a job's event stream, for the API and the job
// page alike: the job first, then what changes, read again from the
// database each time the hub says the job changed (and every recheckEvery
// keep-alives all the same). It holds no goroutine of its own, no Redis connection
// and, between writes, no buffer. refuse answers an
// error met before the stream starts (an unknown job). The stream ends
// when the client goes, or when serve shuts down.
func StreamJobEvents(w http.ResponseWriter, r *http.Request, src JobEventSource, keepAlive time.Duration,
	projectID, id string, after jobs.EventCursor, refuse func(http.ResponseWriter, *http.Request, error)) {
	ctx := r.Context()
	// Watch before the first read: a change made after the read is announced to the watch.
	watch := src.Watch(ctx, id)
	defer watch.Stop()
	evs, cur, err := src.Events(ctx, projectID, id, after, true)
	if err != nil {
		refuse(w, r, err)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no") // nginx: pass each event on at once
	w.WriteHeader(http.StatusOK)
	if r.Method == http.MethodHead {
		return
	}
	s := &eventStream{w: w, rc: http.NewResponseController(w)}
	if s.send(evs) != nil {
		return
	}
	StreamOpened(r)
	metrics.EventStreamOpened()
	defer metrics.EventStreamClosed()

	tick := time.NewTicker(keepAlive)
	defer tick.Stop()
	for ticks := 0; ; {
		select {
		case <-ctx.Done(): // the client went away
			return
		case <-watch.Closed(): // serve is shutting down
			return
		case <-watch.Changed():
		case <-tick.C:
			s.buf = append(s.buf, ": keep-alive\n\n"...)
			if ticks++; ticks%recheckEvery != 0 {
				if s.send(nil) != nil {
					return
				}
				continue
			}
		}
		evs, next, err := src.Events(ctx, projectID, id, cur, false)
		switch {
		case ctx.Err() != nil:
			return
		case errors.Is(err, model.ErrNotFound):
			return // the job is gone: nothing more will come
		case err != nil:
			Logger(ctx).Warn("job events: unable to read the job; trying again at its next change or within a minute",
				"request_id", RequestID(ctx), "job_id", id, "err", err)
		default:
			cur = next
		}
		if s.send(evs) != nil {
			return // the client is gone or takes nothing
		}
	}
}

// eventStream writes server-sent events: each as "id:", "event:" and one
// "data:" line per line of its data, then a blank line.
type eventStream struct {
	w   http.ResponseWriter
	rc  *http.ResponseController
	buf []byte
}

// send writes evs, and whatever else is buffered, and flushes.
func (s *eventStream) send(evs []jobs.Event) error {
	for _, e := range evs {
		s.buf = append(s.buf, "id: "...)
		s.buf = append(s.buf, e.ID.String()...)
		s.buf = append(s.buf, "\nevent: "...)
		s.buf = append(s.buf, e.Name...)
		for line := range bytes.Lines(e.Data) {
			s.buf = append(s.buf, "\ndata: "...)
			s.buf = append(s.buf, bytes.TrimRight(line, "\r\n")...)
		}
		s.buf = append(s.buf, "\n\n"...)
	}
	if len(s.buf) == 0 {
		return nil
	}
	_ = s.rc.SetWriteDeadline(time.Now().Add(streamWriteTimeout)) // a writer without deadlines (httptest's recorder) streams without one
	_, err := s.w.Write(s.buf)
	if err == nil {
		err = s.rc.Flush()
	}
	s.buf = nil // an idle stream holds no buffer
	return err
}
