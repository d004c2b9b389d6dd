package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/hmac"
	"crypto/sha1"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/folio-docs/folio/analytics"
	"github.com/folio-docs/folio/model"
)

// The user agents drains report in these tests: a browser, an AI agent
// reading for a person.
const (
	drainBrowser = "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_4) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Safari/605.1.15"
	drainAgent   = "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; Claude-User/1.0; +Claude-User@anthropic.com"
)

// drainServer is Folio over real HTTP with a project, its ingest key (the
// key a drain holds) and its write key (for the exports).
type drainServer struct {
	*testServer
	ingest string
}

func newDrainServer(t *testing.T) drainServer {
	t.Helper()
	s := newTestServer(t)
	ingest, _, err := s.app.keys.Issue(context.Background(), s.project.ID, "drains", model.ScopeIngest, "never")
	if err != nil {
		t.Fatal(err)
	}
	return drainServer{testServer: s, ingest: ingest}
}

// drainAnswer is a drain's 200 body, or an error's.
type drainAnswer struct {
	Accepted, Skipped, Duplicates int
	SkippedBy                     map[string]int
	Error, Code                   string
}

// post sends a delivery to a drain with key and the headers given (name,
// value, …), as the provider would.
func (s drainServer) post(provider, key string, body []byte, header ...string) (*http.Response, drainAnswer) {
	s.t.Helper()
	req, _ := http.NewRequest(http.MethodPost, s.URL+"/v1/analytics/"+s.project.ID+"/drains/"+provider, bytes.NewReader(body))
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	var a drainAnswer
	if err := json.Unmarshal(raw, &a); err != nil {
		s.t.Fatalf("POST drains/%s: %d %q is not JSON", provider, res.StatusCode, raw)
	}
	return res, a
}

// views is the project's views export totals (human, ai, all classes).
func (s drainServer) views() analytics.ViewCounts {
	s.t.Helper()
	var v struct{ Totals analytics.ViewCounts }
	s.expect(200, "GET", "/v1/analytics/{p}/views", "", &v)
	return v.Totals
}

func signVercel(secret string, body []byte) string {
	m := hmac.New(sha1.New, []byte(secret))
	m.Write(body)
	return hex.EncodeToString(m.Sum(nil))
}

