package analytics

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// nginxFormat is a custom nginx log_format, compiled into the literal text
// between its variables: each variable's value runs up to the literal that
// follows it, which nginx's escaping (\x22 for a quote inside a value)
// keeps out of quoted values.
type nginxFormat struct {
	spec  string
	lead  string // the literal before the first variable
	parts []nginxPart
}

// nginxPart is one variable and the literal after it.
type nginxPart struct {
	name string
	lit  string
}

// nginxWidths are the variables whose values have a fixed width, so a
// space inside them (the zone of $time_local) does not end them.
var nginxWidths = map[string]int{
	"time_local":   len("02/Jan/2006:15:04:05 -0700"),
	"time_iso8601": len("2006-01-02T15:04:05+00:00"),
}

// compileNginxFormat compiles a log_format string as nginx.conf writes it
// (one string, its quotes removed).
func compileNginxFormat(spec string) (LogFormat, error) {
	f := &nginxFormat{spec: spec}
	lit := &f.lead
	has := map[string]bool{}
	for i := 0; i < len(spec); {
		if spec[i] != '$' {
			j := strings.IndexByte(spec[i:], '$')
			if j < 0 {
				j = len(spec) - i
			}
			*lit += spec[i : i+j]
			i += j
			continue
		}
		var name string
		if strings.HasPrefix(spec[i:], "${") {
			end := strings.IndexByte(spec[i:], '}')
			if end < 0 {
				return nil, fmt.Errorf("nginx log_format: %q has a ${ without its }", spec)
			}
			name, i = spec[i+2:i+end], i+end+1
		} else {
			j := i + 1
			for j < len(spec) && (spec[j] == '_' || spec[j] >= 'a' && spec[j] <= 'z' || spec[j] >= 'A' && spec[j] <= 'Z' || spec[j] >= '0' && spec[j] <= '9') {
				j++
			}
			name, i = spec[i+1:j], j
		}
		if name == "" {
			return nil, fmt.Errorf("nginx log_format: a $ without a variable name in %q", spec)
		}
		if n := len(f.parts); n > 0 && f.parts[n-1].lit == "" && nginxWidths[f.parts[n-1].name] == 0 {
			return nil, fmt.Errorf("nginx log_format: $%s follows $%s with nothing between them, so a line cannot be split", name, f.parts[n-1].name)
		}
		f.parts = append(f.parts, nginxPart{name: name})
		lit = &f.parts[len(f.parts)-1].lit
		has[name] = true
	}
	var missing []string
	if !has["time_local"] && !has["time_iso8601"] && !has["msec"] {
		missing = append(missing, "a time ($time_local, $time_iso8601 or $msec)")
	}
	if !has["request"] && !has["request_uri"] && !has["uri"] {
		missing = append(missing, "the path ($request, $request_uri or $uri)")
	}
	if !has["remote_addr"] {
		missing = append(missing, "the client ($remote_addr)")
	}
	if missing != nil {
		return nil, fmt.Errorf("nginx log_format: %q lacks %s", spec, strings.Join(missing, " and "))
	}
	return f, nil
}

func (f *nginxFormat) Name() string         { return "nginx:" + f.spec }
func (f *nginxFormat) NewParser() LogParser { return f }

func (f *nginxFormat) Parse(line []byte) (LogRequest, string) {
	r := LogRequest{Status: noStatus}
	rest, ok := bytes.CutPrefix(line, []byte(f.lead))
	if !ok {
		return r, SkipMalformed
	}
	target := 0 // which variable set r.Target: $request_uri > $request > $uri
	for i, p := range f.parts {
		var val []byte
		switch w := nginxWidths[p.name]; {
		case w > 0:
			if len(rest) < w+len(p.lit) || !bytes.HasPrefix(rest[w:], []byte(p.lit)) {
				return r, SkipMalformed
			}
			val = rest[:w]
		case i == len(f.parts)-1:
			// The last value runs to the literal that ends the line.
			if !bytes.HasSuffix(rest, []byte(p.lit)) {
				return r, SkipMalformed
			}
			val = rest[:len(rest)-len(p.lit)]
		default:
			j := bytes.Index(rest, []byte(p.lit))
			if j < 0 {
				return r, SkipMalformed
			}
			val = rest[:j]
		}
		rest = rest[len(val)+len(p.lit):]
		v := nginxUnescape(val)
		var err error
		switch p.name {
		case "remote_addr":
			r.Peer = v
		case "http_x_forwarded_for":
			r.Forwarded = v
		case "time_local":
			r.At, err = time.Parse("02/Jan/2006:15:04:05 -0700", v)
		case "time_iso8601":
			r.At, err = time.Parse(time.RFC3339, v)
		case "msec":
			r.At, err = unixSeconds(v)
		case "request":
			method, after, _ := strings.Cut(v, " ")
			r.Method = method
			if target < 2 {
				r.Target, _, _ = strings.Cut(after, " ")
				target = 2
			}
		case "request_method":
			r.Method = v
		case "request_uri":
			r.Target, target = v, 3
		case "uri":
			if target < 1 {
				r.Target, target = v, 1
			}
		case "status":
			r.Status, err = strconv.Atoi(v)
		case "http_referer":
			r.Referrer = v
		case "host", "http_host", "server_name":
			if r.Host == "" || p.name != "server_name" {
				r.Host = v
			}
		case "http_user_agent":
			r.UserAgent = v
		case "http_accept":
			r.Accept = v
		}
		if err != nil {
			return r, SkipMalformed
		}
	}
	return r, ""
}

// nginxUnescape undoes nginx's escaping of a logged value: \xHH in the
// default mode, \" and \\ in the json mode.
func nginxUnescape(b []byte) string {
	if bytes.IndexByte(b, '\\') < 0 {
		return string(b)
	}
	var sb strings.Builder
	for i := 0; i < len(b); i++ {
		if b[i] == '\\' && i+3 < len(b) && b[i+1] == 'x' {
			if n, err := strconv.ParseUint(string(b[i+2:i+4]), 16, 8); err == nil {
				sb.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		if b[i] == '\\' && i+1 < len(b) && (b[i+1] == '"' || b[i+1] == '\\') {
			i++
		}
		sb.WriteByte(b[i])
	}
	return sb.String()
}

// unixSeconds reads seconds since 1970, with a fraction or not.
func unixSeconds(s string) (time.Time, error) {
	whole, frac, _ := strings.Cut(s, ".")
	sec, err := strconv.ParseInt(whole, 10, 64)
	if err != nil {
		return time.Time{}, err
	}
	var nsec int64
	if frac != "" {
		if len(frac) > 9 {
			frac = frac[:9]
		}
		n, err := strconv.ParseInt(frac, 10, 64)
		if err != nil || n < 0 {
			return time.Time{}, errors.New("not a number of seconds")
		}
		for range 9 - len(frac) {
			n *= 10
		}
		nsec = n
	}
	return time.Unix(sec, nsec), nil
}
