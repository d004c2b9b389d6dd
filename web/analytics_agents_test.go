package main

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/folio-docs/folio/analytics"
)

// postRaw sends body to u with key and the headers given (name, value, …)
// and returns the status and the answer.
func postRaw(t *testing.T, u, key string, body []byte, header ...string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, u, bytes.NewReader(body))
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(raw)
}

// Every door keeps the agent of the views it stores: the events API, the
// browser tracker, a log imported once and a log followed, and the drains
// of Vercel, Netlify and Cloudflare, through serve and the CLI as
// processes of their own. Each door reports its views at its own page,
// and the agents export narrowed to that page names exactly the agent (or
// none: the tracker counts people only) with its operator and class.
func TestEveryDoorKeepsTheAgent(t *testing.T) {
	t.Parallel()
	w := newFollowWorld(t)
	ingest := w.te.must(t, "", "key", "create", "--project", w.project, "--scope", "ingest")
	const secret = "drain-secret-for-the-doors"
	w.te.must(t, secret+"\n", "project", "update", w.project, "--drain-secret-stdin")
	at := time.Now().Add(-time.Hour).UTC().Truncate(time.Second)
	drain := w.base + "/v1/analytics/" + w.project + "/drains/"
	combined := func(ip, path, ua string) string {
		return fmt.Sprintf("%s - - [%s] \"GET %s HTTP/1.1\" 200 5120 \"-\" \"%s\"\n", ip, at.Format("02/Jan/2006:15:04:05 -0700"), path, ua)
	}
	const (
		perplexity = "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Perplexity-User/1.0; +https://perplexity.ai/perplexity-user)"
		claudeCode = "claude-code/1.0.83 (external, cli)"
		curl       = "curl/8.5.0"
	)
	type row struct{ name, operator, class string }
	for _, door := range []struct {
		name, path string
		send       func(path string)
		want       []row // nil: no agent
	}{
		{"events API", "/doors/events", func(path string) {
			body := fmt.Sprintf(`{"events":[{"path":%q,"timestamp":%q,"userAgent":%q,"ip":"192.0.2.10"}]}`, path, at.Format(time.RFC3339), uaAgent)
			if code, out := postRaw(t, w.base+"/v1/analytics/"+w.project+"/events", ingest, []byte(body), "Content-Type", "application/json"); code != 200 {
				t.Fatalf("events: %d %s", code, out)
			}
		}, []row{{"ChatGPT-User", "OpenAI", "ai"}}},
		{"tracker", "/doors/tracker", func(path string) {
			for _, ua := range []string{uaBrowser, uaAgent} { // the agent is not counted here
				code, out := postRaw(t, w.base+"/api/event", "", []byte(fmt.Sprintf(`{"project":%q,"path":%q}`, w.project, path)),
					"Origin", "https://docs.example.com", "User-Agent", ua, "Content-Type", "application/json")
				if code != 202 {
					t.Fatalf("tracker: %d %s", code, out)
				}
			}
		}, nil},
		{"import", "/doors/import", func(path string) {
			name := filepath.Join(w.dir, "import.log")
			log := combined("192.0.2.20", path, uaClaude) + combined("192.0.2.21", path+".md", curl) + combined("192.0.2.22", path, curl)
			if err := os.WriteFile(name, []byte(log), 0o600); err != nil {
				t.Fatal(err)
			}
			w.te.must(t, "", "analytics", "import", "--project", w.project, name)
		}, []row{{"Claude-User", "Anthropic", "ai"}, {"Unnamed bot", "", "bots"}}},
		{"follow", "/doors/follow", func(path string) {
			name := filepath.Join(w.dir, "follow.log")
			if err := os.WriteFile(name, nil, 0o600); err != nil {
				t.Fatal(err)
			}
			p := w.follow(t, "--follow", name)
			p.waitLog(t, "following .*follow.log", 20*time.Second)
			f, err := os.OpenFile(name, os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if _, err := f.WriteString(combined("192.0.2.30", path, uaCrawler)); err != nil {
				t.Fatal(err)
			}
		}, []row{{"GPTBot", "OpenAI", "aiTraining"}}},
		{"Vercel", "/doors/vercel", func(path string) {
			body := []byte(fmt.Sprintf(`[{"id":"v-1","deploymentId":"dpl_1","source":"static","host":"docs-abc.vercel.app","timestamp":%[1]d,"projectId":"prj_1","level":"info","proxy":{"timestamp":%[1]d,"method":"GET","host":"docs.example.com","path":%[2]q,"userAgent":[%[3]q],"region":"fra1","statusCode":200,"clientIp":"192.0.2.40","scheme":"https"}}]`,
				at.UnixMilli(), path, perplexity))
			if code, out := postRaw(t, drain+"vercel", ingest, body, "x-vercel-signature", signVercel(secret, body), "Content-Type", "application/json"); code != 200 {
				t.Fatalf("vercel: %d %s", code, out)
			}
		}, []row{{"Perplexity-User", "Perplexity", "ai"}}},
		{"Netlify", "/doors/netlify", func(path string) {
			body := []byte(fmt.Sprintf(`[{"account_id":"a1","client_ip":"192.0.2.50","log_type":"traffic","method":"GET","request_id":"r-1","site_id":"s1","status_code":200,"timestamp":%q,"url":"https://docs.example.com%s","user_agent":%q}]`,
				at.Format(time.RFC3339Nano), path, claudeCode))
			if code, out := postRaw(t, drain+"netlify", ingest, body, "Content-Type", "application/json"); code != 200 {
				t.Fatalf("netlify: %d %s", code, out)
			}
		}, []row{{"claude-code", "Anthropic", "ai"}}},
		{"Cloudflare", "/doors/cloudflare", func(path string) {
			body := gzipBytes(t, []byte(fmt.Sprintf(`{"ClientIP":"192.0.2.60","ClientRequestHost":"docs.example.com","ClientRequestMethod":"GET","ClientRequestURI":%q,"ClientRequestUserAgent":%q,"EdgeResponseStatus":200,"EdgeStartTimestamp":%d,"RayID":"00000000000000aa"}`+"\n",
				path, uaSearchBot, at.UnixNano())))
			if code, out := postRaw(t, drain+"cloudflare", ingest, body, "Content-Encoding", "gzip"); code != 200 {
				t.Fatalf("cloudflare: %d %s", code, out)
			}
		}, []row{{"Googlebot", "Google", "bots"}}},
	} {
		door.send(door.path)
		var got []row
		stored := func() bool {
			var v analytics.Views
			if code := apiCall(t, "GET", w.base+"/v1/analytics/"+w.project+"/views?limit=250", w.key, nil, &v); code != 200 {
				t.Fatalf("views export: %d", code)
			}
			for _, r := range v.Views {
				if r.Path == door.path {
					return true
				}
			}
			return false
		}
		waitFor(t, 20*time.Second, door.name+"'s views", stored)
		var a analytics.Agents
		if code := apiCall(t, "GET", w.base+"/v1/analytics/"+w.project+"/agents?path="+door.path, w.key, nil, &a); code != 200 {
			t.Fatalf("agents export: %d", code)
		}
		for _, r := range a.Agents {
			op := ""
			if r.Operator != nil {
				op = *r.Operator
			}
			if r.Views != 1 || r.Visitors != 1 {
				t.Errorf("%s: %s has %d views of %d visitors, want 1 of 1", door.name, r.Name, r.Views, r.Visitors)
			}
			got = append(got, row{r.Name, op, r.Class})
		}
		if fmt.Sprint(got) != fmt.Sprint(door.want) {
			t.Errorf("%s: the agents of %s are %v, want %v", door.name, door.path, got, door.want)
		}
	}
	// The import's Markdown read by curl is its own page's "Markdown reader".
	var a analytics.Agents
	if code := apiCall(t, "GET", w.base+"/v1/analytics/"+w.project+"/agents?path=/doors/import.md", w.key, nil, &a); code != 200 ||
		len(a.Agents) != 1 || a.Agents[0].Name != "Markdown reader" || a.Agents[0].Operator != nil || a.Agents[0].Class != "ai" {
		t.Errorf("the agents of /doors/import.md: %d %+v, want the Markdown reader", code, a)
	}
}

// A server started beside an index snapshot of the format from before the
// index kept agents (version 3, analytics/testdata/snapshot-v3: 1,500
// views of project wdc9j2ae7qqws82n5df56hspd8 and the snapshot the build
// of a38c91f wrote) logs that it refused it and why, reads every view
// from the database instead, and answers the agents export from them.
func TestServeRefusesASnapshotOfVersion3(t *testing.T) {
	t.Parallel()
	te := newTestEnv(t)
	const project = "wdc9j2ae7qqws82n5df56hspd8"
	dir := te["FOLIO_DATA_DIR"]
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	gz, err := os.Open("../analytics/testdata/snapshot-v3/folio.db.gz")
	if err != nil {
		t.Fatal(err)
	}
	defer gz.Close()
	zr, err := gzip.NewReader(gz)
	if err != nil {
		t.Fatal(err)
	}
	out, err := os.Create(filepath.Join(dir, "folio.db"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, zr); err != nil || out.Close() != nil {
		t.Fatal(err)
	}
	copyFile(t, "../analytics/testdata/snapshot-v3/folio.db.analytics-1.idx", filepath.Join(dir, "folio.db.analytics-1.idx"))
	key := te.must(t, "", "key", "create", "--project", project, "--scope", "read")
	te["FOLIO_ADDR"], te["FOLIO_WORKER"] = freeAddr(t), "false"
	p := startFolio(t, te, "serve")
	p.waitLog(t, `analytics index loaded" .*views_read=1500 .*snapshot="refused: analytics: the index snapshot is of another version: its format is version 3, this build reads version [0-9]+"`, 30*time.Second)
	var a analytics.Agents
	if code := apiCall(t, "GET", "http://"+te["FOLIO_ADDR"]+"/v1/analytics/"+project+"/agents", key, nil, &a); code != 200 || len(a.Agents) < 5 {
		t.Fatalf("agents export: %d %+v, want the generated traffic's agents", code, a)
	}
	named := map[string]bool{}
	for _, r := range a.Agents {
		named[r.Name] = r.Views > 0
	}
	if !named["ChatGPT-User"] || !named["GPTBot"] {
		t.Fatalf("agents export %+v names neither ChatGPT-User nor GPTBot", a.Agents)
	}
}