func gzipBytes(t *testing.T, b []byte) []byte {
	t.Helper()
	var out bytes.Buffer
	// The fastest level: the server reads any level alike, and the body of
	// 100,001 entries is 30 MB to compress under -race.
	zw, err := gzip.NewWriterLevel(&out, gzip.BestSpeed)
	if err != nil {
		t.Fatal(err)
	}
	zw.Write(b)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// vercelBatch is a Vercel drain delivery as its reference documents it: a
// build line, then for each path a static request from a browser and a
// function request from an agent (proxy.userAgent an array), and the
// function's stdout line.
func vercelBatch(at time.Time, paths ...string) []byte {
	var entries []string
	entries = append(entries, fmt.Sprintf(`{"id":"b-%d","deploymentId":"dpl_1","source":"build","host":"docs-abc.vercel.app","timestamp":%d,"projectId":"prj_1","level":"info","message":"Build completed","buildId":"bld_1","type":"stdout"}`, at.UnixNano(), at.UnixMilli()))
	for i, p := range paths {
		ms := at.UnixMilli() + int64(i)
		entries = append(entries,
			fmt.Sprintf(`{"id":"s-%[1]s","deploymentId":"dpl_1","source":"static","host":"docs-abc.vercel.app","timestamp":%[2]d,"projectId":"prj_1","level":"info","proxy":{"timestamp":%[2]d,"method":"GET","host":"docs.example.com","path":%[3]q,"userAgent":[%[4]q],"referer":"https://www.google.com/","region":"fra1","statusCode":200,"clientIp":"203.0.113.%[5]d","scheme":"https","vercelCache":"HIT"}}`, p, ms, p, drainBrowser, i%250+1),
			fmt.Sprintf(`{"id":"l-%[1]s","deploymentId":"dpl_1","source":"lambda","host":"docs-abc.vercel.app","timestamp":%[2]d,"projectId":"prj_1","level":"info","requestId":"req-%[1]s","statusCode":200,"proxy":{"timestamp":%[2]d,"method":"GET","host":"docs.example.com","path":%[3]q,"userAgent":[%[4]q],"region":"fra1","statusCode":200,"clientIp":"198.51.100.%[5]d","scheme":"https"}}`, p, ms, p+"?format=md", drainAgent, i%250+1),
			fmt.Sprintf(`{"id":"o-%[1]s","deploymentId":"dpl_1","source":"lambda","host":"docs-abc.vercel.app","timestamp":%[2]d,"projectId":"prj_1","level":"info","requestId":"req-%[1]s","message":"rendered","type":"stdout"}`, p, ms))
	}
	return []byte("[" + strings.Join(entries, ",\n") + "]")
}

func TestVercelDrain(t *testing.T) {
	t.Parallel()
	s := newDrainServer(t)
	ctx := context.Background()
	at := time.Now().Add(-time.Hour).Truncate(time.Millisecond)
	batch := vercelBatch(at, "/docs/a", "/docs/b")

	// Before a secret is set, Vercel's endpoint verification (an empty
	// delivery) still passes, echoing the code it sends; deliveries do not.
	res, a := s.post("vercel", s.ingest, nil, "x-vercel-verify", "code-sent")
	if res.StatusCode != 200 || res.Header.Get("x-vercel-verify") != "code-sent" || a.Accepted != 0 {
		t.Fatalf("verification without settings: %d %+v, x-vercel-verify %q", res.StatusCode, a, res.Header.Get("x-vercel-verify"))
	}
	if res, a := s.post("vercel", s.ingest, batch, "x-vercel-signature", signVercel("guess", batch)); res.StatusCode != 401 || !strings.Contains(a.Error, "no drain secret") {
		t.Fatalf("a delivery before a secret is set: %d %+v, want 401 naming the missing secret", res.StatusCode, a)
	}
	secret, err := s.app.analytics.SetDrainSecret(ctx, s.project.ID, "")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.app.analytics.SetVercelVerify(ctx, s.project.ID, "vercel-verify-code-42"); err != nil {
		t.Fatal(err)
	}
	res, _ = s.post("vercel", s.ingest, nil)
	if res.StatusCode != 200 || res.Header.Get("x-vercel-verify") != "vercel-verify-code-42" {
		t.Fatalf("verification: %d, x-vercel-verify %q, want 200 with the project's code", res.StatusCode, res.Header.Get("x-vercel-verify"))
	}

	// Unsigned and badly signed deliveries store nothing.
	for name, sig := range map[string]string{"unsigned": "", "signed with another secret": signVercel("not-the-secret", batch),
		"signature of another body": signVercel(secret, vercelBatch(at, "/docs/c"))} {
		res, a := s.post("vercel", s.ingest, batch, "x-vercel-signature", sig)
		if res.StatusCode != 401 || a.Code != "unauthorized" {
			t.Errorf("%s: %d %+v, want 401 unauthorized", name, res.StatusCode, a)
		}
	}
	if v := s.views(); v.All() != 0 {
		t.Fatalf("after refused deliveries: %+v, want nothing stored", v)
	}

	// A signed delivery: per path a person and an agent; the build and
	// stdout lines are skipped; the answer carries the verification code.
	res, a = s.post("vercel", s.ingest, batch, "x-vercel-signature", signVercel(secret, batch), "Content-Type", "application/json")
	if res.StatusCode != 200 || a.Accepted != 4 || a.Duplicates != 0 || a.Skipped != 3 || a.SkippedBy[analytics.SkipEvent] != 3 {
		t.Fatalf("signed delivery: %d %+v, want 4 accepted, 3 skipped (not requests)", res.StatusCode, a)
	}
	if res.Header.Get("x-vercel-verify") != "vercel-verify-code-42" {
		t.Errorf("a delivery's answer has x-vercel-verify %q", res.Header.Get("x-vercel-verify"))
	}
	want := analytics.ViewCounts{Human: 2, AI: 2, Total: 4}
	if v := s.views(); v != want {
		t.Fatalf("views %+v, want %+v", v, want)
	}

	// Vercel retries: the same batch again, and as NDJSON, stores nothing.
	ndjson := bytes.ReplaceAll(bytes.Trim(batch, "[]"), []byte(",\n{"), []byte("\n{"))
	for name, body := range map[string][]byte{"retried": batch, "retried as NDJSON": ndjson} {
		res, a := s.post("vercel", s.ingest, body, "x-vercel-signature", signVercel(secret, body))
		if res.StatusCode != 200 || a.Accepted != 4 || a.Duplicates != 4 {
			t.Errorf("%s: %d %+v, want 4 accepted, all stored before", name, res.StatusCode, a)
		}
	}
	// Compressed (Vercel's gzip option), signed before compression.
	next := vercelBatch(at, "/docs/c")
	res, a = s.post("vercel", s.ingest, gzipBytes(t, next), "x-vercel-signature", signVercel(secret, next), "Content-Encoding", "gzip")
	if res.StatusCode != 200 || a.Accepted != 2 || a.Duplicates != 0 {
		t.Fatalf("gzip delivery: %d %+v, want 2 accepted", res.StatusCode, a)
	}
	want = analytics.ViewCounts{Human: 3, AI: 3, Total: 6}
	if v := s.views(); v != want {
		t.Fatalf("after retries: views %+v, want %+v", v, want)
	}

	// A body that is not Vercel's format, or over the limit, stores nothing.
	truncated := batch[:len(batch)/2]
	if res, a := s.post("vercel", s.ingest, truncated, "x-vercel-signature", signVercel(secret, truncated)); res.StatusCode != 400 || a.Code != "invalid_request" {
		t.Errorf("a truncated delivery: %d %+v, want 400", res.StatusCode, a)
	}
	var big []string
	for i := 0; len(big)*700 <= analytics.MaxDrainBody; i++ {
		big = append(big, fmt.Sprintf("/big/%d", i))
	}
	huge := vercelBatch(at.Add(time.Minute), big...)
	if res, a := s.post("vercel", s.ingest, huge, "x-vercel-signature", signVercel(secret, huge)); res.StatusCode != 413 || a.Code != "payload_too_large" {
		t.Errorf("a delivery of %d bytes: %d %+v, want 413 payload_too_large", len(huge), res.StatusCode, a)
	}
	if v := s.views(); v != want {
		t.Fatalf("after refused deliveries: views %+v, want %+v", v, want)
	}
}

func TestDrainKeys(t *testing.T) {
	t.Parallel()
	s := newDrainServer(t)
	ctx := context.Background()
	body := []byte(`{"log_type":"deploys","message":"Build script success","timestamp":"2026-01-02T15:04:05Z"}`)
	read, _, err := s.app.keys.Issue(ctx, s.project.ID, "read", model.ScopeRead, "never")
	if err != nil {
		t.Fatal(err)
	}
	other, err := s.app.db.CreateProject(ctx, model.Project{Name: "other", Repository: "acme/other", Ref: "main"})
	if err != nil {
		t.Fatal(err)
	}
	elsewhere, _, err := s.app.keys.Issue(ctx, other.ID, "ingest", model.ScopeIngest, "never")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, key string
		want      int
	}{
		{"an ingest key", s.ingest, 200},
		{"a write key", s.key, 200},
		{"a read key", read, 403},
		{"no key", "", 401},
		{"another project's key", elsewhere, 404},
	} {
		if res, a := s.post("netlify", c.key, body); res.StatusCode != c.want {
			t.Errorf("%s: %d %+v, want %d", c.name, res.StatusCode, a, c.want)
		}
	}
	// An ingest key opens the events API and nothing else.
	ev := fmt.Sprintf(`{"events":[{"path":"/a","timestamp":%q,"userAgent":%q,"ip":"192.0.2.1"}]}`, time.Now().Add(-time.Minute).Format(time.RFC3339), drainBrowser)
	for _, c := range []struct{ method, path, body string }{
		{"POST", "/v1/analytics/{p}/events", ev},
	} {
		s.expect(200, c.method, c.path, c.body, nil, "Authorization", "Bearer "+s.ingest)
	}
	for _, c := range []struct{ method, path, body string }{
		{"GET", "/v1/analytics/{p}/views", ""},
		{"GET", "/v1/analytics/{p}/visitors", ""},
		{"GET", "/v2/agent/{p}/jobs", ""},
		{"POST", "/v2/agent/{p}/job", `{"prompt":"hi"}`},
	} {
		var e apiError
		s.expect(403, c.method, c.path, c.body, &e, "Authorization", "Bearer "+s.ingest)
		if e.Code != "forbidden" || !strings.Contains(e.Error, "ingest") {
			t.Errorf("%s %s with an ingest key: %+v", c.method, c.path, e)
		}
	}
}

