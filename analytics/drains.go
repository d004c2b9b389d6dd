package analytics

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/hmac"
	"crypto/sha1" // #nosec G505 -- Vercel signs its drains with HMAC-SHA1; this checks what Vercel sends
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"strings"
	"time"

	"github.com/folio-docs/folio/metrics"
	"github.com/folio-docs/folio/model"
)

// The hosting platforms whose request logs a drain accepts (CONTRACT §3,
// "Ingest", 4): POST /v1/analytics/{projectId}/drains/{provider}.
const (
	DrainVercel     = "vercel"
	DrainNetlify    = "netlify"
	DrainCloudflare = "cloudflare"
)

// DrainProviders are the drains, in the order the README and the dashboard
// list them.
var DrainProviders = []string{DrainVercel, DrainNetlify, DrainCloudflare}

// The limits of one drain delivery, above what the providers send: Vercel
// batches a few MB, Netlify less; a Logpush job is told to batch at most
// 5 MB uncompressed (max_upload_bytes' minimum) and 100,000 records (its
// default max_upload_records). A delivery over any of them is refused
// whole (413), so the provider's retry cannot half-store it.
const (
	MaxDrainBody    = 8 << 20  // bytes as sent, compressed or not
	MaxDrainDecoded = 64 << 20 // bytes once gunzipped
	MaxDrainEntries = 100_000  // log entries, requests or not
)

// Reasons a drain entry is not stored, beside those of an access log line
// (an entry that is not a request is SkipEvent).
const (
	SkipNoClient = "no user agent or client address"
	SkipTime     = "no usable time"
)

// drainSyntax refuses a delivery that is not the provider's JSON, NDJSON
// or gzip of either (entry: the 1-based NDJSON line or array element at
// fault; 0, the body): nothing of it is stored.
func drainSyntax(entry int, format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	if entry > 0 {
		msg = fmt.Sprintf("Entry %d of the delivery is not JSON: %s.", entry, msg)
	} else {
		msg = fmt.Sprintf("The delivery is not JSON, NDJSON or a gzip of either: %s.", msg)
	}
	return model.Invalid("", msg+" Nothing of it was stored.")
}

// DrainResult says what became of a delivery's entries.
type DrainResult struct {
	// Accepted counts its page views that are stored: by this delivery,
	// or by an earlier delivery of the same entries (Duplicates of them).
	Accepted, Duplicates int
	// Skipped counts the entries that are not page views, by reason.
	Skipped   int
	SkippedBy map[string]int
}

// RecordDrain stores the page views of one drain delivery of a provider
// (DrainVercel…) in one transaction, through the same classification and
// storage as the events API. Each view is keyed by the provider's request
// id (Vercel's requestId or entry id, Netlify's request_id, Cloudflare's
// RayID) or, without one, by its entry's text and how many identical
// entries came before it in the delivery: a redelivered batch stores
// nothing twice. A delivery that is not the provider's format stores
// nothing (model.FieldErrors); one over the limits is model.ErrDrainTooLarge.
func (s *Service) RecordDrain(ctx context.Context, projectID, provider string, body []byte) (DrainResult, error) {
	events, res, err := ParseDrain(provider, body, time.Now())
	if err != nil {
		return res, err
	}
	n, _, err := s.record(ctx, projectID, events, nil, nil, metrics.SourceDrain)
	if err != nil {
		return res, err
	}
	res.Accepted, res.Duplicates = len(events), len(events)-n
	return res, nil
}

// ParseDrain reads a provider's delivery (JSON array or NDJSON, plain or
// gzip) into the page views it reports, each with its key in LineHash, and
// counts the entries it skips. Only the Accepted and Duplicates of the
// result are left for the caller, which stores the views.
func ParseDrain(provider string, body []byte, now time.Time) ([]Event, DrainResult, error) {
	res := DrainResult{SkippedBy: map[string]int{}}
	var entry func([]byte) (LogRequest, string, string)
	switch provider {
	case DrainVercel:
		entry = vercelEntry
	case DrainNetlify:
		entry = netlifyEntry
	case DrainCloudflare:
		entry = cloudflareEntry
	default:
		return nil, res, fmt.Errorf("analytics: unknown drain %q", provider)
	}
	body, err := gunzipDrain(body)
	if err != nil {
		return nil, res, err
	}
	var events []Event
	seen := map[[32]byte]int{}
	err = drainEntries(body, func(raw []byte) {
		r, id, reason := entry(raw)
		var e Event
		if reason == "" {
			e, reason = drainView(r, now)
		}
		if reason != "" {
			res.Skipped++
			res.SkippedBy[reason]++
			return
		}
		e.LineHash = drainKey(provider, id, raw, seen)
		events = append(events, e)
	})
	return events, res, err
}

