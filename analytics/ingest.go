package analytics

import (
	"context"
	"fmt"
	"hash"
	"net/netip"
	"slices"
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
	// Referrer is the page the reader came from, where the door has it:
	// the view keeps its host and channel (see ReferrerClassifier).
	Referrer string
	// Host is the page's own host, where the door knows it (the tracker's
	// Origin, a log's virtual host): a referrer from it is direct.
	Host string
	// UTMSource is the page URL's utm_source, where the door has the query
	// (ChatGPT marks its links so, and often sends no referrer).
	UTMSource string
	// LineHash names the log line an imported view came from, so a line
	// imported twice is stored once.
	LineHash []byte
}

// RawEvent is an event as the events API receives it: a page view (type
// "view" or none) or, with its own fields, a search, a search result
// opened (searchClick) or feedback (CONTRACT §3).
type RawEvent struct {
	Type      string `json:"type,omitempty"`
	Path      string `json:"path,omitempty"`
	Timestamp string `json:"timestamp"`
	UserAgent string `json:"userAgent,omitempty"`
	IP        string `json:"ip,omitempty"`
	VisitorID string `json:"visitorId,omitempty"`
	// Accept is the request's Accept header, when the host has it: it tells
	// an agent asking for Markdown (additive to the contract's fields).
	Accept string `json:"accept,omitempty"`
	// Referrer is the page that linked to this one (CONTRACT §3): the view
	// keeps its host and channel, never its path or query.
	Referrer string `json:"referrer,omitempty"`

	EventDetail
}

// EventDetail is the fields a search, a search result opened and feedback
// add to an event (CONTRACT §3), the same in the events API and in what the
// browser tracker posts to /api/event.
type EventDetail struct {
	// A search's and a searchClick's term; a search's result count.
	Query string `json:"query,omitempty"`
	Hits  *int64 `json:"hits,omitempty"`
	// Feedback's fields (see parseFeedback).
	Helpful  *bool  `json:"helpful,omitempty"`
	Comment  string `json:"comment,omitempty"`
	Contact  string `json:"contact,omitempty"`
	Source   string `json:"source,omitempty"`
	Code     string `json:"code,omitempty"`
	Filename string `json:"filename,omitempty"`
	Lang     string `json:"lang,omitempty"`
}

// Event types of the events API; a view's may be left out.
const (
	TypeView        = "view"
	TypeSearch      = "search"
	TypeSearchClick = "searchClick"
	TypeFeedback    = "feedback"
)

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

// Events is a batch of the events API by type, each in the order sent.
type Events struct {
	Views    []Event
	Searches []SiteSearch
	Clicks   []SearchClick
	Feedback []model.Feedback
}

// Len is how many events the batch holds.
func (e Events) Len() int {
	return len(e.Views) + len(e.Searches) + len(e.Clicks) + len(e.Feedback)
}

// ParseEvents validates a batch whole: either every event is good and they
// are returned, or the problems name each bad field (events[3].timestamp).
func ParseEvents(raw []RawEvent, now time.Time) (Events, model.FieldErrors) {
	switch {
	case len(raw) == 0:
		return Events{}, model.Invalid("events", "At least one event is required.")
	case len(raw) > MaxBatch:
		return Events{}, model.Invalid("events", fmt.Sprintf("At most %d events are accepted a request; got %d.", MaxBatch, len(raw)))
	}
	var problems model.FieldErrors
	events := Events{Views: make([]Event, 0, len(raw))}
	for i, r := range raw {
		field := func(name, format string, args ...any) {
			problems.Add(fmt.Sprintf("events[%d].%s", i, name), format, args...)
		}
		parseEvent(&events, r, now, field)
	}
	if problems != nil {
		return Events{}, problems
	}
	return events, nil
}