func TestNetlifyDrain(t *testing.T) {
	t.Parallel()
	s := newDrainServer(t)
	ts := time.Now().Add(-time.Hour).UTC().Format(time.RFC3339Nano)
	// Netlify's General HTTP endpoint in JSON: traffic entries among
	// function and deploy logs, no signature.
	body := []byte(fmt.Sprintf(`[
{"account_id":"a1","client_ip":"198.51.100.4","content_type":"text/html","country":"DE","deploy_id":"d1","duration":12,"log_type":"traffic","method":"GET","referrer":"https://claude.ai/","request_id":"01HX7N6Q3ZC2","request_size":512,"response_size":20480,"site_id":"s1","status_code":200,"timestamp":%[1]q,"url":"https://docs.example.com/guides/setup","user_agent":%[2]q},
{"account_id":"a1","client_ip":"198.51.100.5","log_type":"traffic","method":"GET","request_id":"01HX7N6Q3ZC3","site_id":"s1","status_code":200,"timestamp":%[1]q,"url":"https://docs.example.com/guides/setup","user_agent":%[3]q},
{"account_id":"a1","client_ip":"198.51.100.5","log_type":"traffic","method":"GET","request_id":"01HX7N6Q3ZC5","site_id":"s1","status_code":404,"timestamp":%[1]q,"url":"https://docs.example.com/missing","user_agent":%[3]q},
{"account_id":"a1","deploy_id":"d1","function_name":"search","function_type":"regular","level":"INFO","log_type":"functions","message":"searched","method":"POST","path":"/.netlify/functions/search","request_id":"01HX7N6Q3ZC4","site_id":"s1","status_code":200,"timestamp":%[1]q},
{"account_id":"a1","deploy_id":"d1","deploy_section":"building","level":"info","log_type":"deploys","message":"Build script success","site_id":"s1","timestamp":%[1]q}
]`, ts, drainAgent, drainBrowser))
	for i, wantDup := range []int{0, 2} { // delivered, then retried
		res, a := s.post("netlify", s.ingest, body, "Content-Type", "application/json")
		if res.StatusCode != 200 || a.Accepted != 2 || a.Duplicates != wantDup || a.Skipped != 3 ||
			a.SkippedBy[analytics.SkipEvent] != 2 || a.SkippedBy[analytics.SkipStatus] != 1 {
			t.Fatalf("delivery %d: %d %+v, want 2 accepted (%d before), 2 not requests and a 404 skipped", i+1, res.StatusCode, a, wantDup)
		}
	}
	if v, want := s.views(), (analytics.ViewCounts{Human: 1, AI: 1, Total: 2}); v != want {
		t.Fatalf("views %+v, want %+v", v, want)
	}
	if res, a := s.post("netlify", s.ingest, []byte("not json")); res.StatusCode != 400 {
		t.Errorf("not JSON: %d %+v, want 400", res.StatusCode, a)
	}
}

