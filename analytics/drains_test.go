package analytics

import (
	"bytes"
	"compress/flate"
	"compress/gzip"
	"context"
	"crypto/hmac"
	"crypto/sha1"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"strings"
	"testing"
	"time"

	"github.com/folio-docs/folio/model"
)

// The user agents of the drain fixtures.
const (
	uaFirefox = "Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0"
	uaChatGPT = "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; ChatGPT-User/1.0; +https://openai.com/bot"
	uaGPTBot  = "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.1; +https://openai.com/gptbot)"
)

// vercelDrain is a Vercel log drain's JSON delivery, shaped as its Log
// Drains reference documents: a build entry (no proxy), a function's
// request with proxy.userAgent as an array, its stdout line carrying the
// same requestId, a static page whose userAgent is a string (older
// drains), a 404, a stylesheet, a redirect and a background revalidation.
func vercelDrain(at time.Time) string {
	ms := at.UnixMilli()
	return fmt.Sprintf(`[
{"id":"1573817187330377061717300000","deploymentId":"dpl_233NRGRjVZX1caZrXWtz5g1TAksD","source":"build","host":"my-app-abc123.vercel.app","timestamp":%[1]d,"projectId":"gdufoJxB6b9b1fEqr1jUtFkyavUU","level":"info","message":"Build completed successfully","buildId":"bld_cotnkcr76","type":"stdout","projectName":"my-app"},
{"id":"1573817250283254651097202070","deploymentId":"dpl_233NRGRjVZX1caZrXWtz5g1TAksD","source":"lambda","host":"my-app-abc123.vercel.app","timestamp":%[1]d,"projectId":"gdufoJxB6b9b1fEqr1jUtFkyavUU","level":"info","message":"API request processed","entrypoint":"api/index.js","requestId":"643af4e3-975a-4cc7-9e7a-1eda11539d90","statusCode":200,"path":"/docs/[slug]","executionRegion":"sfo1","environment":"production","proxy":{"timestamp":%[1]d,"method":"GET","host":"my-app.vercel.app","path":"/docs/install?ref=nav","userAgent":[%[2]q],"referer":"https://chatgpt.com/","region":"sfo1","statusCode":200,"clientIp":"120.75.16.101","scheme":"https","vercelCache":"MISS"}},
{"id":"1573817250283254651097202071","deploymentId":"dpl_233NRGRjVZX1caZrXWtz5g1TAksD","source":"lambda","host":"my-app-abc123.vercel.app","timestamp":%[1]d,"projectId":"gdufoJxB6b9b1fEqr1jUtFkyavUU","level":"info","message":"rendered /docs/install","requestId":"643af4e3-975a-4cc7-9e7a-1eda11539d90","type":"stdout"},
{"id":"1573817250283254651097202072","deploymentId":"dpl_233NRGRjVZX1caZrXWtz5g1TAksD","source":"static","host":"my-app-abc123.vercel.app","timestamp":%[1]d,"projectId":"gdufoJxB6b9b1fEqr1jUtFkyavUU","level":"info","proxy":{"timestamp":%[1]d,"method":"GET","host":"my-app.vercel.app","path":"/docs/quickstart","userAgent":%[3]q,"region":"sfo1","statusCode":200,"clientIp":"2001:db8::7","scheme":"https","vercelCache":"HIT"}},
{"id":"1573817250283254651097202073","deploymentId":"dpl_233NRGRjVZX1caZrXWtz5g1TAksD","source":"static","host":"my-app-abc123.vercel.app","timestamp":%[1]d,"projectId":"gdufoJxB6b9b1fEqr1jUtFkyavUU","level":"warning","proxy":{"timestamp":%[1]d,"method":"GET","host":"my-app.vercel.app","path":"/nope","userAgent":[%[3]q],"region":"sfo1","statusCode":404,"clientIp":"120.75.16.102"}},
{"id":"1573817250283254651097202074","deploymentId":"dpl_233NRGRjVZX1caZrXWtz5g1TAksD","source":"static","host":"my-app-abc123.vercel.app","timestamp":%[1]d,"projectId":"gdufoJxB6b9b1fEqr1jUtFkyavUU","level":"info","proxy":{"timestamp":%[1]d,"method":"GET","host":"my-app.vercel.app","path":"/_next/static/site.css","userAgent":[%[3]q],"region":"sfo1","statusCode":200,"clientIp":"120.75.16.102"}},
{"id":"1573817250283254651097202075","deploymentId":"dpl_233NRGRjVZX1caZrXWtz5g1TAksD","source":"redirect","host":"my-app-abc123.vercel.app","timestamp":%[1]d,"projectId":"gdufoJxB6b9b1fEqr1jUtFkyavUU","level":"info","proxy":{"timestamp":%[1]d,"method":"GET","host":"my-app.vercel.app","path":"/old","userAgent":[%[3]q],"region":"sfo1","statusCode":308,"clientIp":"120.75.16.102"}},
{"id":"1573817250283254651097202076","deploymentId":"dpl_233NRGRjVZX1caZrXWtz5g1TAksD","source":"lambda","host":"my-app-abc123.vercel.app","timestamp":%[1]d,"projectId":"gdufoJxB6b9b1fEqr1jUtFkyavUU","level":"info","requestId":"rv-1","proxy":{"timestamp":%[1]d,"method":"GET","host":"my-app.vercel.app","path":"/docs/install","userAgent":["Vercel Revalidation"],"region":"sfo1","statusCode":-1,"clientIp":"76.76.21.21"}}
]`, ms, uaChatGPT, uaFirefox)
}

