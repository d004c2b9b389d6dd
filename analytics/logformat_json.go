package analytics

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"time"
)

// caddyFormat is Caddy's default JSON access log: one object a line, the
// request under "request" with its headers as Go's http.Header writes them,
// "ts" in seconds since 1970 (or a time string with a time_format set).
type caddyFormat struct{}

func (caddyFormat) Name() string         { return "caddy" }
func (caddyFormat) NewParser() LogParser { return caddyFormat{} }

type caddyLine struct {
	Logger  string          `json:"logger"`
	TS      json.RawMessage `json:"ts"`
	Status  *int            `json:"status"`
	Request *struct {
		RemoteIP string              `json:"remote_ip"`
		ClientIP string              `json:"client_ip"`
		Method   string              `json:"method"`
		Host     string              `json:"host"`
		URI      string              `json:"uri"`
		Headers  map[string][]string `json:"headers"`
	} `json:"request"`
}

func (caddyFormat) Parse(line []byte) (LogRequest, string) {
	var c caddyLine
	if !jsonObject(line, &c) || c.TS == nil {
		return LogRequest{}, SkipMalformed
	}
	if c.Request == nil {
		if c.Logger != "" {
			return LogRequest{}, SkipEvent // another of Caddy's loggers
		}
		return LogRequest{}, SkipMalformed
	}
	at, ok := jsonTime(c.TS)
	if !ok || c.Request.URI == "" || c.Status == nil {
		return LogRequest{}, SkipMalformed
	}
	h := func(name string) string {
		for k, v := range c.Request.Headers {
			if strings.EqualFold(k, name) && len(v) > 0 {
				return strings.Join(v, ", ")
			}
		}
		return ""
	}
	// client_ip is Caddy's own answer behind its trusted_proxies.
	peer := c.Request.ClientIP
	if peer == "" {
		peer = c.Request.RemoteIP
	}
	return LogRequest{
		Method: c.Request.Method, Status: *c.Status, Target: c.Request.URI, At: at, Peer: peer,
		Forwarded: h("X-Forwarded-For"), UserAgent: h("User-Agent"), Referrer: h("Referer"), Accept: h("Accept"),
		Host: c.Request.Host,
	}, ""
}

// cloudflareFormat is a Cloudflare Logpush http_requests job's NDJSON:
// EdgeStartTimestamp in any of its timestamp formats (unixnano, the
// default; unix; rfc3339), RequestHeaders when the zone logs custom
// request headers (accept, x-forwarded-for), and RayID, when the job sends
// it, as the request's id (the drain keys it so too).
type cloudflareFormat struct{}

func (cloudflareFormat) Name() string         { return "cloudflare" }
func (cloudflareFormat) NewParser() LogParser { return cloudflareFormat{} }

type cloudflareLine struct {
	ClientIP               string            `json:"ClientIP"`
	ClientRequestMethod    string            `json:"ClientRequestMethod"`
	ClientRequestHost      string            `json:"ClientRequestHost"`
	ClientRequestURI       string            `json:"ClientRequestURI"`
	ClientRequestPath      string            `json:"ClientRequestPath"`
	ClientRequestUserAgent string            `json:"ClientRequestUserAgent"`
	ClientRequestReferer   string            `json:"ClientRequestReferer"`
	EdgeResponseStatus     *int              `json:"EdgeResponseStatus"`
	EdgeStartTimestamp     json.RawMessage   `json:"EdgeStartTimestamp"`
	WorkerSubrequest       bool              `json:"WorkerSubrequest"`
	RayID                  string            `json:"RayID"`
	RequestHeaders         map[string]string `json:"RequestHeaders"`
}

func (cloudflareFormat) Parse(line []byte) (LogRequest, string) {
	var c cloudflareLine
	if !jsonObject(line, &c) {
		return LogRequest{}, SkipMalformed
	}
	target := c.ClientRequestURI
	if target == "" {
		target = c.ClientRequestPath
	}
	at, ok := jsonTime(c.EdgeStartTimestamp)
	if !ok || target == "" || c.ClientIP == "" {
		return LogRequest{}, SkipMalformed
	}
	if c.WorkerSubrequest {
		return LogRequest{}, SkipEvent // a Worker's own fetch, not a reader's
	}
	r := LogRequest{Method: c.ClientRequestMethod, Status: noStatus, Target: target, At: at, Peer: c.ClientIP,
		UserAgent: c.ClientRequestUserAgent, Referrer: c.ClientRequestReferer, Host: c.ClientRequestHost, ID: c.RayID}
	if c.EdgeResponseStatus != nil {
		r.Status = *c.EdgeResponseStatus
	}
	for k, v := range c.RequestHeaders {
		switch strings.ToLower(k) {
		case "accept":
			r.Accept = v
		case "x-forwarded-for":
			r.Forwarded = v
		}
	}
	return r, ""
}

