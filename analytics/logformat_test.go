package analytics

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"net/netip"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/folio-docs/folio/clientip"
)

// readLog reads text line by line in format f as an import does, and
// returns the page views it would store.
func readLog(t *testing.T, f LogFormat, trusted clientip.Trusted, text string) ([]view, ImportStats) {
	t.Helper()
	st := ImportStats{Skipped: map[string]int{}}
	lines := newLogLines(ImportOptions{Format: f, Trusted: trusted, File: "log"})
	var views []view
	for _, line := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		if e, ok := lines.read([]byte(line), &st); ok {
			views = append(views, viewOf(e))
		}
	}
	st.Format = lines.format()
	return views, st
}

// view is what a test expects of a stored page view.
type view struct {
	path, at, ip, ua, referrer, accept string
}

func viewOf(e Event) view {
	return view{e.Path, e.At.Format(time.RFC3339Nano), e.IP, e.UserAgent, e.Referrer, e.Accept}
}

const (
	firefox   = "Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0"
	chatGPT   = "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; ChatGPT-User/1.0; +https://openai.com/bot"
	chromeWin = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/78.0.3904.108 Safari/537.36"
)

// logCases are real-shaped lines of each format, what each stores, and
// why the others are skipped.
var logCases = []struct {
	format  string
	text    string
	want    []view
	skipped map[string]int
}{
	{
		format: "combined",
		text: `203.0.113.5 - - [01/Apr/2026:10:00:00 +0200] "GET /docs/start?ref=nav HTTP/1.1" 200 5120 "https://www.google.com/" "` + firefox + `"
2001:db8::7 - alice [01/Apr/2026:10:00:01 +0000] "GET /llms.txt HTTP/2.0" 304 0 "-" "` + chatGPT + `"
203.0.113.5 - - [01/Apr/2026:10:00:02 +0000] "POST /api/search HTTP/1.1" 200 10 "-" "` + firefox + `"
203.0.113.5 - - [01/Apr/2026:10:00:03 +0000] "GET /missing HTTP/1.1" 404 10 "-" "` + firefox + `"
203.0.113.5 - - [01/Apr/2026:10:00:04 +0000] "GET /assets/site.css HTTP/1.1" 200 10 "-" "` + firefox + `"`,
		want: []view{
			{"/docs/start", "2026-04-01T08:00:00Z", "203.0.113.5", firefox, "https://www.google.com/", ""},
			{"/llms.txt", "2026-04-01T10:00:01Z", "2001:db8::7", chatGPT, "", ""},
		},
		skipped: map[string]int{SkipMethod: 1, SkipStatus: 1, SkipAsset: 1},
	},
	{
		// Apache's documented example of the common log format.
		format: "common",
		text: `127.0.0.1 - frank [10/Oct/2000:13:55:36 -0700] "GET /docs/index.html HTTP/1.0" 200 2326
127.0.0.1 - frank [10/Oct/2000:13:55:37 -0700] "GET /apache_pb.gif HTTP/1.0" 200 -`,
		want:    []view{{"/docs/index.html", "2000-10-10T20:55:36Z", "127.0.0.1", "", "", ""}},
		skipped: map[string]int{SkipAsset: 1},
	},
	{
		// Apache's vhost_combined: %v:%p first.
		format: "combined-vhost",
		text: `docs.example.com:443 203.0.113.7 - - [01/Apr/2026:10:00:00 +0000] "GET /guide HTTP/1.1" 200 5120 "https://chatgpt.com/" "` + firefox + `"
docs.example.com:443 203.0.113.8 - - [01/Apr/2026:10:00:01 +0000] "HEAD /guide HTTP/1.1" 200 0 "-" "curl/8.5.0"`,
		want:    []view{{"/guide", "2026-04-01T10:00:00Z", "203.0.113.7", firefox, "https://chatgpt.com/", ""}},
		skipped: map[string]int{SkipMethod: 1},
	},
	{
		// Caddy's default access log (caddyserver.com's example, and
		// client_ip as Caddy 2.7+ logs it), and a line of another logger.
		format: "caddy",
		text: `{"level":"info","ts":1646861401.5241024,"logger":"http.log.access.log0","msg":"handled request","request":{"remote_ip":"127.0.0.1","remote_port":"41342","client_ip":"198.51.100.20","proto":"HTTP/2.0","method":"GET","host":"localhost","uri":"/docs/start?x=1","headers":{"User-Agent":["` + chatGPT + `"],"Accept":["text/markdown, text/html;q=0.9"],"Accept-Encoding":["gzip, deflate, br"],"Referer":["https://www.bing.com/"]},"tls":{"resumed":false,"version":772,"cipher_suite":4865,"proto":"h2","server_name":"example.com"}},"bytes_read":0,"user_id":"","duration":0.000929675,"size":10900,"status":200,"resp_headers":{"Server":["Caddy"],"Content-Type":["text/html; charset=utf-8"]}}
{"level":"info","ts":1646861402.1,"logger":"http.log.access.log0","msg":"handled request","request":{"remote_ip":"127.0.0.1","remote_port":"41343","client_ip":"127.0.0.1","proto":"HTTP/1.1","method":"GET","host":"localhost","uri":"/favicon.ico","headers":{"User-Agent":["` + firefox + `"]}},"bytes_read":0,"user_id":"","duration":0.0001,"size":0,"status":404,"resp_headers":{}}
{"level":"info","ts":1646861403.0,"logger":"http.log.access.log0","msg":"handled request","request":{"remote_ip":"192.0.2.9","remote_port":"41344","proto":"HTTP/1.1","method":"GET","host":"localhost","uri":"/","headers":{"User-Agent":["` + firefox + `"]}},"bytes_read":0,"user_id":"","duration":0.0001,"size":10,"status":200,"resp_headers":{}}
{"level":"info","ts":1646861404.0,"logger":"tls.obtain","msg":"certificate obtained successfully","identifier":"example.com"}`,
		want: []view{
			{"/docs/start", "2022-03-09T21:30:01.524102Z", "198.51.100.20", chatGPT, "https://www.bing.com/", "text/markdown, text/html;q=0.9"},
			{"/", "2022-03-09T21:30:03Z", "192.0.2.9", firefox, "", ""},
		},
		skipped: map[string]int{SkipStatus: 1, SkipEvent: 1},
	},
	{
		// The example of CloudFront's log file fields reference.
		format: "cloudfront",
		text: "#Version: 1.0\n" +
			"#Fields: " + cloudFrontFields + "\n" +
			"2019-12-04\t21:02:31\tLAX1\t392\t192.0.2.100\tGET\td111111abcdef8.cloudfront.net\t/index.html\t200\t-\tMozilla/5.0%20(Windows%20NT%2010.0;%20Win64;%20x64)%20AppleWebKit/537.36%20(KHTML,%20like%20Gecko)%20Chrome/78.0.3904.108%20Safari/537.36\t-\t-\tHit\tSOX4xwn4XV6Q4rgb7XiVGOHms_BGlTAC4KyHmureZmBNrjGdRLiNIQ==\td111111abcdef8.cloudfront.net\thttps\t23\t0.001\t-\tTLSv1.2\tECDHE-RSA-AES128-GCM-SHA256\tHit\tHTTP/2.0\t-\t-\t11040\t0.001\tHit\ttext/html\t78\t-\t-\n" +
			"2019-12-04\t21:02:31\tLAX1\t392\t192.0.2.100\tGET\td111111abcdef8.cloudfront.net\t/index.html\t200\t-\tMozilla/5.0%20(Windows%20NT%2010.0;%20Win64;%20x64)%20AppleWebKit/537.36%20(KHTML,%20like%20Gecko)%20Chrome/78.0.3904.108%20Safari/537.36\t-\t-\tHit\tk6WGMNkEzR5BEM_SaF47gjtX9zBDO2m349OY2an0QPEaUum1ZOLrow==\td111111abcdef8.cloudfront.net\thttps\t23\t0.000\t-\tTLSv1.2\tECDHE-RSA-AES128-GCM-SHA256\tHit\tHTTP/2.0\t-\t-\t11040\t0.000\tHit\ttext/html\t78\t-\t-\t\n" +
			"2019-12-13\t22:36:27\tSEA19-C1\t900\t192.0.2.200\tGET\td111111abcdef8.cloudfront.net\t/favicon.ico\t502\thttp://www.example.com/\tMozilla/5.0%20(Windows%20NT%2010.0;%20Win64;%20x64)%20AppleWebKit/537.36%20(KHTML,%20like%20Gecko)%20Chrome/78.0.3904.108%20Safari/537.36\t-\t-\tError\t1pkpNfBQ39sYMnjjUQjmH2w1wdJnbHYTbag21o_3OfcQgPzdL2RSSQ==\twww.example.com\thttp\t675\t0.102\t-\t-\t-\tError\tHTTP/1.1\t-\t-\t25260\t0.102\tOriginDnsError\ttext/html\t507\t-\t-\n" +
			"2019-12-13\t22:36:28\tSEA19-C1\t900\t10.0.0.9\tGET\td111111abcdef8.cloudfront.net\t/guide/install\t200\thttps://claude.ai/\tMozilla/5.0%20(X11;%20Linux%20x86_64;%20rv:125.0)%20Gecko/20100101%20Firefox/125.0\tlang=en\t-\tMiss\t3AqrZGCnF_g0-5KOvfA7c9XLcf4YGvMFSeFdIetR1N_2y8jSis8Zxg==\twww.example.com\thttps\t735\t0.107\t198.51.100.44\tTLSv1.3\tTLS_AES_128_GCM_SHA256\tMiss\tHTTP/2.0\t-\t-\t3802\t0.107\tMiss\ttext/html\t507\t-\t-\n" +
			"2019-12-13\t22:36:29\tSEA19-C1\t0\t192.0.2.200\tGET\td111111abcdef8.cloudfront.net\t/\t000\t-\tcurl/8.5.0\t-\t-\tError\tx==\twww.example.com\thttps\t0\t0.000\t-\t-\t-\tError\tHTTP/1.1\t-\t-\t1\t0.000\tClientCommError\t-\t-\t-\t-",
		want: []view{
			{"/index.html", "2019-12-04T21:02:31Z", "192.0.2.100", chromeWin, "", ""},
			{"/index.html", "2019-12-04T21:02:31Z", "192.0.2.100", chromeWin, "", ""},
			// 10.0.0.9 is a trusted proxy: the client is the hop it forwarded.
			{"/guide/install", "2019-12-13T22:36:28Z", "198.51.100.44", firefox, "https://claude.ai/", ""},
		},
		skipped: map[string]int{SkipHeader: 2, SkipStatus: 2},
	},
	{
		// Logpush http_requests with the fields of its reference, in each
		// timestamp format: unixnano (the default), unix, rfc3339.
		format: "cloudflare",
		text: `{"CacheCacheStatus":"hit","ClientASN":13335,"ClientCountry":"us","ClientDeviceType":"desktop","ClientIP":"198.51.100.7","ClientRequestHost":"docs.example.com","ClientRequestMethod":"GET","ClientRequestPath":"/docs/start","ClientRequestProtocol":"HTTP/2","ClientRequestReferer":"https://www.perplexity.ai/","ClientRequestScheme":"https","ClientRequestSource":"eyeball","ClientRequestURI":"/docs/start?utm=x","ClientRequestUserAgent":"` + firefox + `","EdgeColoCode":"SJC","EdgeEndTimestamp":1506702504461999900,"EdgeResponseBytes":69045,"EdgeResponseStatus":200,"EdgeStartTimestamp":1506702504433000200,"OriginResponseStatus":200,"RayID":"3a6050bcbe121a87","WorkerSubrequest":false,"RequestHeaders":{"accept":"text/html"}}
{"ClientIP":"2001:db8::42","ClientRequestHost":"docs.example.com","ClientRequestMethod":"GET","ClientRequestURI":"/llms-full.txt","ClientRequestUserAgent":"` + chatGPT + `","ClientRequestReferer":"","EdgeResponseStatus":200,"EdgeStartTimestamp":1506702505,"RayID":"3a6050bcbe121a88"}
{"ClientIP":"198.51.100.8","ClientRequestMethod":"GET","ClientRequestURI":"/guide","ClientRequestUserAgent":"` + firefox + `","EdgeResponseStatus":304,"EdgeStartTimestamp":"2017-09-29T16:28:26Z","RayID":"3a6050bcbe121a89"}
{"ClientIP":"198.51.100.9","ClientRequestMethod":"GET","ClientRequestURI":"/guide","ClientRequestUserAgent":"` + firefox + `","EdgeResponseStatus":200,"EdgeStartTimestamp":"2017-09-29T16:28:27Z","WorkerSubrequest":true}
{"ClientIP":"198.51.100.9","ClientRequestMethod":"GET","ClientRequestURI":"/guide","EdgeResponseStatus":403,"EdgeStartTimestamp":1506702507000000000}`,
		want: []view{
			{"/docs/start", "2017-09-29T16:28:24.4330002Z", "198.51.100.7", firefox, "https://www.perplexity.ai/", "text/html"},
			{"/llms-full.txt", "2017-09-29T16:28:25Z", "2001:db8::42", chatGPT, "", ""},
			{"/guide", "2017-09-29T16:28:26Z", "198.51.100.8", firefox, "", ""},
		},
		skipped: map[string]int{SkipEvent: 1, SkipStatus: 1},
	},
	{
		// Mintlify's streamed events, as its streaming page shows them: the
		// payload an object or a JSON string; events other than page views
		// are not views.
		format: "mintlify",
		text: `{"eventType":"docs.content.view","payload":{"event_id":"4b91fdbc-4677-4e03-b51b-5f2da41c8654","subdomain":"docs","user_id":"","anon_id":"anon_01JZ8W6QKEJ6ECG1T7QK2S5PZ2","session_id":"session_01JZ8W8CS5JC8T18HXH8ES7Z5M","created_at":"2026-07-22T23:21:41.063Z","event":"docs.content.view","path":"/quickstart","referrer":"https://www.example.com/","user_agent":"` + firefox + `","ip":"203.0.113.10","properties":{}}}
{"eventType":"docs.content.view","payload":"{\"event_id\":\"0c2f7a4e-31b1-4f0b-9d1e-8f0a2b7c9d11\",\"subdomain\":\"docs\",\"anon_id\":\"anon_2\",\"created_at\":\"2026-07-22T23:22:00Z\",\"event\":\"docs.content.view\",\"path\":\"/api-reference/intro\",\"referrer\":\"\",\"user_agent\":\"` + strings.ReplaceAll(chatGPT, `"`, `\"`) + `\",\"ip\":\"203.0.113.11\",\"properties\":\"{}\"}"}
{"eventType":"docs.search.query","payload":{"event_id":"a1","created_at":"2026-07-22T23:22:01Z","event":"docs.search.query","path":"/quickstart","ip":"203.0.113.10","properties":{"query":"install"}}}`,
		want: []view{
			{"/quickstart", "2026-07-22T23:21:41.063Z", "203.0.113.10", firefox, "https://www.example.com/", ""},
			{"/api-reference/intro", "2026-07-22T23:22:00Z", "203.0.113.11", chatGPT, "", ""},
		},
		skipped: map[string]int{SkipEvent: 1},
	},
}

