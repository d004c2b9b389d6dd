package analytics

import (
	"context"
	"fmt"
	"hash"
	"net/netip"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/folio-docs/folio/metrics"
	"github.com/folio-docs/folio/model"
)

// MaxBatch is the most events one events-API request may carry (CONTRACT §3).
const MaxBatch = 1000

// Event is one page view to record.
type Event struct {
	Path      string
	At        time.Time
	UserAgent string
	IP        string
	VisitorID string
	Accept    string
	// Referrer is the page the reader came from, where the door has it;
	// nothing stores it yet (issue 24 adds its storage and channels).
	Referrer string
	// LineHash names the log line an imported view came from, so a line
	// imported twice is stored once.
	LineHash []byte
}

// RawEvent is an event as the events API receives it.
type RawEvent struct {
	Path      string `json:"path"`
	Timestamp string `json:"timestamp"`
	UserAgent string `json:"userAgent"`
	IP        string `json:"ip"`
	VisitorID string `json:"visitorId,omitempty"`
	// Accept is the request's Accept header, when the host has it: it tells
	// an agent asking for Markdown (additive to the contract's fields).
	Accept string `json:"accept,omitempty"`
	// Referrer is the page that linked to this one (CONTRACT §3): checked,
	// not stored yet.
	Referrer string `json:"referrer,omitempty"`
}

// Raw is the event as the events API takes it.
func (e Event) Raw() RawEvent {
	return RawEvent{Path: e.Path, Timestamp: e.At.UTC().Format(time.RFC3339Nano), UserAgent: e.UserAgent, IP: e.IP, VisitorID: e.VisitorID, Accept: e.Accept, Referrer: e.Referrer}
}

// Limits on an event's fields.
const (
	maxPathLen      = 2048
	maxUserAgentLen = 1024
	maxVisitorIDLen = 256
	maxReferrerLen  = 2048
	maxFuture       = 5 * time.Minute
)

// ParseEvents validates a batch whole: either every event is good and they
// are returned, or the problems name each bad field (events[3].timestamp).
func ParseEvents(raw []RawEvent, now time.Time) ([]Event, model.FieldErrors) {
	switch {
	case len(raw) == 0:
		return nil, model.Invalid("events", "At least one event is required.")
	case len(raw) > MaxBatch:
		return nil, model.Invalid("events", fmt.Sprintf("At most %d events are accepted a request; got %d.", MaxBatch, len(raw)))
	}
	var problems model.FieldErrors
	events := make([]Event, len(raw))
	for i, r := range raw {
		field := func(name, format string, args ...any) {
			problems.Add(fmt.Sprintf("events[%d].%s", i, name), format, args...)
		}
		path, msg := normalizePath(r.Path)
		if msg != "" {
			field("path", "%s", msg)
		}
		at, err := time.Parse(time.RFC3339Nano, r.Timestamp)
		switch {
		case r.Timestamp == "":
			field("timestamp", "The timestamp is required (RFC 3339, e.g. 2026-01-02T15:04:05Z).")
		case err != nil:
			field("timestamp", "The timestamp %q is not an RFC 3339 date-time (e.g. 2026-01-02T15:04:05Z).", r.Timestamp)
		case at.Before(time.Unix(0, 0)):
			field("timestamp", "The timestamp is before 1970.")
		case at.After(now.Add(maxFuture)):
			field("timestamp", "The timestamp is in the future.")
		}
		switch {
		case strings.TrimSpace(r.UserAgent) == "":
			field("userAgent", "The user agent is required.")
		case len(r.UserAgent) > maxUserAgentLen || !utf8.ValidString(r.UserAgent):
			field("userAgent", "The user agent must be valid UTF-8 of at most %d bytes.", maxUserAgentLen)
		}
		switch {
		case r.IP == "" && r.VisitorID == "":
			field("ip", "The IP address is required when no visitorId is given.")
		case r.IP != "":
			if _, err := netip.ParseAddr(r.IP); err != nil {
				field("ip", "%q is not an IP address.", r.IP)
			}
		}
		if len(r.VisitorID) > maxVisitorIDLen {
			field("visitorId", "The visitorId is longer than %d bytes.", maxVisitorIDLen)
		}
		if len(r.Accept) > maxUserAgentLen {
			field("accept", "The accept header is longer than %d bytes.", maxUserAgentLen)
		}
		if len(r.Referrer) > maxReferrerLen || !utf8.ValidString(r.Referrer) {
			field("referrer", "The referrer must be valid UTF-8 of at most %d bytes.", maxReferrerLen)
		}
		events[i] = Event{Path: path, At: at, UserAgent: r.UserAgent, IP: r.IP, VisitorID: r.VisitorID, Accept: r.Accept, Referrer: r.Referrer}
	}
	if problems != nil {
		return nil, problems
	}
	return events, nil
}

