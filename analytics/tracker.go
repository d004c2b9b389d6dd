package analytics

import (
	"context"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/folio-docs/folio/metrics"
	"github.com/folio-docs/folio/model"
)

// BrowserView is a page view the tracker script reports.
type BrowserView struct {
	ProjectID string
	Path      string
	Referrer  string
	Origin    string // the page's origin, from the request's Origin header
	UserAgent string
	IP        string
	At        time.Time
}

// TrackBrowserView records a tracker page view if the page's origin is one
// of the project's allowed domains (any, when it names none) and the client
// is a person: bots and AI agents are not counted through this door. It
// says whether the view was stored. The view keeps where it came from
// (the referrer's host and channel); a referrer from the page's origin,
// as the tracker sends for a page changed in place, is direct.
func (s *Service) TrackBrowserView(ctx context.Context, v BrowserView) (bool, error) {
	p, err := s.db.ProjectByID(ctx, v.ProjectID)
	if err != nil { // model.ErrProjectNotFound for an unknown project
		return false, err
	}
	if !OriginAllowed(p.AllowedDomains, v.Origin) {
		return false, model.ErrOriginNotAllowed
	}
	path, err := NormalizePath(v.Path)
	if err != nil {
		return false, model.Invalid("path", "analytics: invalid path: "+err.Error())
	}
	var host string
	if u, err := url.Parse(v.Origin); err == nil {
		host = u.Host
	}
	if len(v.Referrer) > maxReferrerLen || !utf8.ValidString(v.Referrer) {
		v.Referrer = "" // no reason to lose the view
	}
	return s.RecordBrowser(ctx, p.ID, Event{Path: path, At: v.At, UserAgent: v.UserAgent, IP: v.IP, Referrer: v.Referrer, Host: host,
		UTMSource: utmSource(v.Path)})
}

// BrowserEvent is a search, a search result opened or feedback the
// tracker reports: the event as the events API takes it (its Type one of
// those three, no timestamp: the time is At), and who sent it.
type BrowserEvent struct {
	ProjectID string
	Event     RawEvent
	Origin    string
	UserAgent string
	IP        string
	At        time.Time
}

// TrackBrowserEvent records a tracker's search, search click or feedback
// under the rules of a tracker's page view: a page of the project's
// allowed domains, a person's browser (bots and AI agents are not
// recorded through this door; feedback of source agent comes through the
// events API). It says whether the event was stored; a bad field is
// model.FieldErrors, named as the tracker names it.
func (s *Service) TrackBrowserEvent(ctx context.Context, e BrowserEvent) (bool, error) {
	p, err := s.db.ProjectByID(ctx, e.ProjectID)
	if err != nil {
		return false, err
	}
	if !OriginAllowed(p.AllowedDomains, e.Origin) {
		return false, model.ErrOriginNotAllowed
	}
	raw := e.Event
	raw.Timestamp = e.At.UTC().Format(time.RFC3339Nano)
	var events Events
	var problems model.FieldErrors
	switch raw.Type {
	case TypeSearch, TypeSearchClick, TypeFeedback:
		parseEvent(&events, raw, e.At, func(name, format string, args ...any) { problems.Add(name, format, args...) })
	default:
		problems.Add("type", "The tracker reports events of type %s, %s and %s here; a page view has no type.", TypeSearch, TypeSearchClick, TypeFeedback)
	}
	if len(events.Feedback) == 1 && events.Feedback[0].Source == model.FeedbackAgent {
		problems.Add("source", "Feedback of source agent comes through the events API, not the browser tracker.")
	}
	if problems != nil {
		return false, problems
	}
	if s.cls.Classify(Input{UserAgent: e.UserAgent}) != Human {
		return false, nil
	}
	n, _, err := s.record(ctx, p.ID, nil, interactionsOf(events), nil, metrics.SourceTracker)
	return n == 1, err
}

// allowedHost is one entry of a project's allowed domains as a host or a
// "*.host" pattern: lower case, without a scheme, path or port.
func allowedHost(d string) string {
	d = strings.ToLower(strings.TrimSpace(d))
	if i := strings.Index(d, "://"); i >= 0 {
		d = d[i+3:]
	}
	d, _, _ = strings.Cut(d, "/")
	if h, _, ok := strings.Cut(d, ":"); ok {
		d = h
	}
	return d
}

// OriginAllowed says whether a page at origin may report views for a project
// whose allowed domains (comma-separated hosts, "*.example.com" for
// subdomains) are given; an empty list allows any origin.
func OriginAllowed(allowedDomains, origin string) bool {
	if strings.TrimSpace(allowedDomains) == "" {
		return true
	}
	u, err := url.Parse(origin)
	if err != nil || u.Hostname() == "" {
		return false
	}
	host := strings.ToLower(u.Hostname())
	for _, d := range strings.Split(allowedDomains, ",") {
		d = allowedHost(d)
		switch {
		case d == "":
		case strings.HasPrefix(d, "*."):
			if strings.HasSuffix(host, d[1:]) {
				return true
			}
		case host == d:
			return true
		}
	}
	return false
}