var testTrusted = clientip.Trusted{netip.MustParsePrefix("10.0.0.0/8")}

// Each format reads its real-shaped lines into the views they are, and
// auto finds each format from the file's first lines.
func TestLogFormats(t *testing.T) {
	for _, c := range logCases {
		t.Run(c.format, func(t *testing.T) {
			f, err := LogFormatByName(c.format)
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range []LogFormat{f, autoFormat{}} {
				got, st := readLog(t, f, testTrusted, c.text)
				if fmt.Sprint(got) != fmt.Sprint(c.want) {
					t.Errorf("--format %s: views\n%+v\nwant\n%+v", f.Name(), got, c.want)
				}
				if fmt.Sprint(st.Skipped) != fmt.Sprint(c.skipped) || st.Unparsed != nil {
					t.Errorf("--format %s: skipped %v, unparsed %v; want %v", f.Name(), st.Skipped, st.Unparsed, c.skipped)
				}
				if st.Format != c.format {
					t.Errorf("--format %s read the lines as %q, want %q", f.Name(), st.Format, c.format)
				}
			}
		})
	}
}

// A line of another format, or half a line, is reported with its number
// and stores nothing: never half a view.
func TestLogFormatsReportUnparsedLines(t *testing.T) {
	for _, c := range logCases {
		t.Run(c.format, func(t *testing.T) {
			f, _ := LogFormatByName(c.format)
			lines := strings.Split(c.text, "\n")
			last := lines[len(lines)-1]
			text := strings.Join(append(lines, last[:len(last)/2], "", `{"some":"json"}`, "garbage"), "\n")
			views, st := readLog(t, f, testTrusted, text)
			if len(views) != len(c.want) {
				t.Errorf("%d views, want %d", len(views), len(c.want))
			}
			if st.Skipped[SkipMalformed] != 4 || len(st.Unparsed) != 4 {
				t.Fatalf("skipped %v, unparsed %+v; want the 4 lines that are not %s", st.Skipped, st.Unparsed, c.format)
			}
			for i, u := range st.Unparsed {
				if want := len(lines) + 1 + i; u.Line != want || u.File != "log" {
					t.Errorf("unparsed %+v: want line %d of log", u, want)
				}
			}
		})
	}
	// Auto finds nothing in lines of no format, and says so.
	_, st := readLog(t, autoFormat{}, nil, "garbage\nmore garbage")
	if st.Format != "" || st.Skipped[SkipMalformed] != 2 {
		t.Errorf("auto on garbage: format %q, skipped %v", st.Format, st.Skipped)
	}
}

