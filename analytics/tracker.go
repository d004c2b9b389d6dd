package analytics

import (
	"context"
	"net/url"
	"strings"
	"time"

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
// says whether the view was stored. The referrer is checked but not kept:
// no export reports it yet.
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
	return s.RecordBrowser(ctx, p.ID, Event{Path: path, At: v.At, UserAgent: v.UserAgent, IP: v.IP})
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
		d = strings.ToLower(strings.TrimSpace(d))
		if i := strings.Index(d, "://"); i >= 0 {
			d = d[i+3:]
		}
		d, _, _ = strings.Cut(d, "/")
		if h, _, ok := strings.Cut(d, ":"); ok {
			d = h
		}
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