// logpushBatch is a Logpush http_requests batch of n requests, NDJSON,
// EdgeStartTimestamp in the default unixnano, with a RayID each.
func logpushBatch(at time.Time, n int) []byte {
	var b bytes.Buffer
	b.Grow(n * 330) // an entry is about 320 bytes
	for i := range n {
		ua := drainBrowser
		if i%2 == 1 {
			ua = drainAgent
		}
		fmt.Fprintf(&b, `{"ClientIP":"203.0.113.%d","ClientRequestHost":"docs.example.com","ClientRequestMethod":"GET","ClientRequestURI":"/p/%d","ClientRequestUserAgent":%q,"ClientRequestReferer":"","EdgeResponseStatus":200,"EdgeStartTimestamp":%d,"RayID":"%016x"}`+"\n",
			i%250+1, i%40, ua, at.UnixNano()+int64(i), i)
	}
	return b.Bytes()
}

func TestCloudflareDrain(t *testing.T) {
	t.Parallel()
	s := newDrainServer(t)
	at := time.Now().Add(-time.Hour)
	// What Logpush sends when the job is created: a test message.
	test := gzipBytes(t, []byte(`{"content":"test"}`+"\n"))
	if res, a := s.post("cloudflare", s.ingest, test, "Content-Encoding", "gzip"); res.StatusCode != 200 || a.Accepted != 0 || a.Skipped != 1 {
		t.Fatalf("Logpush's test message: %d %+v, want 200, 1 skipped", res.StatusCode, a)
	}
	batch := gzipBytes(t, logpushBatch(at, 1000))
	for i, wantDup := range []int{0, 1000} {
		res, a := s.post("cloudflare", s.ingest, batch, "Content-Encoding", "gzip", "Content-Type", "text/plain; charset=utf-8")
		if res.StatusCode != 200 || a.Accepted != 1000 || a.Duplicates != wantDup || a.Skipped != 0 {
			t.Fatalf("batch delivery %d: %d %+v, want 1000 accepted (%d before)", i+1, res.StatusCode, a, wantDup)
		}
	}
	if v, want := s.views(), (analytics.ViewCounts{Human: 500, AI: 500, Total: 1000}); v != want {
		t.Fatalf("views %+v, want %+v", v, want)
	}
	// Over the entry limit (a job configured past 100,000 records): 413,
	// nothing stored, though its gzip is small.
	over := gzipBytes(t, logpushBatch(at.Add(time.Minute), analytics.MaxDrainEntries+1))
	if res, a := s.post("cloudflare", s.ingest, over); res.StatusCode != 413 || a.Code != "payload_too_large" {
		t.Fatalf("%d entries: %d %+v, want 413", analytics.MaxDrainEntries+1, res.StatusCode, a)
	}
	if v := s.views(); v.All() != 1000 {
		t.Fatalf("after an oversized batch: %+v, want the 1000 views only", v)
	}
}