// A line whose time is still to come (beyond the events API's five
// minutes) is skipped for its time, in every format that can write one: a
// view in the year 31,000,000 (nginx's $msec of 1e15 seconds) widened
// every all-time query to its day, and one visitors export took minutes. FuzzLogFormats found the first that RFC 3339 cannot
// write (testdata/fuzz/FuzzLogFormats).
func TestLogLineInTheFutureIsSkipped(t *testing.T) {
	msec, err := LogFormatByName(`nginx:$remote_addr [$msec] "$request" $status "$http_user_agent"`)
	if err != nil {
		t.Fatal(err)
	}
	caddy, _ := LogFormatByName("caddy")
	combined, _ := LogFormatByName("combined")
	soon := time.Now().Add(time.Minute)
	caddyLine := func(ts string) string {
		return `{"level":"info","ts":` + ts + `,"logger":"http.log.access.log0","msg":"handled request","request":{"remote_ip":"192.0.2.9","proto":"HTTP/1.1","method":"GET","host":"localhost","uri":"/docs","headers":{"User-Agent":["` + firefox + `"]}},"status":200}`
	}
	for _, c := range []struct {
		format LogFormat
		line   string
		stored bool
	}{
		{msec, `203.0.113.5 [1000000000000000.000] "GET /docs HTTP/1.1" 200 "` + firefox + `"`, false},
		{msec, `203.0.113.5 [253402300800.500] "GET /docs HTTP/1.1" 200 "` + firefox + `"`, false},
		{msec, fmt.Sprintf(`203.0.113.5 [%d.000] "GET /docs HTTP/1.1" 200 "%s"`, time.Now().Add(time.Hour).Unix(), firefox), false},
		{msec, fmt.Sprintf(`203.0.113.5 [%d.000] "GET /docs HTTP/1.1" 200 "%s"`, soon.Unix(), firefox), true},
		{caddy, caddyLine("99999999999.5"), false},
		{caddy, caddyLine(strconv.FormatInt(soon.Unix(), 10)), true},
		{combined, `203.0.113.5 - - [01/Apr/9999:10:00:00 +0000] "GET /docs HTTP/1.1" 200 512 "-" "` + firefox + `"`, false},
		{combined, `203.0.113.5 - - [` + soon.Format("02/Jan/2006:15:04:05 -0700") + `] "GET /docs HTTP/1.1" 200 512 "-" "` + firefox + `"`, true},
	} {
		got, st := readLog(t, c.format, nil, c.line)
		if c.stored != (len(got) == 1) || !c.stored && st.Skipped[SkipTime] != 1 {
			t.Errorf("%s %q: stored %+v, skipped %v; want it stored: %v", c.format.Name(), c.line, got, st.Skipped, c.stored)
		}
	}
}

