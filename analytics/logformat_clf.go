package analytics

import (
	"bytes"
	"net/netip"
	"strconv"
	"strings"
	"time"
)

// clfFormat is the NCSA family nginx and Apache write:
//
//	common:         IP - user [02/Jan/2006:15:04:05 -0700] "GET /path HTTP/1.1" 200 123
//	combined:       common + "referrer" "user agent"
//	combined-vhost: host:port + combined (Apache's vhost_combined)
type clfFormat struct {
	name     string
	extended bool // the referrer and user agent follow the size
	vhost    bool // the virtual host comes first
}

func (f clfFormat) Name() string         { return f.name }
func (f clfFormat) NewParser() LogParser { return f }

func (f clfFormat) Parse(line []byte) (LogRequest, string) {
	var host string
	if f.vhost {
		sp := bytes.IndexByte(line, ' ')
		if sp <= 0 {
			return LogRequest{}, SkipMalformed
		}
		host, line = string(line[:sp]), line[sp+1:]
	}
	r, reason := parseCLF(line, f.extended)
	r.Host = host
	return r, reason
}

// parseCLF reads a common or (extended) combined line.
func parseCLF(line []byte, extended bool) (LogRequest, string) {
	var r LogRequest
	sp := bytes.IndexByte(line, ' ')
	if sp <= 0 {
		return r, SkipMalformed
	}
	r.Peer = string(line[:sp])
	if _, err := netip.ParseAddr(r.Peer); err != nil {
		return r, SkipMalformed
	}
	open, close := bytes.IndexByte(line, '['), bytes.IndexByte(line, ']')
	if open < 0 || close < open {
		return r, SkipMalformed
	}
	at, err := time.Parse("02/Jan/2006:15:04:05 -0700", string(line[open+1:close]))
	if err != nil {
		return r, SkipMalformed
	}
	r.At = at
	rest := line[close+1:]
	request, rest, ok := quoted(rest)
	if !ok {
		return r, SkipMalformed
	}
	fields := strings.Fields(string(rest))
	if len(fields) < 1 {
		return r, SkipMalformed
	}
	if r.Status, err = strconv.Atoi(fields[0]); err != nil {
		return r, SkipMalformed
	}
	if extended {
		// Skip the size, then the referrer and the user agent.
		if i := bytes.IndexByte(rest, '"'); i >= 0 {
			rest = rest[i:]
		} else {
			return r, SkipMalformed
		}
		if r.Referrer, rest, ok = quoted(rest); !ok {
			return r, SkipMalformed
		}
		if r.UserAgent, _, ok = quoted(rest); !ok {
			return r, SkipMalformed
		}
	} else if len(fields) > 2 || bytes.IndexByte(rest, '"') >= 0 {
		return r, SkipMalformed // more than the size: not the common format
	}
	method, target, _ := strings.Cut(request, " ")
	r.Target, _, _ = strings.Cut(target, " ")
	r.Method = method
	return r, ""
}

// quoted reads the first double-quoted field of b (with \" escapes) and
// returns it and what follows.
func quoted(b []byte) (string, []byte, bool) {
	i := bytes.IndexByte(b, '"')
	if i < 0 {
		return "", nil, false
	}
	var sb strings.Builder
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			if j+1 < len(b) {
				j++
				sb.WriteByte(b[j])
			}
		case '"':
			return sb.String(), b[j+1:], true
		default:
			sb.WriteByte(b[j])
		}
	}
	return "", nil, false
}