// TestVercelDrainSetUpFromTheCLI sets a project up for Vercel's drain with
// the CLI alone (a new drain secret, the verification code, an ingest
// key) and posts a signed delivery to folio serve.
func TestVercelDrainSetUpFromTheCLI(t *testing.T) {
	t.Parallel()
	te := newTestEnv(t)
	pid := te.must(t, "", "project", "create", "--name", "Docs", "--repo", newDocsRepo(t))
	secret := te.must(t, "", "project", "update", pid, "--new-drain-secret")
	if len(secret) != 40 || strings.Contains(secret, pid) {
		t.Fatalf("--new-drain-secret printed %q, want only the secret", secret)
	}
	if out := te.must(t, "", "project", "update", pid, "--vercel-verify", "vv-123"); out != pid {
		t.Fatalf("--vercel-verify printed %q, want the project id", out)
	}
	for _, bad := range []struct {
		stdin string
		args  []string
		want  string
	}{
		{"short\n", []string{"--drain-secret-stdin"}, "--drain-secret-stdin: A drain secret is 8 to 256"},
		{"", []string{"--drain-secret-stdin"}, "standard input is empty"},
		{"", []string{"--vercel-verify", "two words"}, "--vercel-verify: The Vercel verification code is"},
		{"a-secret-of-mine\n", []string{"--drain-secret-stdin", "--new-drain-secret"}, "not both"},
	} {
		code, out, errs := te.folio(t, bad.stdin, append([]string{"project", "update", pid}, bad.args...)...)
		if code == 0 || out != "" || !strings.Contains(errs, bad.want) {
			t.Errorf("project update %v: exit %d, stdout %q, stderr %q; want it refused with %q", bad.args, code, out, errs, bad.want)
		}
	}
	key := te.must(t, "", "key", "create", "--project", pid, "--scope", "ingest")
	if list := te.must(t, "", "key", "list", "--project", pid); !strings.Contains(list, "ingest") {
		t.Fatalf("key list does not show the ingest scope:\n%s", list)
	}

	base, _ := startServe(t, te)
	post := func(body []byte, sig string) (*http.Response, drainAnswer) {
		req, _ := http.NewRequest(http.MethodPost, base+"/v1/analytics/"+pid+"/drains/vercel", bytes.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+key)
		req.Header.Set("x-vercel-signature", sig)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var a drainAnswer
		json.NewDecoder(res.Body).Decode(&a)
		return res, a
	}
	if res, _ := post(nil, ""); res.StatusCode != 200 || res.Header.Get("x-vercel-verify") != "vv-123" {
		t.Fatalf("verification: %d, x-vercel-verify %q", res.StatusCode, res.Header.Get("x-vercel-verify"))
	}
	body := vercelBatch(time.Now().Add(-time.Minute), "/docs/cli")
	if res, a := post(body, signVercel(secret, body)); res.StatusCode != 200 || a.Accepted != 2 {
		t.Fatalf("a delivery signed with the secret the CLI made: %d %+v, want 2 accepted", res.StatusCode, a)
	}
	// A secret brought from Vercel replaces it.
	te.must(t, "vercel-made-secret\n", "project", "update", pid, "--drain-secret-stdin")
	if res, a := post(body, signVercel(secret, body)); res.StatusCode != 401 {
		t.Fatalf("a delivery signed with the replaced secret: %d %+v, want 401", res.StatusCode, a)
	}
	if res, a := post(body, signVercel("vercel-made-secret", body)); res.StatusCode != 200 || a.Duplicates != 2 {
		t.Fatalf("the same delivery signed with the new secret: %d %+v, want 200, stored before", res.StatusCode, a)
	}
}