// netlifyDrain is a Netlify log drain's NDJSON delivery: traffic entries
// (log_type "traffic", url absolute) beside function and deploy entries.
func netlifyDrain(at time.Time) string {
	ts := at.Format(time.RFC3339Nano)
	return fmt.Sprintf(`{"account_id":"5f1a","client_ip":"198.51.100.4","content_type":"text/html","country":"DE","deploy_id":"6650","duration":12,"log_type":"traffic","method":"GET","referrer":"https://www.google.com/","request_id":"01HX7N6Q3ZC2","request_size":512,"response_size":20480,"site_id":"a1b2","status_code":200,"timestamp":%[1]q,"url":"https://docs.example.com/guides/setup?x=1","user_agent":%[2]q}
{"account_id":"5f1a","client_ip":"198.51.100.5","content_type":"text/markdown","country":"US","deploy_id":"6650","duration":3,"log_type":"traffic","method":"GET","referrer":"","request_id":"01HX7N6Q3ZC3","site_id":"a1b2","status_code":200,"timestamp":%[1]q,"url":"https://docs.example.com/llms.txt","user_agent":%[3]q}
{"account_id":"5f1a","client_ip":"198.51.100.6","log_type":"traffic","method":"POST","request_id":"01HX7N6Q3ZC4","site_id":"a1b2","status_code":200,"timestamp":%[1]q,"url":"https://docs.example.com/.netlify/functions/search","user_agent":%[2]q}
{"account_id":"5f1a","deploy_id":"6650","duration":40,"function_name":"search","function_type":"regular","level":"INFO","log_type":"functions","message":"searched","method":"POST","path":"/.netlify/functions/search","request_id":"01HX7N6Q3ZC4","site_id":"a1b2","status_code":200,"timestamp":%[1]q}
{"account_id":"5f1a","deploy_id":"6650","deploy_section":"building","level":"info","log_type":"deploys","message":"Build script success","site_id":"a1b2","timestamp":%[1]q}
`, ts, uaFirefox, uaChatGPT)
}

// cloudflareDrain is a Logpush http_requests batch (NDJSON, gzip), with
// EdgeStartTimestamp in each of Logpush's timestamp formats, and Logpush's
// test message.
func cloudflareDrain(t testing.TB, at time.Time) []byte {
	lines := fmt.Sprintf(`{"content":"test"}
{"ClientIP":"203.0.113.9","ClientRequestHost":"docs.example.com","ClientRequestMethod":"GET","ClientRequestURI":"/reference/api?lang=go","ClientRequestUserAgent":%[4]q,"ClientRequestReferer":"https://perplexity.ai/","EdgeResponseStatus":200,"EdgeStartTimestamp":%[1]d,"RayID":"8abc1234def56789"}
{"ClientIP":"203.0.113.10","ClientRequestHost":"docs.example.com","ClientRequestMethod":"GET","ClientRequestURI":"/reference/cli","ClientRequestUserAgent":%[5]q,"EdgeResponseStatus":200,"EdgeStartTimestamp":%[2]d,"RayID":"8abc1234def56790"}
{"ClientIP":"203.0.113.11","ClientRequestHost":"docs.example.com","ClientRequestMethod":"GET","ClientRequestURI":"/reference/config","ClientRequestUserAgent":%[6]q,"EdgeResponseStatus":200,"EdgeStartTimestamp":%[3]q}
{"ClientIP":"203.0.113.11","ClientRequestHost":"docs.example.com","ClientRequestMethod":"GET","ClientRequestURI":"/favicon.ico","ClientRequestUserAgent":%[6]q,"EdgeResponseStatus":200,"EdgeStartTimestamp":%[3]q}
`, at.UnixNano(), at.Unix(), at.Format(time.RFC3339), uaChatGPT, uaGPTBot, uaFirefox)
	return gzipped(t, lines)
}

