package api_test

import (
	"fmt"
	"testing"
)

// The referrers export through HTTP: a row per source of people's views
// with its channel and the list's name (direct with a null source), the
// order of the contract (on a tie, direct first), path narrowing to one page, the tracker's
// referrers kept, and the exports' parameter rules.
func TestAnalyticsReferrersExport(t *testing.T) {
	s := newAnalyticsServer(t, "docs.example.com")
	const claude = "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Claude-User/1.0; +Claude-User@anthropic.com)"
	ev := func(path, ts, ua, ip, referrer string) string {
		return fmt.Sprintf(`{"path":%q,"timestamp":%q,"userAgent":%q,"ip":%q,"referrer":%q}`, path, ts, ua, ip, referrer)
	}
	events := []string{
		ev("/docs/a", "2026-02-01T10:00:00Z", firefox, "192.0.2.1", "https://chatgpt.com/"),
		ev("/docs/b", "2026-02-01T10:05:00Z", firefox, "192.0.2.1", "https://docs.example.com/docs/a"),
		ev("/docs/a", "2026-02-01T11:00:00Z", firefox, "192.0.2.2", "https://chatgpt.com/c/1?token=s3cret"),
		ev("/docs/b", "2026-02-01T11:30:00Z", firefox, "192.0.2.3", "https://www.google.com/"),
		ev("/docs/b", "2026-02-01T11:40:00Z", firefox, "192.0.2.4", ""),
		ev("/docs/a", "2026-02-01T12:00:00Z", claude, "192.0.2.5", "https://chatgpt.com/"), // an agent: not a person
		ev("/docs/b", "2026-02-02T13:00:00Z", firefox, "192.0.2.6", "https://news.ycombinator.com/item?id=1"),
	}
	if code, out := s.api(t, "POST", "/events", eventsBody(events...)); code != 200 || out["accepted"] != float64(len(events)) {
		t.Fatalf("events: %d %v", code, out)
	}
	// The tracker keeps its referrer too.
	if code, _, _ := s.do(t, "POST", "/api/event", `{"project":"`+s.project+`","path":"/docs/c","referrer":"https://www.perplexity.ai/search/x"}`,
		"Origin", "https://docs.example.com", "User-Agent", firefox); code != 202 {
		t.Fatalf("tracker: %d", code)
	}
	for _, tc := range []struct{ query, want string }{
		{"?dateFrom=2026-02-01&dateTo=2026-02-02",
			`map[hasMore:false referrers:[map[channel:direct name:<nil> source:<nil> views:2 visitors:2] map[channel:aiAssistant name:ChatGPT source:chatgpt.com views:2 visitors:2] map[channel:search name:Google source:google.com views:1 visitors:1]]]`},
		{"?dateFrom=2026-02-01&dateTo=2026-02-02&limit=1&offset=1",
			`map[hasMore:true referrers:[map[channel:aiAssistant name:ChatGPT source:chatgpt.com views:2 visitors:2]]]`},
		{"?path=/docs/b&dateTo=2026-03-01",
			`map[hasMore:false referrers:[map[channel:direct name:<nil> source:<nil> views:2 visitors:2] map[channel:search name:Google source:google.com views:1 visitors:1] map[channel:social name:Hacker News source:news.ycombinator.com views:1 visitors:1]]]`},
		{"?path=/docs/c", `map[hasMore:false referrers:[map[channel:aiAssistant name:Perplexity source:perplexity.ai views:1 visitors:1]]]`},
		{"?dateFrom=2026-02-01T11:15:00Z&dateTo=2026-02-01T12:00:00Z",
			`map[hasMore:false referrers:[map[channel:direct name:<nil> source:<nil> views:1 visitors:1] map[channel:search name:Google source:google.com views:1 visitors:1]]]`},
		{"?dateFrom=2026-02-01&dateTo=2026-02-01", `map[hasMore:false referrers:[]]`},
		{"?dateFrom=2027-01-01", `map[hasMore:false referrers:[]]`},
	} {
		code, out := s.api(t, "GET", "/referrers"+tc.query, "")
		if code != 200 || fmt.Sprint(out) != tc.want {
			t.Errorf("referrers%s: %d %v, want 200 %s", tc.query, code, out, tc.want)
		}
	}
	for _, q := range []string{"?datefrom=2026-02-01", "?limit=0", "?offset=-1", "?dateFrom=yesterday", "?channel=search"} {
		if code, _ := s.api(t, "GET", "/referrers"+q, ""); code != 400 {
			t.Errorf("referrers%s: %d, want 400", q, code)
		}
	}
}