// TestDrainSettingsOnTheDashboard sets a project up for drains in the
// browser's forms: the drain URLs, an ingest key, a drain secret made by
// Folio and shown once, one brought from Vercel, the verification code,
// and the secret removed.
func TestDrainSettingsOnTheDashboard(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	p, c := s.project, s.signedIn(t)
	settings := "/projects/" + p.ID
	_, page := s.get(t, c, settings)
	for _, provider := range analytics.DrainProviders {
		if url := "http://folio.test/v1/analytics/" + p.ID + "/drains/" + provider; !strings.Contains(page, ">"+url+"<") {
			t.Errorf("the settings page does not show the %s drain URL %s", provider, url)
		}
	}
	if !strings.Contains(page, "No drain secret") {
		t.Error("the settings page does not say no drain secret is set")
	}

	// The key a platform holds: ingest scope, from the keys page.
	res, page := s.postPage(t, c, "/projects/"+p.ID+"/keys", url.Values{"name": {"vercel"}, "scope": {"ingest"}, "expiry": {"never"}})
	key := between(page, `<code id="new-key">`, "</code>")
	if res.StatusCode != http.StatusCreated || key == "" {
		t.Fatalf("ingest key: %d, key %q", res.StatusCode, key)
	}
	post := func(body []byte, secret string) (*http.Response, drainAnswer) {
		ds := drainServer{testServer: &testServer{Server: s.Server, t: t, project: p}, ingest: key}
		return ds.post("vercel", key, body, "x-vercel-signature", signVercel(secret, body))
	}
	body := vercelBatch(time.Now().Add(-time.Minute), "/docs/dashboard")

	// A secret Folio makes is shown once, and signs.
	res, page = s.postPage(t, c, "/projects/"+p.ID+"/drains", url.Values{"action": {"new"}})
	secret := between(page, `<code id="new-drain-secret">`, "</code>")
	if res.StatusCode != http.StatusOK || len(secret) != 40 {
		t.Fatalf("new drain secret: %d, secret %q", res.StatusCode, secret)
	}
	if _, page := s.get(t, c, settings); strings.Contains(page, secret) || !strings.Contains(page, "A drain secret is set.") {
		t.Fatal("the settings page shows the drain secret again, or does not say one is set")
	}
	if res, a := post(body, secret); res.StatusCode != 200 || a.Accepted != 2 {
		t.Fatalf("a delivery signed with the dashboard's secret: %d %+v", res.StatusCode, a)
	}

	// A refused secret changes nothing.
	res, page = s.postPage(t, c, "/projects/"+p.ID+"/drains", url.Values{"action": {"save"}, "drain_secret": {"short"}, "vercel_verify": {"code-1"}})
	if res.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(page, "A drain secret is 8 to 256") {
		t.Fatalf("a short secret: %d, want 422 with the rule", res.StatusCode)
	}
	if res, _ := post(body, secret); res.StatusCode != 200 {
		t.Fatalf("after a refused secret, the secret in place: %d", res.StatusCode)
	}

	// Vercel's own secret and its verification code.
	res = s.post(t, c, "/projects/"+p.ID+"/drains", url.Values{"action": {"save"}, "drain_secret": {"vercel-made-secret"}, "vercel_verify": {"code-1"}}, s.sameOrigin())
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("save: %d, want 303", res.StatusCode)
	}
	res, _ = post(nil, "")
	if res.Header.Get("x-vercel-verify") != "code-1" {
		t.Errorf("x-vercel-verify %q, want the code saved", res.Header.Get("x-vercel-verify"))
	}
	if res, _ := post(body, secret); res.StatusCode != 401 {
		t.Errorf("signed with the replaced secret: %d, want 401", res.StatusCode)
	}
	if res, a := post(body, "vercel-made-secret"); res.StatusCode != 200 || a.Duplicates != 2 {
		t.Errorf("signed with Vercel's secret: %d %+v, want 200, stored before", res.StatusCode, a)
	}
	if _, page := s.get(t, c, settings); !strings.Contains(page, `value="code-1"`) {
		t.Error("the settings page does not show the verification code")
	}

	// Removed: Vercel deliveries are refused until another is set.
	if res := s.post(t, c, "/projects/"+p.ID+"/drains", url.Values{"action": {"remove"}}, s.sameOrigin()); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("remove: %d, want 303", res.StatusCode)
	}
	if res, a := post(body, "vercel-made-secret"); res.StatusCode != 401 || !strings.Contains(a.Error, "no drain secret") {
		t.Errorf("after removing the secret: %d %+v, want 401", res.StatusCode, a)
	}
}

