package analytics

import (
	"net/netip"
	"strings"
	"testing"
	"time"
)

// logReasons are the documented reasons a log line is skipped for.
var logReasons = map[string]bool{SkipMalformed: true, SkipMethod: true, SkipStatus: true, SkipAsset: true, SkipPath: true, SkipHeader: true, SkipEvent: true, SkipTime: true}

// checkLogLine checks what one line of a log became: a page view with a
// valid address or visitor, a UTC time not to come, a normalized path and a
// line key, or a skip for a documented reason, counted once.
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
	if e.At.Location() != time.UTC || e.At.Before(time.Unix(0, 0)) || e.At.After(time.Now().Add(maxFuture)) {
		t.Fatalf("%s %q: time %v", format, line, e.At)
	}
	if p, err := NormalizePath(e.Path); err != nil || p != e.Path {
		t.Fatalf("%s %q: stored path %q is not a normalized path (%q, %v)", format, line, e.Path, p, err)
	}
	if len(e.LineHash) != 16 {
		t.Fatalf("%s %q: no line key", format, line)
	}
}

// FuzzNginxLogFormat: any nginx log_format string either compiles or is
// refused with a reason of its own, and a compiled one reads any line
// into a page view or a documented skip (FuzzLogFormats reads files under
// the fixed formats and three log_formats; this varies the log_format).
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
		e, ok := newLogLines(ImportOptions{Format: format, Trusted: testTrusted}).read([]byte(line), &st)
		checkLogLine(t, "nginx:"+spec, line, e, ok, ImportStats{Skipped: map[string]int{}}, st)
	})
}