func gzipped(t testing.TB, s string) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	if _, err := zw.Write([]byte(s)); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// gzipOfSpaces is a gzip member that decodes to n spaces, made without
// compressing n bytes (under -race, compressing 64 MiB costs seconds of
// CPU): 1 MiB compressed once and flushed, which leaves a byte-aligned run
// of non-final deflate blocks referring only to themselves, repeated, then
// the rest in the final block, between gzip's header and its trailer.
func gzipOfSpaces(t testing.TB, n int) []byte {
	t.Helper()
	const chunk = 1 << 20
	deflate := func(size int, final bool) []byte {
		var b bytes.Buffer
		zw, err := flate.NewWriter(&b, flate.BestCompression)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := zw.Write(bytes.Repeat([]byte{' '}, size)); err != nil {
			t.Fatal(err)
		}
		if final {
			err = zw.Close()
		} else {
			err = zw.Flush()
		}
		if err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}
	out := []byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 255} // gzip, deflate, no name, no time, unknown OS
	block := deflate(chunk, false)
	spaces := bytes.Repeat([]byte{' '}, chunk)
	sum := crc32.NewIEEE()
	for range n / chunk {
		out = append(out, block...)
		sum.Write(spaces)
	}
	out = append(out, deflate(n%chunk, true)...)
	sum.Write(spaces[:n%chunk])
	out = binary.LittleEndian.AppendUint32(out, sum.Sum32())
	return binary.LittleEndian.AppendUint32(out, uint32(n))
}

func TestParseDrains(t *testing.T) {
	now := time.Now()
	at := now.Add(-time.Hour).Truncate(time.Second)
	ndjson := strings.Join(strings.Split(strings.Trim(vercelDrain(at), "[]\n"), ",\n{"), "\n{")
	cases := []struct {
		name, provider string
		body           []byte
		want           []Event
		skipped        map[string]int
	}{
		{"vercel JSON", DrainVercel, []byte(vercelDrain(at)),
			[]Event{
				{Path: "/docs/install", At: at, UserAgent: uaChatGPT, IP: "120.75.16.101", Referrer: "https://chatgpt.com/", Host: "my-app.vercel.app"},
				{Path: "/docs/quickstart", At: at, UserAgent: uaFirefox, IP: "2001:db8::7", Host: "my-app.vercel.app"},
			},
			map[string]int{SkipEvent: 2, SkipStatus: 3, SkipAsset: 1}},
		{"vercel NDJSON", DrainVercel, []byte(ndjson),
			[]Event{
				{Path: "/docs/install", At: at, UserAgent: uaChatGPT, IP: "120.75.16.101", Referrer: "https://chatgpt.com/", Host: "my-app.vercel.app"},
				{Path: "/docs/quickstart", At: at, UserAgent: uaFirefox, IP: "2001:db8::7", Host: "my-app.vercel.app"},
			},
			map[string]int{SkipEvent: 2, SkipStatus: 3, SkipAsset: 1}},
		{"vercel gzip", DrainVercel, gzipped(t, vercelDrain(at)),
			[]Event{
				{Path: "/docs/install", At: at, UserAgent: uaChatGPT, IP: "120.75.16.101", Referrer: "https://chatgpt.com/", Host: "my-app.vercel.app"},
				{Path: "/docs/quickstart", At: at, UserAgent: uaFirefox, IP: "2001:db8::7", Host: "my-app.vercel.app"},
			},
			map[string]int{SkipEvent: 2, SkipStatus: 3, SkipAsset: 1}},
		{"netlify NDJSON", DrainNetlify, []byte(netlifyDrain(at)),
			[]Event{
				{Path: "/guides/setup", At: at, UserAgent: uaFirefox, IP: "198.51.100.4", Referrer: "https://www.google.com/", Host: "docs.example.com"},
				{Path: "/llms.txt", At: at, UserAgent: uaChatGPT, IP: "198.51.100.5", Host: "docs.example.com"},
			},
			map[string]int{SkipEvent: 2, SkipMethod: 1}},
		{"netlify JSON", DrainNetlify, []byte("[" + strings.ReplaceAll(strings.TrimSpace(netlifyDrain(at)), "}\n{", "},\n{") + "]"),
			[]Event{
				{Path: "/guides/setup", At: at, UserAgent: uaFirefox, IP: "198.51.100.4", Referrer: "https://www.google.com/", Host: "docs.example.com"},
				{Path: "/llms.txt", At: at, UserAgent: uaChatGPT, IP: "198.51.100.5", Host: "docs.example.com"},
			},
			map[string]int{SkipEvent: 2, SkipMethod: 1}},
		{"cloudflare gzip NDJSON", DrainCloudflare, cloudflareDrain(t, at),
			[]Event{
				{Path: "/reference/api", At: at, UserAgent: uaChatGPT, IP: "203.0.113.9", Referrer: "https://perplexity.ai/", Host: "docs.example.com"},
				{Path: "/reference/cli", At: at, UserAgent: uaGPTBot, IP: "203.0.113.10", Host: "docs.example.com"},
				{Path: "/reference/config", At: at, UserAgent: uaFirefox, IP: "203.0.113.11", Host: "docs.example.com"},
			},
			map[string]int{SkipEvent: 1, SkipAsset: 1}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			events, res, err := ParseDrain(c.provider, c.body, now)
			if err != nil {
				t.Fatal(err)
			}
			for i := range events {
				if len(events[i].LineHash) != 16 {
					t.Errorf("event %d has key %x, want 16 bytes", i, events[i].LineHash)
				}
				events[i].LineHash = nil
			}
			if fmt.Sprint(events) != fmt.Sprint(c.want) {
				t.Errorf("events\n%v\nwant\n%v", events, c.want)
			}
			total := 0
			for _, n := range c.skipped {
				total += n
			}
			if fmt.Sprint(res.SkippedBy) != fmt.Sprint(c.skipped) || res.Skipped != total {
				t.Errorf("skipped %d %v, want %d %v", res.Skipped, res.SkippedBy, total, c.skipped)
			}
		})
	}
}