// TestAnalyticsPageListsEveryDoor: the analytics page's "Collect traffic"
// panel gives every way in, filled in for the project, with traffic or
// without.
func TestAnalyticsPageListsEveryDoor(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	p, c := s.project, s.signedIn(t)
	wants := []string{
		"folio analytics import --project " + p.ID + " --follow /var/log/nginx/access.log",
		"folio analytics import --project " + p.ID + " --format caddy --follow /var/log/caddy/docs.log",
		"--var FOLIO_URL:http://folio.test --var FOLIO_PROJECT:" + p.ID,
		"POST /v1/analytics/" + p.ID + "/events",
		`<script defer src="http://folio.test/js/folio.js" data-project="` + p.ID + `">`,
	}
	for _, provider := range analytics.DrainProviders {
		wants = append(wants, ">http://folio.test/v1/analytics/"+p.ID+"/drains/"+provider+"<")
	}
	check := func(when string) {
		_, page := s.get(t, c, "/projects/"+p.ID+"/analytics")
		page = html.UnescapeString(page)
		for _, w := range wants {
			if !strings.Contains(page, w) {
				t.Errorf("%s, the analytics page lacks %q", when, w)
			}
		}
	}
	check("without traffic")
	if _, err := s.app.analytics.Generate(context.Background(), p.ID, analytics.GenConfig{Views: 50, Paths: 5, Visitors: 10,
		From: time.Now().AddDate(0, 0, -3), To: time.Now(), Seed: 1}); err != nil {
		t.Fatal(err)
	}
	check("with traffic")
}
