package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"unicode/utf8"

	"github.com/folio-docs/folio/analytics"
)

// DecodeFast reads an events batch of the usual shape (an object with
// "events", an array of objects whose fields are the known names with
// string values) by hand: batches of 1,000 events are what ingest spent
// most of its time decoding. It says false for anything else (an unknown
// or differently cased field, a value that is not a string, a syntax
// error), which httpx.DecodeJSON then decodes as every other body, with the same
// errors.
func (r *eventsRequest) DecodeFast(data []byte) bool {
	events, ok := fastEvents(data)
	if ok {
		r.Events = events
	}
	return ok
}

var errSlowPath = errors.New("not the usual shape")

// fastEvents reads {"events":[{...},...]} when it has the usual shape.
func fastEvents(data []byte) ([]analytics.RawEvent, bool) {
	p := eventsParser{data: data}
	if !p.byte('{') {
		return nil, false
	}
	key, err := p.str()
	if err != nil || key != "events" || !p.byte(':') || !p.byte('[') {
		return nil, false
	}
	// An event takes some 150 bytes or more; the estimate saves re-growing.
	events := make([]analytics.RawEvent, 0, min(analytics.MaxBatch, len(data)/128+1))
	if p.byte(']') {
		return events, p.byte('}') && p.end()
	}
	for {
		var e analytics.RawEvent
		if !p.byte('{') {
			return nil, false
		}
		if !p.byte('}') {
			for {
				k, ok := p.key()
				if !ok || !p.byte(':') {
					return nil, false
				}
				v, err := p.str()
				if err != nil {
					return nil, false
				}
				switch string(k) {
				case "type":
					e.Type = v
				case "path":
					e.Path = v
				case "timestamp":
					e.Timestamp = v
				case "userAgent":
					e.UserAgent = v
				case "ip":
					e.IP = v
				case "visitorId":
					e.VisitorID = v
				case "accept":
					e.Accept = v
				case "referrer":
					e.Referrer = v
				default:
					return nil, false
				}
				if p.byte('}') {
					break
				}
				if !p.byte(',') {
					return nil, false
				}
			}
		}
		events = append(events, e)
		if p.byte(']') {
			break
		}
		if !p.byte(',') {
			return nil, false
		}
	}
	return events, p.byte('}') && p.end()
}

type eventsParser struct {
	data []byte
	i    int
}

func (p *eventsParser) space() {
	for p.i < len(p.data) {
		switch p.data[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

// byte consumes c, after white space, if it comes next.
func (p *eventsParser) byte(c byte) bool {
	p.space()
	if p.i < len(p.data) && p.data[p.i] == c {
		p.i++
		return true
	}
	return false
}

func (p *eventsParser) end() bool {
	p.space()
	return p.i == len(p.data)
}

// key reads an object key without escapes, as its bytes (a key with
// escapes is not one of the known names as written: the slow path).
func (p *eventsParser) key() ([]byte, bool) {
	p.space()
	if p.i >= len(p.data) || p.data[p.i] != '"' {
		return nil, false
	}
	end := bytes.IndexByte(p.data[p.i+1:], '"')
	if end < 0 {
		return nil, false
	}
	k := p.data[p.i+1 : p.i+1+end]
	if bytes.IndexByte(k, '\\') >= 0 {
		return nil, false
	}
	p.i += end + 2
	return k, true
}

// str reads a JSON string; one with escapes is left to encoding/json.
func (p *eventsParser) str() (string, error) {
	p.space()
	if p.i >= len(p.data) || p.data[p.i] != '"' {
		return "", errSlowPath
	}
	start := p.i
	escaped, ascii := false, true
	for j := start + 1; j < len(p.data); j++ {
		switch c := p.data[j]; {
		case c == '\\':
			escaped = true
			j++
		case c < 0x20:
			return "", errSlowPath
		case c >= 0x80:
			ascii = false
		case c == '"':
			p.i = j + 1
			if !escaped {
				// encoding/json replaces invalid UTF-8; so does the slow path.
				if !ascii && !utf8.Valid(p.data[start+1:j]) {
					return "", errSlowPath
				}
				return string(p.data[start+1 : j]), nil
			}
			var s string
			if err := json.Unmarshal(p.data[start:j+1], &s); err != nil {
				return "", err
			}
			return s, nil
		}
	}
	return "", errSlowPath
}