// parseEvent checks one event and adds it to events, or says through
// field what is wrong with each of its fields.
func parseEvent(events *Events, r RawEvent, now time.Time, field func(name, format string, args ...any)) {
	if r.Type == "" || r.Type == TypeView {
		if r.hasInteractionFields() {
			refuseFields(r, TypeView, field)
		}
		if e, ok := parseView(r, now, field); ok {
			events.Views = append(events.Views, e)
		}
		return
	}
	at := parseTimestamp(r.Timestamp, now, field)
	switch r.Type {
	case TypeSearch:
		refuseFields(r, TypeSearch, field)
		if s, ok := parseSearch(r, at, field); ok {
			events.Searches = append(events.Searches, s)
		}
	case TypeSearchClick:
		refuseFields(r, TypeSearchClick, field)
		if c, ok := parseSearchClick(r, at, field); ok {
			events.Clicks = append(events.Clicks, c)
		}
	case TypeFeedback:
		refuseFields(r, TypeFeedback, field)
		if f, ok := parseFeedback(r, at, field); ok {
			events.Feedback = append(events.Feedback, f)
		}
	default:
		field("type", "Unknown event type %q; the types are %s, %s, %s and %s.", r.Type, TypeView, TypeSearch, TypeSearchClick, TypeFeedback)
	}
}

// parseTimestamp reads an event's time; the zero time when it is wrong.
func parseTimestamp(ts string, now time.Time, field func(name, format string, args ...any)) time.Time {
	at, err := time.Parse(time.RFC3339Nano, ts)
	switch {
	case ts == "":
		field("timestamp", "The timestamp is required (RFC 3339, e.g. 2026-01-02T15:04:05Z).")
	case err != nil:
		field("timestamp", "The timestamp %q is not an RFC 3339 date-time (e.g. 2026-01-02T15:04:05Z).", ts)
	case at.Before(time.Unix(0, 0)):
		field("timestamp", "The timestamp is before 1970.")
	case at.After(now.Add(maxFuture)):
		field("timestamp", "The timestamp is in the future.")
	default:
		return at
	}
	return time.Time{}
}

// parseView checks a page view's fields.
func parseView(r RawEvent, now time.Time, field func(name, format string, args ...any)) (Event, bool) {
	ok := true
	bad := func(name, format string, args ...any) {
		ok = false
		field(name, format, args...)
	}
	path, msg := normalizePath(r.Path)
	if msg != "" {
		bad("path", "%s", msg)
	}
	at := parseTimestamp(r.Timestamp, now, bad)
	switch {
	case strings.TrimSpace(r.UserAgent) == "":
		bad("userAgent", "The user agent is required.")
	case len(r.UserAgent) > maxUserAgentLen || !utf8.ValidString(r.UserAgent):
		bad("userAgent", "The user agent must be valid UTF-8 of at most %d bytes.", maxUserAgentLen)
	}
	switch {
	case r.IP == "" && r.VisitorID == "":
		bad("ip", "The IP address is required when no visitorId is given.")
	case r.IP != "":
		if _, err := netip.ParseAddr(r.IP); err != nil {
			bad("ip", "%q is not an IP address.", r.IP)
		}
	}
	if len(r.VisitorID) > maxVisitorIDLen {
		bad("visitorId", "The visitorId is longer than %d bytes.", maxVisitorIDLen)
	}
	if len(r.Accept) > maxUserAgentLen {
		bad("accept", "The accept header is longer than %d bytes.", maxUserAgentLen)
	}
	if len(r.Referrer) > maxReferrerLen || !utf8.ValidString(r.Referrer) {
		bad("referrer", "The referrer must be valid UTF-8 of at most %d bytes.", maxReferrerLen)
	}
	return Event{Path: path, At: at, UserAgent: r.UserAgent, IP: r.IP, VisitorID: r.VisitorID, Accept: r.Accept, Referrer: r.Referrer,
		UTMSource: utmSource(r.Path)}, ok
}

// eventFields are the fields each type of event takes, beside type and
// timestamp.
var eventFields = map[string][]string{
	TypeView:        {"path", "userAgent", "ip", "visitorId", "accept", "referrer"},
	TypeSearch:      {"query", "hits"},
	TypeSearchClick: {"query", "path"},
	TypeFeedback:    {"path", "helpful", "comment", "contact", "source", "code", "filename", "lang"},
}