// gunzipDrain returns body, decompressed when it is gzip (Logpush always
// compresses; Vercel may), within MaxDrainDecoded.
func gunzipDrain(body []byte) ([]byte, error) {
	if len(body) < 2 || body[0] != 0x1f || body[1] != 0x8b {
		return body, nil
	}
	zr, err := gzip.NewReader(bytes.NewReader(body))
	if err != nil {
		return nil, drainSyntax(0, "bad gzip (%v)", err)
	}
	out, err := io.ReadAll(io.LimitReader(zr, MaxDrainDecoded+1))
	if err != nil {
		return nil, drainSyntax(0, "bad gzip (%v)", err)
	}
	if len(out) > MaxDrainDecoded {
		return nil, model.ErrDrainTooLarge
	}
	return out, nil
}

// drainEntries calls each with every entry of a JSON array or of NDJSON
// (blank lines skipped), checking the whole body is well-formed first so
// that a truncated delivery stores nothing.
func drainEntries(body []byte, each func(raw []byte)) error {
	var entries [][]byte
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) > 0 && trimmed[0] == '[' {
		dec := json.NewDecoder(bytes.NewReader(trimmed))
		_, _ = dec.Token() // the '[' trimmed starts with: reading one delimiter cannot fail
		for dec.More() {
			var raw json.RawMessage
			if err := dec.Decode(&raw); err != nil {
				return drainSyntax(len(entries)+1, "%v", err)
			}
			if len(entries) == MaxDrainEntries {
				return model.ErrDrainTooLarge
			}
			entries = append(entries, raw)
		}
		if _, err := dec.Token(); err != nil {
			return drainSyntax(0, "the array is not closed")
		}
		if _, err := dec.Token(); err != io.EOF {
			return drainSyntax(0, "data after the array")
		}
	} else {
		// Lines are slices of the body, which outlives them.
		for line, rest := 1, trimmed; len(rest) > 0; line++ {
			var raw []byte
			raw, rest, _ = bytes.Cut(rest, []byte{'\n'})
			raw = bytes.TrimSpace(raw)
			if len(raw) == 0 {
				continue
			}
			if !json.Valid(raw) {
				return drainSyntax(line, "invalid JSON")
			}
			if len(entries) == MaxDrainEntries {
				return model.ErrDrainTooLarge
			}
			entries = append(entries, raw)
		}
	}
	for _, raw := range entries {
		each(raw)
	}
	return nil
}

// drainKey names a stored view of a drain. With the provider's id for the
// request it is the key the log import gives a line with that id, so a
// request both imported (from Logpush's files, say) and drained is stored
// once; without, it is the entry's text and how many identical entries
// came before it in this delivery (two identical requests in one batch
// are two views; the same batch again is none).
func drainKey(provider, id string, raw []byte, seen map[[32]byte]int) []byte {
	if id != "" {
		return lineHash("", sha256.Sum256([]byte("id\x00"+id)), 0)
	}
	sum := sha256.Sum256(raw)
	nth := seen[sum]
	seen[sum] = nth + 1
	return lineHash("drain\x00"+provider, sum, nth)
}

// drainView applies the log import's rules (pageView) to a request a
// drain reports, then the events API's to the view, and says why it
// cannot be stored. The address is the client's: the platforms resolve
// their proxies themselves.
func drainView(r LogRequest, now time.Time) (Event, string) {
	if r.At.IsZero() {
		return Event{}, SkipTime
	}
	e, reason := pageView(r, nil)
	switch {
	case reason == SkipMalformed && dash(r.Peer) == "":
		return Event{}, SkipNoClient
	case reason != "":
		return Event{}, reason
	case strings.TrimSpace(e.UserAgent) == "":
		return Event{}, SkipNoClient
	case e.At.After(now.Add(maxFuture)):
		return Event{}, SkipTime
	}
	if len(e.Referrer) > maxReferrerLen {
		e.Referrer = "" // a referrer is no reason to lose the view
	}
	if _, problems := ParseEvents([]RawEvent{e.Raw()}, now); problems != nil {
		return Event{}, SkipMalformed
	}
	return e, ""
}

// vercelEntry reads one entry of a Vercel log drain. Requests are the
// entries with a proxy object (static files, functions, edge, redirects);
// build output and function stdout carry none and are skipped. Per the
// schema proxy.userAgent is an array of strings; older drains sent a string.
func vercelEntry(raw []byte) (LogRequest, string, string) {
	var v struct {
		ID        string          `json:"id"`
		RequestID string          `json:"requestId"`
		Timestamp json.RawMessage `json:"timestamp"`
		Proxy     *struct {
			Timestamp  json.RawMessage `json:"timestamp"`
			Method     string          `json:"method"`
			Host       string          `json:"host"`
			Path       string          `json:"path"`
			UserAgent  stringOrAny     `json:"userAgent"`
			Referer    string          `json:"referer"`
			StatusCode *int            `json:"statusCode"`
			ClientIP   string          `json:"clientIp"`
		} `json:"proxy"`
	}
	if !jsonObject(raw, &v) || v.Proxy == nil {
		return LogRequest{}, "", SkipEvent
	}
	p := v.Proxy
	r := LogRequest{Method: p.Method, Status: noStatus, Target: p.Path, Peer: p.ClientIP, UserAgent: string(p.UserAgent), Referrer: p.Referer,
		Host: p.Host}
	switch {
	case p.StatusCode == nil:
	case *p.StatusCode == -1:
		return LogRequest{}, "", SkipStatus // a background revalidation, not a reader
	default:
		r.Status = *p.StatusCode
	}
	at, ok := jsonTime(p.Timestamp)
	if !ok {
		at, _ = jsonTime(v.Timestamp)
	}
	r.At = at
	id := v.RequestID // one request may log several entries
	if id == "" {
		id = v.ID
	}
	return r, id, ""
}

