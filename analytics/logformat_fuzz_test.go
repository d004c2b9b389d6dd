package analytics

import (
	"net/netip"
	"strings"
	"testing"
	"time"
)

// logReasons are the documented reasons a log line is skipped for.
var logReasons = map[string]bool{SkipMalformed: true, SkipMethod: true, SkipStatus: true, SkipAsset: true, SkipPath: true, SkipHeader: true, SkipEvent: true}

// checkLogLine checks what one line of a log became: a page view with a
// valid address or visitor, a UTC time, a normalized path and a line key,
// or a skip for a documented reason, counted once.
func checkLogLine(t *testing.T, format, line string, e Event, ok bool, before, after ImportStats) {
	t.Helper()
	skipped := 0
	for reason, n := range after.Skipped {
		if !logReasons[reason] {
			t.Fatalf("%s %q: skipped for %q, not a documented reason", format, line, reason)
		}
		skipped += n - before.Skipped[reason]
	}
	if after.Lines != before.Lines+1 || ok == (skipped == 1) || skipped > 1 {
		t.Fatalf("%s %q: read as a view %v, counted as %d lines and %d skips", format, line, ok, after.Lines-before.Lines, skipped)
	}
	if !ok {
		return
	}
	if _, err := netip.ParseAddr(e.IP); err != nil && e.VisitorID == "" {
		t.Fatalf("%s %q: stored with address %q and no visitor: %v", format, line, e.IP, err)
	}
	if e.At.Location() != time.UTC || e.At.Before(time.Unix(0, 0)) {
		t.Fatalf("%s %q: time %v", format, line, e.At)
	}
	if p, err := NormalizePath(e.Path); err != nil || p != e.Path {
		t.Fatalf("%s %q: stored path %q is not a normalized path (%q, %v)", format, line, e.Path, p, err)
	}
	if len(e.LineHash) != 16 {
		t.Fatalf("%s %q: no line key", format, line)
	}
}

// copyStats is st with a map of its own, to compare with after a line.
func copyStats(st ImportStats) ImportStats {
	c := st
	c.Skipped = make(map[string]int, len(st.Skipped))
	for k, v := range st.Skipped {
		c.Skipped[k] = v
	}
	return c
}

// FuzzLogFiles: a whole file read by one parser, as an import reads it, so
// the parsers that keep state between lines (CloudFront's #Fields header,
// auto's format found on an early line) meet every line after: each line
// is a page view or skipped for a documented reason.
func FuzzLogFiles(f *testing.F) {
	formats := append([]LogFormat{autoFormat{}}, logFormats...)
	for _, c := range logCases {
		for i := range formats {
			f.Add(uint8(i), c.text)
		}
	}
	f.Add(uint8(1), "#Version: 1.0\n#Fields: date time c-ip cs-uri-stem\n2026-04-01\t10:00:00\t203.0.113.5\t/docs\n#Fields: time\n10:00:00")
	f.Fuzz(func(t *testing.T, which uint8, text string) {
		format := formats[int(which)%len(formats)]
		lines := newLogLines(ImportOptions{Format: format, Trusted: testTrusted})
		st := ImportStats{Skipped: map[string]int{}}
		for _, line := range strings.Split(text, "\n") {
			before := copyStats(st)
			e, ok := lines.read([]byte(line), &st)
			checkLogLine(t, format.Name(), line, e, ok, before, st)
		}
	})
}

// FuzzNginxLogFormat: any nginx log_format string either compiles or is
// refused with a reason of its own, and a compiled one reads any line
// into a page view or a documented skip.
func FuzzNginxLogFormat(f *testing.F) {
	specs := []string{
		`$remote_addr - $remote_user [$time_local] "$request" $status $body_bytes_sent "$http_referer" "$http_user_agent"`,
		`$remote_addr - $remote_user [$time_local] "$request" $status $body_bytes_sent "$http_referer" "$http_user_agent" "$http_x_forwarded_for"`,
		`$host $remote_addr [$time_iso8601] "$request_method ${request_uri}" $status "$http_user_agent" $msec`,
		`{"ip":"$remote_addr","t":"$time_iso8601","m":"$request_method","u":"$request_uri","s":$status,"a":"$http_user_agent"}`,
	}
	for _, spec := range specs {
		for _, c := range logCases {
			for _, line := range strings.Split(c.text, "\n") {
				f.Add(spec, line)
			}
		}
	}
	f.Fuzz(func(t *testing.T, spec, line string) {
		format, err := LogFormatByName("nginx:" + spec)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "nginx log_format: ") {
				t.Fatalf("%q refused without a reason of its own: %v", spec, err)
			}
			return
		}
		st := ImportStats{Skipped: map[string]int{}}
		before := copyStats(st)
		e, ok := newLogLines(ImportOptions{Format: format, Trusted: testTrusted}).read([]byte(line), &st)
		checkLogLine(t, "nginx:"+spec, line, e, ok, before, st)
	})
}