// normalizePath checks a page path and drops its query and fragment, which
// are not part of the page; it returns a message when the path is unusable.
func normalizePath(p string) (string, string) {
	if i := strings.IndexAny(p, "?#"); i >= 0 {
		p = p[:i]
	}
	switch {
	case p == "":
		return "", "The path is required and must start with /."
	case !strings.HasPrefix(p, "/"):
		return "", fmt.Sprintf("The path %q must start with /.", p)
	case len(p) > maxPathLen:
		return "", fmt.Sprintf("The path is longer than %d bytes.", maxPathLen)
	case !utf8.ValidString(p) || strings.ContainsFunc(p, func(r rune) bool { return r < 0x20 || r == 0x7f }):
		return "", "The path must be printable UTF-8."
	}
	return p, ""
}

// Record classifies and stores events for a project and returns how many
// were stored (a log line imported before is not stored again).
func (s *Service) Record(ctx context.Context, projectID string, events []Event) (int, error) {
	n, _, err := s.RecordBatch(ctx, projectID, events, nil)
	return n, err
}

// Batch names an events-API batch by its Idempotency-Key and a hash of the
// request body.
type Batch struct {
	Key      string
	BodyHash []byte
}

// RecordBatch is Record for a batch that may carry an Idempotency-Key
// (batch nil: none): the same key with the same body within 24 hours stores
// nothing and returns the first answer (replayed), another body is
// model.ErrIdempotencyConflict.
func (s *Service) RecordBatch(ctx context.Context, projectID string, events []Event, batch *Batch) (stored int, replayed bool, err error) {
	return s.record(ctx, projectID, events, batch, metrics.SourceEvents)
}

// record is RecordBatch for events that came in through source (metrics'
// label: events, tracker, import).
func (s *Service) record(ctx context.Context, projectID string, events []Event, batch *Batch, source string) (stored int, replayed bool, err error) {
	if len(events) == 0 {
		return 0, false, nil
	}
	st, err := s.site(ctx, projectID, true)
	if err != nil {
		return 0, false, err
	}
	views := make([]model.NewPageView, len(events))
	// A batch repeats few user agents: each is matched against the lists once.
	verdicts := map[string]uaVerdict{}
	macs := map[int64]hash.Hash{}
	for i, e := range events {
		vid, err := s.visitorID(ctx, projectID, e, macs)
		if err != nil {
			return 0, false, err
		}
		verdict, ok := verdicts[e.UserAgent]
		if !ok {
			verdict = s.cls.byUserAgent(e.UserAgent)
			verdicts[e.UserAgent] = verdict
		}
		class, agent := verdict.classAgent(Input{UserAgent: e.UserAgent, Path: e.Path, Accept: e.Accept})
		views[i] = model.NewPageView{At: e.At.UnixMilli(), Path: e.Path, VisitorID: vid, Class: uint8(class), LineHash: e.LineHash,
			Agent: model.ViewAgent(agent)}
	}
	var eb *model.EventBatch
	if batch != nil {
		eb = &model.EventBatch{Key: batch.Key, BodyHash: batch.BodyHash}
	}
	n, replayed, err := s.db.StorePageViews(ctx, st.id, views, eb)
	if err == nil && !replayed {
		countIngested(views, n, source)
	}
	return n, replayed, err
}

// RecordBrowser stores a page view reported by the browser tracker, unless
// its client is a bot or an AI agent (which do not count through this door).
// It says whether the view was stored.
func (s *Service) RecordBrowser(ctx context.Context, projectID string, e Event) (bool, error) {
	if s.cls.Classify(Input{UserAgent: e.UserAgent, Path: e.Path, Accept: e.Accept}) != Human {
		return false, nil
	}
	n, _, err := s.record(ctx, projectID, []Event{e}, nil, metrics.SourceTracker)
	return n == 1, err
}

// NormalizePath is the path rule of every way in: it drops the query and
// fragment and says what is wrong with an unusable path.
func NormalizePath(p string) (string, error) {
	p, msg := normalizePath(p)
	if msg != "" {
		return "", fmt.Errorf("%s", msg)
	}
	return p, nil
}