// mintlifyFormat is Mintlify's analytics stream (JSONL in S3): an envelope
// {"eventType", "payload"} a line, the payload an object or a JSON string;
// docs.content.view events are page views, keyed by their event_id.
type mintlifyFormat struct{}

func (mintlifyFormat) Name() string         { return "mintlify" }
func (mintlifyFormat) NewParser() LogParser { return mintlifyFormat{} }

// mintlifyPageView is the event type of a page view.
const mintlifyPageView = "docs.content.view"

type mintlifyPayload struct {
	EventID   string `json:"event_id"`
	AnonID    string `json:"anon_id"`
	CreatedAt string `json:"created_at"`
	Event     string `json:"event"`
	Path      string `json:"path"`
	Referrer  string `json:"referrer"`
	UserAgent string `json:"user_agent"`
	IP        string `json:"ip"`
}

func (mintlifyFormat) Parse(line []byte) (LogRequest, string) {
	var env struct {
		EventType string          `json:"eventType"`
		Payload   json.RawMessage `json:"payload"`
	}
	if !jsonObject(line, &env) {
		return LogRequest{}, SkipMalformed
	}
	var p mintlifyPayload
	raw := env.Payload
	if raw == nil {
		raw = line // a bare payload, as a warehouse export has it
	} else if raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return LogRequest{}, SkipMalformed
		}
		raw = []byte(s)
	}
	if !jsonObject(raw, &p) {
		return LogRequest{}, SkipMalformed
	}
	event := env.EventType
	if event == "" {
		event = p.Event
	}
	switch {
	case event == "" || p.EventID == "":
		return LogRequest{}, SkipMalformed
	case event != mintlifyPageView:
		return LogRequest{}, SkipEvent
	}
	at, err := time.Parse(time.RFC3339Nano, p.CreatedAt)
	if err != nil || p.Path == "" {
		return LogRequest{}, SkipMalformed
	}
	return LogRequest{Status: noStatus, Target: p.Path, At: at, Peer: p.IP, UserAgent: p.UserAgent, Referrer: p.Referrer,
		VisitorID: p.AnonID, ID: p.EventID}, ""
}

// jsonObject decodes a line that holds one JSON object into v.
func jsonObject(line []byte, v any) bool {
	line = bytes.TrimSpace(line)
	return len(line) > 0 && line[0] == '{' && json.Unmarshal(line, v) == nil
}

// jsonTime reads a logged time: seconds, milliseconds, microseconds or
// nanoseconds since 1970 as a number (told apart by their size, as no
// docs site was read before 1973 or after 5138), or an RFC 3339 string.
func jsonTime(raw json.RawMessage) (time.Time, bool) {
	if len(raw) == 0 || string(raw) == "null" {
		return time.Time{}, false
	}
	var s string
	if raw[0] == '"' {
		if json.Unmarshal(raw, &s) != nil {
			return time.Time{}, false
		}
		if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
			return t, true
		}
	} else {
		s = string(raw)
	}
	if strings.ContainsAny(s, ".eE") {
		f, err := strconv.ParseFloat(s, 64)
		if err != nil || f < 1e8 || f >= 1e11 {
			return time.Time{}, false
		}
		t, err := unixSeconds(strconv.FormatFloat(f, 'f', 6, 64))
		return t, err == nil
	}
	n, err := strconv.ParseInt(s, 10, 64)
	switch {
	case err != nil || n < 1e8:
		return time.Time{}, false
	case n < 1e11:
		return time.Unix(n, 0), true
	case n < 1e14:
		return time.UnixMilli(n), true
	case n < 1e17:
		return time.UnixMicro(n), true
	default:
		return time.Unix(0, n), true
	}
}
