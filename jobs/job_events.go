package jobs

import (
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"
	"time"

	"github.com/folio-docs/folio/model"
)

// The events of a job's stream (GET .../job/{id}/events).
const (
	EventJob     = "job"     // the job as GET job shows it
	EventMessage = "message" // one entry of the conversation, as GET .../messages shows it
)

// Event is one server-sent event of a job's stream. Data is one line of JSON.
type Event struct {
	ID   EventCursor
	Name string
	Data []byte
}

// EventCursor is how far a client has followed a job's stream: the last
// message it received, by the order messages were recorded, and a digest
// of the job as it last received it. Every event's id is the cursor just
// after it, so a client that reconnects with Last-Event-ID gets what it
// missed and nothing twice. The zero cursor is a client that has nothing.
type EventCursor struct {
	Message int64  // the id of the last message received
	Job     uint64 // the digest of the job last received (jobDigest); 0 for none
}

// String is the cursor as an event id: "<message>-<job digest in hex>".
func (c EventCursor) String() string {
	return strconv.FormatInt(c.Message, 10) + "-" + strconv.FormatUint(c.Job, 16)
}

// ParseEventCursor reads an event id; ok is false for anything that is not
// one (the stream then starts from the beginning).
func ParseEventCursor(s string) (c EventCursor, ok bool) {
	msg, job, found := strings.Cut(s, "-")
	if !found {
		return EventCursor{}, false
	}
	m, err1 := strconv.ParseInt(msg, 10, 64)
	j, err2 := strconv.ParseUint(job, 16, 64)
	if err1 != nil || err2 != nil || m < 0 {
		return EventCursor{}, false
	}
	return EventCursor{Message: m, Job: j}, true
}

// jobDigest sums what a job event is sent for: everything the job shows
// but its usage and updatedAt, which change with every model call and
// every pickup. A change of status, prLink, error, archivedAt (or of any
// field the view gains) changes it.
func jobDigest(v Job) uint64 {
	// The source never changes in a job's life; CursorOf knows no URL of it.
	v.Usage, v.UpdatedAt, v.Source = Usage{}, time.Time{}, Source{}
	b, _ := json.Marshal(v) // a Job always encodes
	h := fnv.New64a()
	_, _ = h.Write(b)        // a hash's Write never fails
	return max(h.Sum64(), 1) // 0 means "none sent"
}

// CursorOf is where a client that shows j and its conversation ms (the
// job page) stands in the job's stream.
func CursorOf(j model.Job, ms []Message) EventCursor {
	c := EventCursor{Job: jobDigest(view(j, ""))}
	for _, m := range ms {
		c.Message = max(c.Message, m.ID)
	}
	return c
}

// Events is what a client at cursor after has not seen of a job: the job,
// if it changed, and each message recorded since, in that order. With
// connecting (a new or resumed stream) the job comes first, so a client
// knows at once where the job stands; otherwise it comes last, so the
// messages recorded before a change of status are sent before it. The
// job is read before the messages, so every message recorded before the
// state sent is among them. It returns the cursor after the events.
func (s *Service) Events(ctx context.Context, projectID, id string, after EventCursor, connecting bool) ([]Event, EventCursor, error) {
	j, err := s.db.JobByID(ctx, projectID, id)
	if err != nil {
		return nil, after, err
	}
	ms, err := s.db.JobMessagesAfter(ctx, j.ID, after.Message)
	if err != nil {
		return nil, after, err
	}
	evs := make([]Event, 0, len(ms)+1)
	cur := after
	view := s.View(j)
	digest := jobDigest(view)
	data, err := json.Marshal(view)
	if err != nil {
		return nil, after, fmt.Errorf("jobs: unable to encode job %s: %w", j.ID, err)
	}
	addJob := func() {
		if digest != after.Job {
			cur.Job = digest
			evs = append(evs, Event{ID: cur, Name: EventJob, Data: data})
		}
	}
	if connecting {
		addJob()
	}
	for _, m := range ms {
		data, err := json.Marshal(messageView(j, m))
		if err != nil {
			return nil, after, fmt.Errorf("jobs: unable to encode a message of job %s: %w", j.ID, err)
		}
		cur.Message = m.ID
		evs = append(evs, Event{ID: cur, Name: EventMessage, Data: data})
	}
	if !connecting {
		addJob()
	}
	return evs, cur, nil
}

// Watch is a stream's interest in a job's changes, through this process's Hub.
func (s *Service) Watch(ctx context.Context, jobID string) *Watch { return s.hub.Watch(ctx, jobID) }

// EndStreams ends every event stream of this process (serve is shutting
// down) and the hub's subscription.
func (s *Service) EndStreams() { s.hub.Close() }
