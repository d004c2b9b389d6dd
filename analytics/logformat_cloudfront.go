package analytics

import (
	"bytes"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// cloudFrontFormat is CloudFront's standard log (W3C extended): a
// "#Version" and a "#Fields" header, then tab-separated fields in the
// header's order, "-" for none, user agent and referrer URL-encoded. The
// files CloudFront delivers are gzip; the import reads those as they are.
type cloudFrontFormat struct{}

func (cloudFrontFormat) Name() string { return "cloudfront" }

func (cloudFrontFormat) NewParser() LogParser {
	p := &cloudFrontParser{}
	p.setFields(cloudFrontFields)
	return p
}

// cloudFrontFields are the fields of a standard log, in the order
// CloudFront writes them, for a file whose header is missing.
const cloudFrontFields = "date time x-edge-location sc-bytes c-ip cs-method cs(Host) cs-uri-stem sc-status cs(Referer) cs(User-Agent) cs-uri-query cs(Cookie) x-edge-result-type x-edge-request-id x-host-header cs-protocol cs-bytes time-taken x-forwarded-for ssl-protocol ssl-cipher x-edge-response-result-type cs-protocol-version fle-status fle-encrypted-fields c-port time-to-first-byte x-edge-detailed-result-type sc-content-type sc-content-len sc-range-start sc-range-end"

type cloudFrontParser struct {
	// The column of each field the import reads, -1 when absent.
	date, time, ip, method, stem, status, referrer, userAgent, forwarded, width int
	// host is x-host-header (the viewer's Host), else cs(Host) (the
	// distribution's domain).
	host, distribution int
}

func (p *cloudFrontParser) setFields(fields string) {
	*p = cloudFrontParser{date: -1, time: -1, ip: -1, method: -1, stem: -1, status: -1, referrer: -1, userAgent: -1, forwarded: -1,
		host: -1, distribution: -1}
	names := strings.Fields(fields)
	p.width = len(names)
	for i, name := range names {
		switch name {
		case "date":
			p.date = i
		case "time":
			p.time = i
		case "c-ip":
			p.ip = i
		case "cs-method":
			p.method = i
		case "cs-uri-stem":
			p.stem = i
		case "sc-status":
			p.status = i
		case "cs(Referer)":
			p.referrer = i
		case "cs(User-Agent)":
			p.userAgent = i
		case "x-forwarded-for":
			p.forwarded = i
		case "x-host-header":
			p.host = i
		case "cs(Host)":
			p.distribution = i
		}
	}
}

func (p *cloudFrontParser) Parse(line []byte) (LogRequest, string) {
	if len(line) > 0 && line[0] == '#' {
		if fields, ok := bytes.CutPrefix(line, []byte("#Fields:")); ok {
			p.setFields(string(fields))
			return LogRequest{}, SkipHeader
		}
		if bytes.HasPrefix(line, []byte("#Version:")) {
			return LogRequest{}, SkipHeader
		}
		return LogRequest{}, SkipMalformed
	}
	// Every field is "-" when empty, so a trailing tab separates nothing.
	cols := strings.Split(strings.TrimRight(string(line), "\t\r"), "\t")
	if len(cols) != p.width || p.date < 0 || p.time < 0 || p.stem < 0 || p.ip < 0 {
		return LogRequest{}, SkipMalformed
	}
	field := func(i int) string {
		if i < 0 {
			return ""
		}
		return cols[i]
	}
	at, err := time.Parse("2006-01-02 15:04:05", cols[p.date]+" "+cols[p.time])
	if err != nil {
		return LogRequest{}, SkipMalformed
	}
	r := LogRequest{Method: field(p.method), Status: noStatus, Target: cols[p.stem], At: at, Peer: cols[p.ip],
		Forwarded: field(p.forwarded), UserAgent: unescapeW3C(field(p.userAgent)), Referrer: unescapeW3C(field(p.referrer)),
		Host: dash(field(p.host))}
	if r.Host == "" {
		r.Host = field(p.distribution)
	}
	if p.status >= 0 {
		// An aborted request is logged as 000: no successful response.
		if r.Status, err = strconv.Atoi(cols[p.status]); err != nil {
			return LogRequest{}, SkipMalformed
		}
	}
	return r, ""
}

// unescapeW3C decodes CloudFront's URL-encoding of a header (%20 for a
// space, a + left as it is); a value it cannot decode is kept as logged.
func unescapeW3C(s string) string {
	if d, err := url.PathUnescape(s); err == nil {
		return d
	}
	return s
}
