package analytics

import (
	"fmt"
	"net/netip"
	"strings"
	"testing"
	"time"
)

// parseLogLine is the combined-log line parser under test, in one place so
// the fuzz target follows it if its signature changes.
func parseLogLine(line []byte) (Event, string) {
	r, reason := CombinedFormat.NewParser().Parse(line)
	if reason != "" {
		return Event{}, reason
	}
	return pageView(r, nil)
}

// formatCombined writes e as nginx's combined format would log it.
func formatCombined(e Event, status int) string {
	esc := strings.NewReplacer(`\`, `\\`, `"`, `\"`)
	ua := e.UserAgent
	if ua == "" {
		ua = "-"
	}
	return fmt.Sprintf(`%s - - [%s] "GET %s HTTP/1.1" %d 512 "-" "%s"`,
		e.IP, e.At.Format("02/Jan/2006:15:04:05 -0700"), esc.Replace(e.Path), status, esc.Replace(ua))
}

// FuzzParseCombined: a line is either stored or skipped for one of the
// documented reasons; a stored line has a valid address, a UTC time and a
// usable path, and logging the view again and parsing it gives it back.
func FuzzParseCombined(f *testing.F) {
	for i, ua := range fuzzUserAgents(f) {
		at := time.Date(2026, 4, 1, 10, i%60, i%60, 0, time.FixedZone("", (i%5-2)*3600))
		ip := []string{"203.0.113.5", "2001:db8::7", "198.51.100.20"}[i%3]
		path := []string{"/docs/start", "/llms.txt", "/api/search?q=x", "/assets/site.css", "/a%20b"}[i%5]
		f.Add(fmt.Sprintf(`%s - - [%s] "GET %s HTTP/1.1" %d 1043 "https://example.com/" "%s"`,
			ip, at.Format("02/Jan/2006:15:04:05 -0700"), path, []int{200, 304, 404, 301}[i%4], strings.ReplaceAll(ua, `"`, `\"`)))
	}
	f.Add(`203.0.113.5 - - [01/Apr/2026:10:00:00 +0000] "POST /api/search HTTP/1.1" 200 10 "-" "Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0"`)
	f.Add(`203.0.113.5 - - [01/Apr/2026:10:00:00 +0000] "GET /a HTTP/1.1" 200 10 "-" "say \"hi\" \\ there"`)
	f.Add(`203.0.113.5 - - [01/Apr/2026:10:00:00 +0000] "-" 400 0 "-" "-"`)
	f.Add(`203.0.113.5 - - [01/Apr/2026:10:00:00 +0000] "GET /a HTTP/1.1" 200 10 "-`)
	f.Add(`not a log line`)
	reasons := map[string]bool{SkipMalformed: true, SkipMethod: true, SkipStatus: true, SkipAsset: true, SkipPath: true}
	f.Fuzz(func(t *testing.T, line string) {
		e, reason := parseLogLine([]byte(line))
		if reason != "" {
			if !reasons[reason] {
				t.Fatalf("%q: skipped for %q, not a documented reason", line, reason)
			}
			return
		}
		if _, err := netip.ParseAddr(e.IP); err != nil {
			t.Fatalf("%q: stored with address %q: %v", line, e.IP, err)
		}
		if e.At.Location() != time.UTC {
			t.Fatalf("%q: time %v is not UTC", line, e.At)
		}
		if p, err := NormalizePath(e.Path); err != nil || p != e.Path {
			t.Fatalf("%q: stored path %q is not a normalized path (%q, %v)", line, e.Path, p, err)
		}
		again, reason := parseLogLine([]byte(formatCombined(e, 200)))
		if reason != "" {
			t.Fatalf("%q: the view logged again as %q is skipped: %s", line, formatCombined(e, 200), reason)
		}
		if again.Path != e.Path || !again.At.Equal(e.At) || again.UserAgent != e.UserAgent || again.IP != e.IP {
			t.Fatalf("%q: logged again and parsed, %+v became %+v", line, e, again)
		}
	})
}

// fuzzNginxSpecs are nginx log_format strings FuzzLogFormats reads lines
// in: nginx's "main", one with the time in ISO 8601, the method and URI
// apart, the host and Accept, and one with the time as $msec and JSON
// escaping.
var fuzzNginxSpecs = []string{
	`$remote_addr - $remote_user [$time_local] "$request" $status $body_bytes_sent "$http_referer" "$http_user_agent" "$http_x_forwarded_for"`,
	`${remote_addr} [$time_iso8601] $request_method $request_uri $status "$http_user_agent" "$http_accept" $http_host rt=$request_time`,
	`{"ts":"$msec","ip":"$remote_addr","host":"$host","uri":"$uri","req":"$request","status":$status,"ref":"$http_referer","ua":"$http_user_agent"}`,
}

// FuzzLogFormats: under every format (auto and nginx:<log_format> among
// them), each line of a file, read in order by one parser as an import
// reads it (so CloudFront's header and auto's choice carry on to the
// lines after them), is a page view or is skipped for a documented reason;
// never a panic, never half a view. A view has a valid address or the
// log's visitor id, a time after 1970 and not to come (as the events API
// takes) that RFC 3339 writes, a normalized path starting with /, a line
// key, and a referrer that classes without fault.
func FuzzLogFormats(f *testing.F) {
	formats := []LogFormat{autoFormat{}}
	formats = append(formats, logFormats...)
	for _, spec := range fuzzNginxSpecs {
		nginx, err := LogFormatByName("nginx:" + spec)
		if err != nil {
			f.Fatal(err)
		}
		formats = append(formats, nginx)
	}
	refs, err := EmbeddedReferrerClassifier()
	if err != nil {
		f.Fatal(err)
	}
	texts := []string{
		`203.0.113.5 - - [01/Apr/2026:10:00:00 +0000] "GET /docs/a HTTP/1.1" 200 512 "https://chatgpt.com/" "` + firefox + `" "198.51.100.7, 10.0.0.9"`,
		`203.0.113.5 [2026-04-01T12:00:00+02:00] GET /guide.md?x=1 200 "` + chatGPT + `" "text/markdown" docs.example.com rt=0.004`,
		`{"ts":"1775037600.123","ip":"10.0.0.5","host":"docs.example.com","uri":"/guide","req":"GET /guide?x=1 HTTP/1.1","status":200,"ref":"https://www.google.com/search?q=x","ua":"say \"hi\""}`,
	}
	for _, c := range logCases {
		texts = append(texts, c.text)
	}
	for _, text := range texts {
		for i := range formats {
			f.Add(uint8(i), text)
		}
	}
	reasons := map[string]bool{SkipMalformed: true, SkipMethod: true, SkipStatus: true, SkipAsset: true, SkipPath: true, SkipHeader: true, SkipEvent: true, SkipTime: true}
	f.Fuzz(func(t *testing.T, which uint8, text string) {
		format := formats[int(which)%len(formats)]
		lines := newLogLines(ImportOptions{Format: format, Trusted: testTrusted})
		for _, line := range strings.Split(text, "\n") {
			st := ImportStats{Skipped: map[string]int{}}
			e, ok := lines.read([]byte(line), &st)
			if !ok {
				for reason := range st.Skipped {
					if !reasons[reason] {
						t.Fatalf("%s %q: skipped for %q, not a documented reason", format.Name(), line, reason)
					}
				}
				continue
			}
			if _, err := netip.ParseAddr(e.IP); err != nil && e.VisitorID == "" {
				t.Fatalf("%s %q: stored with address %q and no visitor: %v", format.Name(), line, e.IP, err)
			}
			if e.At.Location() != time.UTC || e.At.Before(time.Unix(0, 0)) || e.At.After(time.Now().Add(maxFuture)) {
				t.Fatalf("%s %q: time %v", format.Name(), line, e.At)
			}
			if back, err := time.Parse(time.RFC3339Nano, e.Raw().Timestamp); err != nil || !back.Equal(e.At) {
				t.Fatalf("%s %q: time %v is written %q, read back as %v (%v)", format.Name(), line, e.At, e.Raw().Timestamp, back, err)
			}
			if p, err := NormalizePath(e.Path); err != nil || p != e.Path || !strings.HasPrefix(p, "/") {
				t.Fatalf("%s %q: stored path %q is not a normalized path (%q, %v)", format.Name(), line, e.Path, p, err)
			}
			if len(e.LineHash) != 16 {
				t.Fatalf("%s %q: no line key", format.Name(), line)
			}
			if r := refs.Classify(e.Referrer, e.Host, nil); r.Channel != Direct && r.Source == "" {
				t.Fatalf("%s %q: referrer %q is of channel %v from no source", format.Name(), line, e.Referrer, r.Channel)
			}
		}
	})
}