func TestParseDrainRefusesBadBodies(t *testing.T) {
	now := time.Now()
	for _, c := range []struct {
		name, body, want string
	}{
		{"truncated array", `[{"id":"1","proxy":{}}, {"id":"2"`, "Entry 2 of the delivery is not JSON"},
		{"unclosed array", `[{"id":"1"}`, "the array is not closed"},
		{"after the array", `[{"id":"1"}] {"id":"2"}`, "data after the array"},
		{"bad NDJSON line", "{\"id\":\"1\"}\n{\"id\":\n", "Entry 2 of the delivery is not JSON"},
		{"plain text", "hello", "Entry 1 of the delivery is not JSON"},
		{"broken gzip", "\x1f\x8b\x01\x02\x03", "bad gzip"},
	} {
		_, _, err := ParseDrain(DrainVercel, []byte(c.body), now)
		var fields model.FieldErrors
		if !errors.As(err, &fields) || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "Nothing of it was stored.") {
			t.Errorf("%s: %v, want a refused body saying %q", c.name, err, c.want)
		}
	}
	many := strings.Repeat("{\"content\":\"x\"}\n", MaxDrainEntries+1)
	if _, _, err := ParseDrain(DrainCloudflare, []byte(many), now); !errors.Is(err, model.ErrDrainTooLarge) {
		t.Errorf("%d entries: %v, want ErrDrainTooLarge", MaxDrainEntries+1, err)
	}
	if _, _, err := ParseDrain(DrainCloudflare, gzipOfSpaces(t, MaxDrainDecoded+1), now); !errors.Is(err, model.ErrDrainTooLarge) {
		t.Errorf("a gzip of %d bytes: %v, want ErrDrainTooLarge", MaxDrainDecoded+1, err)
	}
	if _, _, err := ParseDrain("heroku", []byte("[]"), now); err == nil {
		t.Error("an unknown drain was parsed")
	}
}

func TestParseDrainSkipsWhatCannotBeCounted(t *testing.T) {
	now := time.Now()
	ts := now.Add(-time.Minute).Format(time.RFC3339)
	body := fmt.Sprintf(`{"log_type":"traffic","method":"GET","status_code":200,"url":"/a","timestamp":%[1]q,"request_id":"pii-excluded"}
{"log_type":"traffic","method":"GET","status_code":200,"url":"/a","timestamp":%[1]q,"client_ip":"198.51.100.1","user_agent":%[2]q,"request_id":"no-ua"}
{"log_type":"traffic","method":"GET","status_code":200,"url":"/a","timestamp":"yesterday","client_ip":"198.51.100.1","user_agent":%[3]q}
{"log_type":"traffic","method":"GET","status_code":200,"url":"/a","timestamp":%[4]q,"client_ip":"198.51.100.1","user_agent":%[3]q}
{"log_type":"traffic","method":"GET","status_code":200,"url":"/a","timestamp":%[1]q,"client_ip":"not-an-ip","user_agent":%[3]q}
{"log_type":"traffic","method":"GET","status_code":200,"url":"docs","timestamp":%[1]q,"client_ip":"198.51.100.1","user_agent":%[3]q}
"a string, not an entry"
`, ts, "", uaFirefox, now.Add(time.Hour).Format(time.RFC3339))
	events, res, err := ParseDrain(DrainNetlify, []byte(body), now)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{SkipNoClient: 2, SkipTime: 2, SkipMalformed: 1, SkipPath: 1, SkipEvent: 1}
	if len(events) != 0 || fmt.Sprint(res.SkippedBy) != fmt.Sprint(want) {
		t.Fatalf("%d events, skipped %v; want none, %v", len(events), res.SkippedBy, want)
	}
}