// hasInteractionFields says whether a view carries a field only the other
// types take (the usual view has none: checked without a map).
func (r RawEvent) hasInteractionFields() bool {
	return r.Query != "" || r.Hits != nil || r.Helpful != nil || r.Comment != "" || r.Contact != "" ||
		r.Source != "" || r.Code != "" || r.Filename != "" || r.Lang != ""
}

// refuseFields names each field the event carries that its type does not
// take, so a search sent with a view's fields is not stored as if whole.
func refuseFields(r RawEvent, typ string, field func(name, format string, args ...any)) {
	given := []struct {
		name string
		set  bool
	}{
		{"path", r.Path != ""}, {"userAgent", r.UserAgent != ""}, {"ip", r.IP != ""}, {"visitorId", r.VisitorID != ""},
		{"accept", r.Accept != ""}, {"referrer", r.Referrer != ""}, {"query", r.Query != ""}, {"hits", r.Hits != nil},
		{"helpful", r.Helpful != nil}, {"comment", r.Comment != ""}, {"contact", r.Contact != ""}, {"source", r.Source != ""},
		{"code", r.Code != ""}, {"filename", r.Filename != ""}, {"lang", r.Lang != ""},
	}
	for _, g := range given {
		if g.set && !slices.Contains(eventFields[typ], g.name) {
			field(g.name, "A %s event takes no %s; its fields are type, timestamp, %s.", typ, g.name, strings.Join(eventFields[typ], ", "))
		}
	}
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
	return s.RecordEvents(ctx, projectID, Events{Views: events}, batch)
}

// RecordEvents is RecordBatch for a batch of the events API, whose
// searches and feedback are stored with its views, in one transaction.
func (s *Service) RecordEvents(ctx context.Context, projectID string, events Events, batch *Batch) (stored int, replayed bool, err error) {
	return s.record(ctx, projectID, events.Views, interactionsOf(events), batch, metrics.SourceEvents)
}

// interactionsOf is what the events are besides views, as stored (nil:
// nothing); each feedback gets its id.
func interactionsOf(events Events) *model.Interactions {
	if len(events.Searches)+len(events.Clicks)+len(events.Feedback) == 0 {
		return nil
	}
	in := &model.Interactions{Feedback: make([]model.Feedback, len(events.Feedback))}
	for _, e := range events.Searches {
		in.Searches = append(in.Searches, model.NewSearch{At: e.At.UnixMilli(), Query: e.Query, Results: e.Results})
	}
	for _, e := range events.Clicks {
		in.Clicks = append(in.Clicks, model.NewSearchClick{At: e.At.UnixMilli(), Query: e.Query, Path: e.Path})
	}
	for i, f := range events.Feedback {
		f.ID = model.NewID()
		in.Feedback[i] = f
	}
	return in
}

// record is RecordEvents for views and interactions (more, may be nil)
// that came in through source (metrics' label: events, tracker, import).
func (s *Service) record(ctx context.Context, projectID string, events []Event, more *model.Interactions, batch *Batch, source string) (stored int, replayed bool, err error) {
	if len(events)+more.Len() == 0 {
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
	referrals := s.referrals(projectID)
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
		referral, err := referrals.of(ctx, e)
		if err != nil {
			return 0, false, err
		}
		views[i] = model.NewPageView{At: e.At.UnixMilli(), Path: e.Path, VisitorID: vid, Class: uint8(class), LineHash: e.LineHash,
			Agent: model.ViewAgent(agent), Referral: referral}
	}
	var eb *model.EventBatch
	if batch != nil {
		eb = &model.EventBatch{Key: batch.Key, BodyHash: batch.BodyHash}
	}
	n, replayed, err := s.db.StorePageViews(ctx, st.id, views, more, eb)
	if err == nil && !replayed {
		countIngested(views, n-more.Len(), source)
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
	n, _, err := s.record(ctx, projectID, []Event{e}, nil, nil, metrics.SourceTracker)
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