// nginx's own formats, written as log_format strings, read their lines.
func TestNginxLogFormat(t *testing.T) {
	combined := `$remote_addr - $remote_user [$time_local] "$request" $status $body_bytes_sent "$http_referer" "$http_user_agent"`
	// nginx.conf's "main" as Debian and nginx.org ship it, and one with
	// the time in ISO 8601, the Accept header and the method apart.
	main := combined + ` "$http_x_forwarded_for"`
	custom := `${remote_addr} [$time_iso8601] $request_method $request_uri $status "$http_user_agent" "$http_accept" $msec rt=$request_time`
	cases := []struct {
		spec, text string
		want       []view
		skipped    map[string]int
	}{
		{combined, logCases[0].text, logCases[0].want, logCases[0].skipped},
		{main, `10.0.0.5 - - [01/Apr/2026:10:00:00 +0000] "GET /docs/a HTTP/1.1" 200 512 "-" "` + firefox + `" "198.51.100.7, 10.0.0.9"
10.0.0.5 - - [01/Apr/2026:10:00:01 +0000] "GET /docs/b HTTP/1.1" 200 512 "-" "say \x22hi\x22" "-"
203.0.113.9 - - [01/Apr/2026:10:00:02 +0000] "GET /docs/c HTTP/1.1" 200 512 "-" "` + firefox + `" "6.6.6.6"`,
			[]view{
				{"/docs/a", "2026-04-01T10:00:00Z", "198.51.100.7", firefox, "", ""},
				{"/docs/b", "2026-04-01T10:00:01Z", "10.0.0.5", `say "hi"`, "", ""},
				// Not through a trusted proxy: its header is not believed.
				{"/docs/c", "2026-04-01T10:00:02Z", "203.0.113.9", firefox, "", ""},
			}, map[string]int{}},
		{custom, `203.0.113.5 [2026-04-01T12:00:00+02:00] GET /guide.md?x=1 200 "` + chatGPT + `" "text/markdown" 1775037600.123 rt=0.004
203.0.113.5 [2026-04-01T12:00:01+02:00] DELETE /guide 204 "curl/8" "-" 1775037601.000 rt=0.001`,
			[]view{{"/guide.md", "2026-04-01T10:00:00.123Z", "203.0.113.5", chatGPT, "", "text/markdown"}},
			map[string]int{SkipMethod: 1}},
	}
	for _, c := range cases {
		f, err := LogFormatByName("nginx:" + c.spec)
		if err != nil {
			t.Fatal(err)
		}
		got, st := readLog(t, f, testTrusted, c.text)
		if fmt.Sprint(got) != fmt.Sprint(c.want) || fmt.Sprint(st.Skipped) != fmt.Sprint(c.skipped) {
			t.Errorf("nginx:%s\nviews %+v\nwant  %+v\nskipped %v, want %v", c.spec, got, c.want, st.Skipped, c.skipped)
		}
	}
	// A format that cannot be read back is refused when it is named.
	for spec, want := range map[string]string{
		`$remote_addr $time_local`:                         "lacks the path",
		`$remote_addr [$time_local] $request_uri$status`:   "nothing between them",
		`[$time_local] "$request"`:                         "lacks the client ($remote_addr)",
		`$remote_addr ${time_local "$request"`:             "without its }",
		`$remote_addr [$time_local] "$request" $ $status`:  "without a variable name",
		`$remote_addr "$request" $status $body_bytes_sent`: "lacks a time",
	} {
		if _, err := LogFormatByName("nginx:" + spec); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("nginx:%s: %v, want an error saying %q", spec, err, want)
		}
	}
	if _, err := LogFormatByName("apache"); err == nil || !strings.Contains(err.Error(), LogFormatNames) {
		t.Errorf("an unknown format: %v, want the list of formats", err)
	}
}

