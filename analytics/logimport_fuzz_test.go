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

// FuzzLogFormats: under every format, a line is a page view with a valid
// address or visitor, a UTC time and a normalized path, or it is skipped
// for a documented reason; never half a view.
func FuzzLogFormats(f *testing.F) {
	formats := []LogFormat{autoFormat{}}
	formats = append(formats, logFormats...)
	nginx, err := LogFormatByName(`nginx:$remote_addr - $remote_user [$time_local] "$request" $status $body_bytes_sent "$http_referer" "$http_user_agent" "$http_x_forwarded_for"`)
	if err != nil {
		f.Fatal(err)
	}
	formats = append(formats, nginx)
	for _, c := range logCases {
		for _, line := range strings.Split(c.text, "\n") {
			for i := range formats {
				f.Add(uint8(i), line)
			}
		}
	}
	reasons := map[string]bool{SkipMalformed: true, SkipMethod: true, SkipStatus: true, SkipAsset: true, SkipPath: true, SkipHeader: true, SkipEvent: true}
	f.Fuzz(func(t *testing.T, which uint8, line string) {
		format := formats[int(which)%len(formats)]
		st := ImportStats{Skipped: map[string]int{}}
		e, ok := newLogLines(ImportOptions{Format: format, Trusted: testTrusted}).read([]byte(line), &st)
		if !ok {
			for reason := range st.Skipped {
				if !reasons[reason] {
					t.Fatalf("%s %q: skipped for %q, not a documented reason", format.Name(), line, reason)
				}
			}
			return
		}
		if _, err := netip.ParseAddr(e.IP); err != nil && e.VisitorID == "" {
			t.Fatalf("%s %q: stored with address %q and no visitor: %v", format.Name(), line, e.IP, err)
		}
		if e.At.Location() != time.UTC || e.At.Before(time.Unix(0, 0)) {
			t.Fatalf("%s %q: time %v", format.Name(), line, e.At)
		}
		if p, err := NormalizePath(e.Path); err != nil || p != e.Path {
			t.Fatalf("%s %q: stored path %q is not a normalized path (%q, %v)", format.Name(), line, e.Path, p, err)
		}
		if len(e.LineHash) != 16 {
			t.Fatalf("%s %q: no line key", format.Name(), line)
		}
	})
}