func TestRecordDrainStoresARedeliveryOnce(t *testing.T) {
	s, _, project := newTestService(t)
	ctx := context.Background()
	at := time.Now().Add(-time.Hour).Truncate(time.Second)
	// Two identical requests without a RayID in one batch are two views.
	twice := fmt.Sprintf(`{"ClientIP":"203.0.113.20","ClientRequestMethod":"GET","ClientRequestURI":"/same","ClientRequestUserAgent":%q,"EdgeResponseStatus":200,"EdgeStartTimestamp":%d}`, uaFirefox, at.UnixNano())
	deliveries := []struct {
		provider string
		body     []byte
		views    int
	}{
		{DrainVercel, []byte(vercelDrain(at)), 2},
		{DrainNetlify, []byte(netlifyDrain(at)), 2},
		{DrainCloudflare, cloudflareDrain(t, at), 3},
		{DrainCloudflare, gzipped(t, twice+"\n"+twice+"\n"), 2},
	}
	stored := 0
	for _, d := range deliveries {
		first, err := s.RecordDrain(ctx, project, d.provider, d.body)
		if err != nil {
			t.Fatal(err)
		}
		again, err := s.RecordDrain(ctx, project, d.provider, d.body)
		if err != nil {
			t.Fatal(err)
		}
		if first.Accepted != d.views || first.Duplicates != 0 || again.Accepted != d.views || again.Duplicates != d.views {
			t.Errorf("%s: first %+v, again %+v; want %d accepted, then all of them duplicates", d.provider, first, again, d.views)
		}
		stored += d.views
	}
	// Vercel logs one request twice (its stdout line carries the proxy of
	// the request in some drains): the requestId keeps it one view.
	dup := strings.Replace(vercelDrain(at), `"requestId":"643af4e3-975a-4cc7-9e7a-1eda11539d90","type":"stdout"}`,
		`"requestId":"643af4e3-975a-4cc7-9e7a-1eda11539d90","type":"stdout","proxy":{"timestamp":1,"method":"GET","path":"/docs/install","userAgent":["x"],"clientIp":"120.75.16.101"}}`, 1)
	res, err := s.RecordDrain(ctx, project, DrainVercel, []byte(dup))
	if err != nil {
		t.Fatal(err)
	}
	if res.Accepted != 3 || res.Duplicates != 3 {
		t.Errorf("a request logged twice: %+v, want 3 accepted, all stored before", res)
	}

	got, err := s.Views(ctx, project, Query{Limit: 250})
	if err != nil {
		t.Fatal(err)
	}
	// Human: Firefox on Vercel, Netlify and Cloudflare (1 + 2); AI:
	// ChatGPT-User on each; GPTBot is a training crawler.
	want := ViewCounts{Human: 5, AI: 3, AITraining: 1, Total: 8}
	if got.Totals != want || got.Totals.All() != stored {
		t.Fatalf("views %+v, want %+v (%d stored)", got.Totals, want, stored)
	}
}

func TestVerifyVercelSignature(t *testing.T) {
	body := []byte(`[{"id":"1"}]`)
	m := hmac.New(sha1.New, []byte("drain-secret"))
	m.Write(body)
	sig := hex.EncodeToString(m.Sum(nil))
	for _, c := range []struct {
		name, secret, sig string
		body              []byte
		want              bool
	}{
		{"signed", "drain-secret", sig, body, true},
		{"upper-case hex", "drain-secret", strings.ToUpper(sig), body, true},
		{"another secret", "other-secret", sig, body, false},
		{"another body", "drain-secret", sig, []byte(`[{"id":"2"}]`), false},
		{"no signature", "drain-secret", "", body, false},
		{"not hex", "drain-secret", "zz" + sig[2:], body, false},
		{"truncated", "drain-secret", sig[:20], body, false},
		{"no secret", "", sig, body, false},
	} {
		if got := VerifyVercelSignature(c.secret, c.body, c.sig); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}
