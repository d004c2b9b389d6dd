package analytics

import (
	"fmt"
	"net/netip"
	"path"
	"strings"
	"time"

	"github.com/folio-docs/folio/clientip"
)

// LogRequest is one request as an access log records it, before Folio's
// rules (a successful GET of a page, the client behind trusted proxies)
// make it a page view or skip it.
type LogRequest struct {
	// Method is "" when the log records page views only (Mintlify's).
	Method string
	// Status is noStatus when the log records none.
	Status int
	// Target is the request target as sent: the path, perhaps a query.
	Target string
	At     time.Time
	// Peer is the address that connected, as logged; Forwarded its
	// X-Forwarded-For, when the format logs one.
	Peer      string
	Forwarded string
	UserAgent string
	Referrer  string
	Accept    string
	// Host is the site's host the request was for, where the format logs
	// it: a referrer from it is direct.
	Host string
	// VisitorID is the log's own visitor id, used when it logs no address.
	VisitorID string
	// ID is the log's own id of the event (Mintlify's event_id): a line
	// with one is keyed by it, so a re-export re-imports nothing.
	ID string
}

// noStatus is a LogRequest's Status when the log records none.
const noStatus = -1

// LogParser reads the lines of one log file.
type LogParser interface {
	// Parse reads one line (without its line ending) into a request, or
	// says why the line is not one (a Skip* reason).
	Parse(line []byte) (LogRequest, string)
}

// LogFormat is an access-log format that --format names.
type LogFormat interface {
	Name() string
	// NewParser starts reading a file: a CloudFront parser learns the
	// file's fields from its header, auto the format from its first lines.
	NewParser() LogParser
}

// LogFormatNames are the names --format takes, for usage messages.
const LogFormatNames = "combined, common, combined-vhost, caddy, cloudfront, cloudflare, mintlify, nginx:<log_format>, auto"

// logFormats are the formats with a fixed name, in the order auto tries
// them on a file's first lines: the ones with unmistakable headers or keys
// first.
var logFormats = []LogFormat{cloudFrontFormat{}, mintlifyFormat{}, cloudflareFormat{}, caddyFormat{}, clfFormat{name: "combined", extended: true}, clfFormat{name: "combined-vhost", extended: true, vhost: true}, clfFormat{name: "common"}}

// CombinedFormat is nginx's and Apache's combined format, the default.
var CombinedFormat LogFormat = logFormats[4]

// LogFormatByName is the format --format names: one of LogFormatNames;
// nginx:<log_format> compiles that nginx log_format string.
func LogFormatByName(name string) (LogFormat, error) {
	if spec, ok := strings.CutPrefix(name, "nginx:"); ok {
		return compileNginxFormat(spec)
	}
	if name == "auto" {
		return autoFormat{}, nil
	}
	for _, f := range logFormats {
		if f.Name() == name {
			return f, nil
		}
	}
	return nil, fmt.Errorf("%q is not a log format; use one of %s", name, LogFormatNames)
}

// autoFormat finds a file's format from its first line that some format
// reads, and keeps it for the rest of the file.
type autoFormat struct{}

func (autoFormat) Name() string         { return "auto" }
func (autoFormat) NewParser() LogParser { return &autoParser{} }

type autoParser struct {
	found  LogParser
	format string
}

func (a *autoParser) Parse(line []byte) (LogRequest, string) {
	if a.found != nil {
		return a.found.Parse(line)
	}
	for _, f := range logFormats {
		p := f.NewParser()
		if r, reason := p.Parse(line); reason != SkipMalformed {
			a.found, a.format = p, f.Name()
			return r, reason
		}
	}
	return LogRequest{}, SkipMalformed
}

// Detected is the format auto found, "" before a line was read.
func (a *autoParser) Detected() string { return a.format }

// pageView applies Folio's rules to a logged request: only a successful
// GET of a page counts, its client is the first untrusted address of the
// proxies it came through, and it needs a client (an address, or the log's
// own visitor id) and a time after 1970.
func pageView(r LogRequest, trusted clientip.Trusted) (Event, string) {
	switch {
	case r.Method != "" && r.Method != "GET":
		return Event{}, SkipMethod
	case r.Status != noStatus && (r.Status < 200 || r.Status >= 300 && r.Status != 304):
		return Event{}, SkipStatus
	}
	p, err := NormalizePath(r.Target)
	if err != nil {
		return Event{}, SkipPath
	}
	if assetExts[strings.ToLower(path.Ext(p))] {
		return Event{}, SkipAsset
	}
	e := Event{Path: p, At: r.At.UTC(), UserAgent: dash(r.UserAgent), Referrer: dash(r.Referrer), Accept: dash(r.Accept), VisitorID: r.VisitorID,
		Host: dash(r.Host), UTMSource: utmSource(r.Target)}
	if peer := dash(r.Peer); peer != "" {
		a, err := netip.ParseAddr(peer)
		if err != nil {
			return Event{}, SkipMalformed
		}
		e.IP = peer // as logged, so the same line gives the same visitor
		if client, ok := trusted.Forwarded(a, dash(r.Forwarded)); ok {
			e.IP = client.String()
		}
	}
	switch {
	case e.IP == "" && e.VisitorID == "":
		return Event{}, SkipMalformed
	case e.At.Before(time.Unix(0, 0)):
		return Event{}, SkipMalformed
	}
	return e, ""
}

// dash is a logged value, "" where the log wrote "-" for none.
func dash(s string) string {
	if s == "-" {
		return ""
	}
	return s
}
