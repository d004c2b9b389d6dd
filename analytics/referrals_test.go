package analytics

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/folio-docs/folio/model"
)

// Every door keeps where people came from: the events API, the tracker,
// each log format and each drain store the referrer's host and channel on
// the view (never its path or query), count a referrer from the site
// itself (the page's host where the door has it, or one of the project's
// domains) as direct, read a utm_source naming a listed site where there is
// no referrer, and count only people's views.
func TestEveryDoorKeepsTheReferrer(t *testing.T) {
	ctx := context.Background()
	s, d, _ := newTestService(t)
	n := 0
	newProject := func(domains string) string {
		t.Helper()
		n++
		p, err := d.CreateProject(ctx, model.Project{Name: fmt.Sprintf("docs %d", n), Repository: "/tmp/docs", AllowedDomains: domains})
		if err != nil {
			t.Fatal(err)
		}
		return p.ID
	}
	// rows are a project's referrers export as "source channel name views visitors".
	rows := func(project string) []string {
		t.Helper()
		got, err := s.Referrers(ctx, project, Query{Limit: 250}, "")
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, r := range got.Referrers {
			str := func(p *string) string {
				if p == nil {
					return "null"
				}
				return *p
			}
			out = append(out, fmt.Sprintf("%s %s %s %d %d", str(r.Source), r.Channel, str(r.Name), r.Views, r.Visitors))
		}
		slices.Sort(out)
		return out
	}
	check := func(door, project string, want ...string) {
		t.Helper()
		slices.Sort(want)
		if got := rows(project); !slices.Equal(got, want) {
			t.Errorf("%s: referrers\n%q\nwant\n%q", door, got, want)
		}
	}
	now := time.Now().UTC().Truncate(time.Second)
	at := now.Add(-time.Hour).Format(time.RFC3339)

	t.Run("events API", func(t *testing.T) {
		p := newProject("docs.example.com, *.docs.example.com")
		raw := []RawEvent{
			{Path: "/a", Timestamp: at, UserAgent: firefox, IP: "192.0.2.1", Referrer: "https://chatgpt.com/c/6f1e?token=s3cret"},
			{Path: "/b", Timestamp: at, UserAgent: firefox, IP: "192.0.2.1", Referrer: "https://docs.example.com/a"},
			{Path: "/c", Timestamp: at, UserAgent: firefox, IP: "192.0.2.2", Referrer: "https://v2.docs.example.com/a"},
			{Path: "/d", Timestamp: at, UserAgent: firefox, IP: "192.0.2.3"},
			{Path: "/e", Timestamp: at, UserAgent: firefox, IP: "192.0.2.4", Referrer: "https://www.google.de/search?q=folio+keys"},
			{Path: "/f", Timestamp: at, UserAgent: chatGPT, IP: "192.0.2.5", Referrer: "https://chatgpt.com/"}, // an agent: not a person
			// No referrer, but ChatGPT's mark on its link; a campaign's name is no site.
			{Path: "/g?utm_source=chatgpt.com&session=s3cret", Timestamp: at, UserAgent: firefox, IP: "192.0.2.6"},
			{Path: "/h?utm_source=newsletter", Timestamp: at, UserAgent: firefox, IP: "192.0.2.7"},
			{Path: "/i?utm_source=mail.example.org", Timestamp: at, UserAgent: firefox, IP: "192.0.2.8"},
		}
		events, problems := ParseEvents(raw, now)
		if problems != nil {
			t.Fatal(problems)
		}
		if _, _, err := s.RecordBatch(ctx, p, events.Views, nil); err != nil {
			t.Fatal(err)
		}
		check("events", p, "chatgpt.com aiAssistant ChatGPT 2 2", "null direct null 5 5", "google.de search Google 1 1")
	})

	t.Run("tracker", func(t *testing.T) {
		p := newProject("")
		for _, ref := range []string{"https://www.perplexity.ai/search/abc", "https://docs.example.org/guide", "", strings.Repeat("x", 3000), "utm"} {
			path := "/guide"
			if ref == "utm" {
				ref, path = "", "/guide?utm_source=perplexity.ai"
			}
			ok, err := s.TrackBrowserView(ctx, BrowserView{ProjectID: p, Path: path, Referrer: ref, Origin: "https://docs.example.org",
				UserAgent: firefox, IP: "192.0.2.10", At: now})
			if err != nil || !ok {
				t.Fatalf("referrer %.40q: stored %v, %v", ref, ok, err)
			}
		}
		check("tracker", p, "perplexity.ai aiAssistant Perplexity 2 1", "null direct null 3 1")
	})

	// Each format's own lines (logCases), and lines whose referrer is the
	// page's host as the format logs it.
	own := map[string]string{
		"combined-vhost": `docs.example.net:443 203.0.113.7 - - [01/Apr/2026:10:00:02 +0000] "GET /next HTTP/1.1" 200 5120 "https://docs.example.net/guide" "` + firefox + `"`,
		"caddy":          `{"level":"info","ts":1646861405.0,"logger":"http.log.access.log0","msg":"handled request","request":{"remote_ip":"192.0.2.9","proto":"HTTP/1.1","method":"GET","host":"docs.example.net","uri":"/next","headers":{"User-Agent":["` + firefox + `"],"Referer":["https://docs.example.net/"]}},"status":200}`,
		"cloudflare":     `{"ClientIP":"203.0.113.12","ClientRequestHost":"docs.example.net","ClientRequestMethod":"GET","ClientRequestURI":"/next","ClientRequestUserAgent":"` + firefox + `","ClientRequestReferer":"https://docs.example.net/guide","EdgeResponseStatus":200,"EdgeStartTimestamp":"2026-04-01T10:00:05Z"}`,
	}
	want := map[string][]string{
		"combined":       {"google.com search Google 1 1"},
		"common":         nil, // no user agent: not a person
		"combined-vhost": {"chatgpt.com aiAssistant ChatGPT 1 1", "null direct null 1 1"},
		"caddy":          {"null direct null 2 1"}, // the bing.com line is an agent's
		"cloudfront":     {"null direct null 2 1", "claude.ai aiAssistant Claude 1 1"},
		"cloudflare":     {"null direct null 2 2", "perplexity.ai aiAssistant Perplexity 1 1"},
		"mintlify":       {"example.com other null 1 1"},
	}
	for _, c := range logCases {
		t.Run("import "+c.format, func(t *testing.T) {
			w, ok := want[c.format]
			if !ok {
				t.Fatalf("no expectation for --format %s", c.format)
			}
			text := c.text
			if line, ok := own[c.format]; ok {
				text += "\n" + line
			}
			f, err := LogFormatByName(c.format)
			if err != nil {
				t.Fatal(err)
			}
			p := newProject("")
			if st, err := s.ImportLog(ctx, p, strings.NewReader(text), ImportOptions{Format: f}); err != nil || st.Stored == 0 {
				t.Fatalf("import: %+v, %v", st, err)
			}
			check("--format "+c.format, p, w...)
		})
	}
	t.Run("import nginx:<log_format>", func(t *testing.T) {
		f, err := LogFormatByName(`nginx:$remote_addr [$time_local] $host "$request" $status "$http_referer" "$http_user_agent"`)
		if err != nil {
			t.Fatal(err)
		}
		p := newProject("")
		text := `203.0.113.5 [01/Apr/2026:10:00:00 +0000] docs.example.net "GET /a HTTP/1.1" 200 "https://news.ycombinator.com/item?id=1" "` + firefox + `"
203.0.113.5 [01/Apr/2026:10:00:05 +0000] docs.example.net "GET /b HTTP/1.1" 200 "https://docs.example.net/a" "` + firefox + `"
203.0.113.6 [01/Apr/2026:10:00:06 +0000] docs.example.net "GET /c?utm_source=chatgpt.com HTTP/1.1" 200 "-" "` + firefox + `"`
		if st, err := s.ImportLog(ctx, p, strings.NewReader(text), ImportOptions{Format: f}); err != nil || st.Stored != 3 {
			t.Fatalf("import: %+v, %v", st, err)
		}
		check("nginx", p, "news.ycombinator.com social Hacker News 1 1", "null direct null 1 1", "chatgpt.com aiAssistant ChatGPT 1 1")
	})

	drainAt := now.Add(-time.Hour)
	for _, c := range []struct {
		provider string
		body     []byte
		want     []string
	}{
		// Vercel's ChatGPT-User request came from chatgpt.com: not a person.
		{DrainVercel, []byte(vercelDrain(drainAt)), []string{"null direct null 1 1"}},
		{DrainNetlify, []byte(netlifyDrain(drainAt)), []string{"google.com search Google 1 1"}},
		{DrainCloudflare, cloudflareDrain(t, drainAt), []string{"null direct null 1 1"}},
		{DrainCloudflare, gzipped(t, `{"ClientIP":"203.0.113.20","ClientRequestHost":"docs.example.com","ClientRequestMethod":"GET","ClientRequestURI":"/a","ClientRequestUserAgent":"`+firefox+`","ClientRequestReferer":"https://www.reddit.com/r/golang/comments/1","EdgeResponseStatus":200,"EdgeStartTimestamp":`+fmt.Sprint(drainAt.UnixNano())+`,"RayID":"9abc1"}
{"ClientIP":"203.0.113.20","ClientRequestHost":"docs.example.com","ClientRequestMethod":"GET","ClientRequestURI":"/b","ClientRequestUserAgent":"`+firefox+`","ClientRequestReferer":"https://docs.example.com/a","EdgeResponseStatus":200,"EdgeStartTimestamp":`+fmt.Sprint(drainAt.UnixNano())+`,"RayID":"9abc2"}`),
			[]string{"reddit.com social reddit 1 1", "null direct null 1 1"}},
	} {
		t.Run("drain "+c.provider, func(t *testing.T) {
			p := newProject("")
			if _, err := s.RecordDrain(ctx, p, c.provider, c.body); err != nil {
				t.Fatal(err)
			}
			check("drain "+c.provider, p, c.want...)
		})
	}
}