// CloudFront delivers gzip files, and Mintlify's events are keyed by their
// event_id: a re-export with other lines around them stores nothing twice.
func TestImportLogFormatsEndToEnd(t *testing.T) {
	s, _, project := newTestService(t)
	ctx := context.Background()
	var cloudfront, mintlify string
	for _, c := range logCases {
		switch c.format {
		case "cloudfront":
			cloudfront = c.text
		case "mintlify":
			mintlify = c.text
		}
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(cloudfront + "\n"))
	zw.Close()
	auto, _ := LogFormatByName("auto")
	st, err := s.ImportLog(ctx, project, &gz, ImportOptions{Format: auto, Trusted: testTrusted})
	if err != nil || st.Format != "cloudfront" || st.Stored != 3 {
		t.Fatalf("a gzip CloudFront log: %+v, %v; want 3 views stored as cloudfront", st, err)
	}
	imp := func(text string) ImportStats {
		t.Helper()
		st, err := s.ImportLog(ctx, project, strings.NewReader(text), ImportOptions{Format: mintlifyFormat{}})
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
	if st := imp(mintlify); st.Stored != 2 {
		t.Fatalf("Mintlify's events: %+v, want 2 views stored", st)
	}
	// The same events re-exported: another order, other bytes, another file.
	lines := strings.Split(mintlify, "\n")
	again := lines[1] + "\n" + strings.Replace(lines[0], `"properties":{}`, `"properties":{"x":1}`, 1) + "\n"
	if st := imp(again); st.Stored != 0 || st.Skipped[SkipDuplicate] != 2 {
		t.Fatalf("Mintlify's events again: %+v, want both imported before", st)
	}
	v, err := s.Views(ctx, project, Query{Limit: MaxLimit})
	if err != nil {
		t.Fatal(err)
	}
	if v.Totals.All() != 5 {
		t.Fatalf("%d views stored, want 5", v.Totals.All())
	}
}