// netlifyEntry reads one entry of a Netlify log drain: its traffic log
// (log_type "traffic"); function, edge function, deploy and WAF logs are
// skipped. Excluding PII from the drain removes the client address and
// user agent, and with them what tells a person from an agent.
func netlifyEntry(raw []byte) (LogRequest, string, string) {
	var n struct {
		LogType    string          `json:"log_type"`
		RequestID  string          `json:"request_id"`
		Timestamp  json.RawMessage `json:"timestamp"`
		Method     string          `json:"method"`
		URL        string          `json:"url"`
		StatusCode *int            `json:"status_code"`
		UserAgent  string          `json:"user_agent"`
		ClientIP   string          `json:"client_ip"`
		Referrer   string          `json:"referrer"`
	}
	if !jsonObject(raw, &n) || n.LogType != "traffic" {
		return LogRequest{}, "", SkipEvent
	}
	r := LogRequest{Method: n.Method, Status: noStatus, Target: pathOf(n.URL), Peer: n.ClientIP, UserAgent: n.UserAgent, Referrer: n.Referrer,
		Host: hostOf(n.URL)}
	if n.StatusCode != nil {
		r.Status = *n.StatusCode
	}
	r.At, _ = jsonTime(n.Timestamp)
	return r, n.RequestID, ""
}

// cloudflareEntry reads one record of a Logpush http_requests job as the
// log import's cloudflare format does; its RayID, when the job sends it,
// names the request. Logpush's test message, and any record without a
// request URI or path, is not a request.
func cloudflareEntry(raw []byte) (LogRequest, string, string) {
	if !bytes.Contains(raw, []byte(`"ClientRequestURI"`)) && !bytes.Contains(raw, []byte(`"ClientRequestPath"`)) {
		return LogRequest{}, "", SkipEvent
	}
	r, reason := cloudflareFormat{}.Parse(raw)
	return r, r.ID, reason
}

// pathOf is the path and query of a request URL, absolute or not.
func pathOf(s string) string {
	if strings.HasPrefix(s, "/") {
		return s
	}
	u, err := url.Parse(s)
	if err != nil || u.Host == "" {
		return s
	}
	if u.RawQuery != "" {
		return u.EscapedPath() + "?" + u.RawQuery
	}
	return u.EscapedPath()
}

// hostOf is the host of an absolute URL, "" for a path.
func hostOf(s string) string {
	if strings.HasPrefix(s, "/") {
		return ""
	}
	if u, err := url.Parse(s); err == nil {
		return u.Host
	}
	return ""
}

// stringOrAny decodes a JSON string, or the first non-empty string of an
// array of them; anything else is empty.
type stringOrAny string

func (s *stringOrAny) UnmarshalJSON(b []byte) error {
	var one string
	if json.Unmarshal(b, &one) == nil {
		*s = stringOrAny(one)
		return nil
	}
	var many []string
	if json.Unmarshal(b, &many) == nil {
		for _, v := range many {
			if strings.TrimSpace(v) != "" {
				*s = stringOrAny(v)
				return nil
			}
		}
	}
	*s = ""
	return nil
}

// VerifyVercelSignature says whether sig (x-vercel-signature: the hex
// HMAC-SHA1 of the body under the drain secret) signs body, comparing in
// constant time. A gzip body may be signed compressed or not.
func VerifyVercelSignature(secret string, body []byte, sig string) bool {
	want, err := hex.DecodeString(strings.TrimSpace(sig))
	if err != nil || secret == "" {
		return false
	}
	m := hmac.New(sha1.New, []byte(secret))
	m.Write(body)
	if hmac.Equal(m.Sum(nil), want) {
		return true
	}
	// Vercel's docs leave open whether a compressed delivery is signed
	// before or after compression; either way the secret signed it.
	if len(body) < 2 || body[0] != 0x1f || body[1] != 0x8b {
		return false
	}
	plain, err := gunzipDrain(body)
	if err != nil {
		return false
	}
	m.Reset()
	m.Write(plain)
	return hmac.Equal(m.Sum(nil), want)
}
