package api_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/folio-docs/folio/db"
	"github.com/folio-docs/folio/handlers/api"
)

// stored is what a site holds of searches and feedback, as one line.
func (s analyticsServer) stored(t *testing.T) string {
	t.Helper()
	ctx := context.Background()
	site, err := s.db.AnalyticsSiteID(ctx, s.project)
	if err != nil {
		return "nothing"
	}
	terms, err := s.db.SearchTerms(ctx, site, 0, math.MaxInt64, 100, 0)
	if err != nil {
		t.Fatal(err)
	}
	var queries []string
	for _, term := range terms {
		queries = append(queries, term.Query)
	}
	clicks, err := s.db.SearchClicks(ctx, site, 0, math.MaxInt64, queries)
	if err != nil {
		t.Fatal(err)
	}
	fb, err := s.db.FeedbackList(ctx, site, db.FeedbackFilter{To: math.MaxInt64}, nil, 100)
	if err != nil {
		t.Fatal(err)
	}
	var feedback []string
	for _, f := range fb {
		helpful := "-"
		if f.Helpful != nil {
			helpful = fmt.Sprint(*f.Helpful)
		}
		feedback = append(feedback, fmt.Sprintf("%s %s %s %q %q %q", f.Path, f.Source, helpful, f.Comment, f.Contact, f.Code))
	}
	return fmt.Sprintf("searches %v clicks %v feedback %v", terms, clicks, feedback)
}

// The events API takes searches, search clicks and feedback beside page
// views, validated whole with the views, and counts them as accepted.
func TestAnalyticsEventsSearchesAndFeedback(t *testing.T) {
	s := newAnalyticsServer(t, "")
	batch := eventsBody(
		event("/docs/a", "2026-02-01T10:00:00Z", firefox, "192.0.2.1"),
		`{"type":"search","timestamp":"2026-02-01T10:00:01Z","query":"API keys","hits":4}`,
		`{"type":"searchClick","timestamp":"2026-02-01T10:00:02Z","query":"api  keys","path":"/docs/keys"}`,
		`{"type":"feedback","timestamp":"2026-02-01T10:00:03Z","path":"/docs/keys","helpful":false,"source":"contextual","comment":"No example.","contact":"ada@example.com"}`,
		`{"type":"feedback","timestamp":"2026-02-01T10:00:04Z","path":"/docs/keys","source":"code_snippet","code":"curl -H …","lang":"sh"}`,
	)
	code, out := s.api(t, "POST", "/events", batch)
	if code != 200 || out["accepted"] != float64(5) {
		t.Fatalf("events: %d %v, want 200 accepted 5", code, out)
	}
	want := `searches [{api keys 1 1769940001000}] clicks [{api keys /docs/keys 1}] feedback [/docs/keys code_snippet - "" "" "curl -H …" /docs/keys contextual false "No example." "ada@example.com" ""]`
	if got := s.stored(t); got != want {
		t.Errorf("stored\n %s\nwant\n %s", got, want)
	}

	// One bad event stores nothing of the batch, and is named.
	code, out = s.api(t, "POST", "/events", eventsBody(
		`{"type":"search","timestamp":"2026-02-01T11:00:00Z","query":"more","hits":1}`,
		`{"type":"feedback","timestamp":"2026-02-01T11:00:00Z","path":"/docs/a","source":"thumbs_only"}`,
	))
	if code != 400 || !strings.Contains(fmt.Sprint(out), "events[1].helpful") {
		t.Errorf("a feedback without helpful: %d %v, want 400 naming events[1].helpful", code, out)
	}
	code, out = s.api(t, "POST", "/events", eventsBody(`{"type":"search","timestamp":"2026-02-01T11:00:00Z","query":"x","hits":1.5}`))
	if code != 400 || !strings.Contains(fmt.Sprint(out), "hits") {
		t.Errorf("hits 1.5: %d %v, want 400 naming hits", code, out)
	}
	if got := s.stored(t); got != want {
		t.Errorf("after refused batches, stored\n %s\nwant\n %s", got, want)
	}
}

// The tracker's door takes searches, search clicks and feedback from
// people's browsers on the project's domains; a bot's are accepted and
// not stored, an agent's source is refused, and the limits hold.
func TestTrackerSearchesAndFeedback(t *testing.T) {
	s := newAnalyticsServerWith(t, "docs.example.com", api.TrackerLimits{PerSecond: 1000, Burst: 1000,
		Feedback: api.Rate{PerSecond: 0.001, Burst: 3}, Searches: api.Rate{PerSecond: 0.001, Burst: 3}, ProjectFeedback: api.Rate{PerSecond: 0.001, Burst: 100}})
	post := func(ua, body string) (int, map[string]any) {
		t.Helper()
		code, out, _ := s.do(t, "POST", "/api/event", fmt.Sprintf(`{"project":%q,%s}`, s.project, body), "Origin", "https://docs.example.com", "User-Agent", ua)
		return code, out
	}
	const googlebot = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)"
	for _, tc := range []struct {
		name, ua, body string
		want           int
	}{
		{"a search", firefox, `"type":"search","query":"Webhooks","hits":2`, 202},
		{"a result opened", firefox, `"type":"searchClick","query":"webhooks","path":"/docs/webhooks"`, 202},
		{"a bot's search", googlebot, `"type":"search","query":"bot","hits":0`, 202},
		{"searches over the project's limit", firefox, `"type":"search","query":"fourth","hits":1`, 429},
		{"feedback", firefox, `"type":"feedback","path":"/docs/webhooks","helpful":true,"source":"thumbs_only"`, 202},
		{"an agent's feedback", firefox, `"type":"feedback","path":"/docs/webhooks","helpful":true,"source":"agent"`, 400},
		{"feedback without a rating", firefox, `"type":"feedback","path":"/docs/webhooks","source":"contextual"`, 400},
		{"feedback over the address's limit", firefox, `"type":"feedback","path":"/docs/a","helpful":false,"source":"contextual","comment":"Hm."`, 429},
		{"a timestamp from the browser", firefox, `"type":"search","query":"x","hits":1,"timestamp":"2026-01-01T00:00:00Z"`, 400},
	} {
		if code, out := post(tc.ua, tc.body); code != tc.want {
			t.Errorf("%s: %d %v, want %d", tc.name, code, out, tc.want)
		}
	}
	want := `searches [{webhooks 1 `
	if got := s.stored(t); !strings.HasPrefix(got, want) || !strings.Contains(got, `clicks [{webhooks /docs/webhooks 1}] feedback [/docs/webhooks thumbs_only true "" "" ""]`) {
		t.Errorf("stored %s, want the person's search, click and feedback only", got)
	}
	// The tracker's script sends its JSON as text/plain (no CORS preflight,
	// and a beacon as the page unloads); another type is still refused.
	for ct, want := range map[string]int{"text/plain;charset=UTF-8": 202, "text/html": 415} {
		code, out, _ := s.do(t, "POST", "/api/event", fmt.Sprintf(`{"project":%q,"path":"/docs/retry"}`, s.project),
			"Origin", "https://docs.example.com", "User-Agent", firefox, "Content-Type", ct)
		if code != want {
			t.Errorf("Content-Type %s: %d %v, want %d", ct, code, out, want)
		}
	}
	// Too large a body for the tracker is 413.
	code, _, _ := s.do(t, "POST", "/api/event", fmt.Sprintf(`{"project":%q,"type":"feedback","comment":%q}`, s.project, strings.Repeat("x", api.MaxTrackerBody)), "Origin", "https://docs.example.com")
	if code != 413 {
		t.Errorf("a body over %d bytes: %d, want 413", api.MaxTrackerBody, code)
	}
}

// getRaw is a GET of the project's analytics API, its body as sent.
func (s analyticsServer) getRaw(t *testing.T, path string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest("GET", s.url+"/v1/analytics/"+s.project+path, nil)
	req.Header.Set("Authorization", "Bearer "+s.key)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	return res.StatusCode, strings.TrimSpace(string(raw))
}

// The searches export, as Mintlify's: terms by hits, ctr of searches a
// result was opened from (at most 1), the result opened most, pages by
// an opaque cursor until it is null.
func TestAnalyticsSearchesExport(t *testing.T) {
	s := newAnalyticsServer(t, "")
	search := func(ts, q string, hits int) string {
		return fmt.Sprintf(`{"type":"search","timestamp":%q,"query":%q,"hits":%d}`, ts, q, hits)
	}
	click := func(ts, q, path string) string {
		return fmt.Sprintf(`{"type":"searchClick","timestamp":%q,"query":%q,"path":%q}`, ts, q, path)
	}
	code, out := s.api(t, "POST", "/events", eventsBody(
		search("2026-02-01T10:00:00Z", "Auth", 3), search("2026-02-01T11:00:00Z", "auth", 3), search("2026-02-01T12:00:00.250Z", "auth", 2), search("2026-02-01T12:30:00Z", "auth", 2),
		click("2026-02-01T10:00:01Z", "auth", "/keys"), click("2026-02-01T11:00:01Z", "auth", "/auth"), click("2026-02-01T11:00:02Z", "auth", "/keys"),
		search("2026-02-01T10:30:00Z", "webhooks", 0),
		search("2026-02-01T10:40:00Z", "models", 5), click("2026-02-01T10:40:01Z", "models", "/b"), click("2026-02-01T10:40:02Z", "models", "/a"), click("2026-02-01T10:40:03Z", "models", "/c"),
		search("2026-02-02T09:00:00Z", "later", 1),
	))
	if code != 200 || out["accepted"] != float64(13) {
		t.Fatalf("events: %d %v", code, out)
	}
	for _, tc := range []struct{ query, want string }{
		// Three results opened from the one search of models: its ctr stops at 1.
		{"?dateTo=2026-02-02", `{"searches":[` +
			`{"searchQuery":"auth","hits":4,"ctr":0.75,"topClickedPage":"/keys","lastSearchedAt":"2026-02-01T12:30:00.000Z"},` +
			`{"searchQuery":"models","hits":1,"ctr":1,"topClickedPage":"/a","lastSearchedAt":"2026-02-01T10:40:00.000Z"},` +
			`{"searchQuery":"webhooks","hits":1,"ctr":0,"topClickedPage":null,"lastSearchedAt":"2026-02-01T10:30:00.000Z"}],"totalSearches":6,"nextCursor":null}`},
		// limit written as a number; the next page's cursor.
		{"?dateTo=2026-02-01T11:00:01.5Z&limit=1.0", `{"searches":[{"searchQuery":"auth","hits":2,"ctr":1,"topClickedPage":"/auth","lastSearchedAt":"2026-02-01T11:00:00.000Z"}],"totalSearches":4,"nextCursor":"czE6MQ"}`},
		{"?dateFrom=2026-02-01T11:00:00Z&dateTo=2026-02-02", `{"searches":[{"searchQuery":"auth","hits":3,"ctr":0.6666666666666666,"topClickedPage":"/auth","lastSearchedAt":"2026-02-01T12:30:00.000Z"}],"totalSearches":3,"nextCursor":null}`},
		{"?dateFrom=2026-02-01&dateTo=2026-02-01", `{"searches":[],"totalSearches":0,"nextCursor":null}`},
		{"?dateFrom=2027-01-01", `{"searches":[],"totalSearches":0,"nextCursor":null}`},
	} {
		if code, body := s.getRaw(t, "/searches"+tc.query); code != 200 || body != tc.want {
			t.Errorf("searches%s: %d\n %s\nwant\n %s", tc.query, code, body, tc.want)
		}
	}
	// Every term once, page after page, until the cursor is null.
	var seen []string
	path := "/searches?limit=1"
	for range 10 {
		var page struct {
			Searches []struct {
				SearchQuery string `json:"searchQuery"`
			} `json:"searches"`
			NextCursor *string `json:"nextCursor"`
		}
		code, body := s.getRaw(t, path)
		if err := json.Unmarshal([]byte(body), &page); code != 200 || err != nil {
			t.Fatalf("%s: %d %s", path, code, body)
		}
		for _, r := range page.Searches {
			seen = append(seen, r.SearchQuery)
		}
		if page.NextCursor == nil {
			break
		}
		path = "/searches?limit=1&cursor=" + *page.NextCursor
	}
	if got := strings.Join(seen, " "); got != "auth later models webhooks" {
		t.Errorf("paged through %q, want every term once, by hits then term", got)
	}
	for _, q := range []string{"?limit=101", "?limit=0", "?limit=2.5", "?cursor=nope", "?cursor=cDE6MQ", "?datefrom=2026-02-01", "?dateFrom=2026-02-02&dateTo=2026-02-01", "?status=pending"} {
		if code, body := s.getRaw(t, "/searches"+q); code != 400 {
			t.Errorf("searches%s: %d %s, want 400", q, code, body)
		}
	}
}

// The feedback exports, as Mintlify's: a page's feedback and a code
// snippet's in their own shapes, newest first, filtered by source and
// status, paged by cursor; per page, thumbs up and down and code.
func TestAnalyticsFeedbackExports(t *testing.T) {
	s := newAnalyticsServer(t, "")
	code, out := s.api(t, "POST", "/events", eventsBody(
		`{"type":"feedback","timestamp":"2026-02-01T10:00:00Z","path":"/a","helpful":true,"source":"thumbs_only"}`,
		`{"type":"feedback","timestamp":"2026-02-01T11:00:00Z","path":"/a","helpful":false,"source":"contextual","comment":"Out of date.","contact":"ada@example.com"}`,
		`{"type":"feedback","timestamp":"2026-02-01T12:00:00Z","path":"/b","source":"code_snippet","code":"folio serve","lang":"sh","comment":"Fails."}`,
		`{"type":"feedback","timestamp":"2026-02-01T13:00:00Z","path":"/b","helpful":true,"source":"agent"}`,
		`{"type":"feedback","timestamp":"2026-02-01T14:00:00Z","path":"/a","helpful":true,"source":"contextual","comment":"Clear."}`,
	))
	if code != 200 || out["accepted"] != float64(5) {
		t.Fatalf("events: %d %v", code, out)
	}
	type row struct {
		ID     string `json:"id"`
		Source string `json:"source"`
	}
	var all struct {
		Feedback   []row   `json:"feedback"`
		NextCursor *string `json:"nextCursor"`
		HasMore    bool    `json:"hasMore"`
	}
	code, body := s.getRaw(t, "/feedback")
	if err := json.Unmarshal([]byte(body), &all); code != 200 || err != nil || len(all.Feedback) != 5 || all.HasMore || all.NextCursor != nil {
		t.Fatalf("feedback: %d %s", code, body)
	}
	ids := map[string]string{}
	for i, r := range all.Feedback {
		ids[fmt.Sprint(4-i)] = r.ID // 0 is the oldest
	}
	idOf := func(body string) string {
		for k, id := range ids {
			body = strings.ReplaceAll(body, id, "#"+k)
		}
		return body
	}
	// An admin resolves the contextual feedback of 11:00.
	site, _ := s.db.AnalyticsSiteID(context.Background(), s.project)
	if _, err := s.db.SetFeedbackStatus(context.Background(), site, ids["1"], "resolved", time.Now()); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ path, want string }{
		{"/feedback?source=code_snippet", `{"feedback":[{"id":"#2","path":"/b","comment":"Fails.","createdAt":"2026-02-01T12:00:00.000Z","source":"code_snippet","status":"pending","code":"folio serve","filename":null,"lang":"sh"}],"nextCursor":null,"hasMore":false}`},
		{"/feedback?status=resolved,dismissed", `{"feedback":[{"id":"#1","path":"/a","comment":"Out of date.","createdAt":"2026-02-01T11:00:00.000Z","source":"contextual","status":"resolved","helpful":false,"contact":"ada@example.com"}],"nextCursor":null,"hasMore":false}`},
		{"/feedback?dateFrom=2026-02-01T13:00:00Z&dateTo=2026-02-01T13:00:00.001Z", `{"feedback":[{"id":"#3","path":"/b","comment":null,"createdAt":"2026-02-01T13:00:00.000Z","source":"agent","status":"pending","helpful":true,"contact":null}],"nextCursor":null,"hasMore":false}`},
		{"/feedback?dateFrom=2026-02-01&dateTo=2026-02-01", `{"feedback":[],"nextCursor":null,"hasMore":false}`},
		{"/feedback/by-page", `{"feedback":[{"path":"/a","thumbsUp":2,"thumbsDown":1,"code":0,"total":3},{"path":"/b","thumbsUp":1,"thumbsDown":0,"code":1,"total":2}],"hasMore":false,"nextCursor":null}`},
		{"/feedback/by-page?status=pending&limit=1", `{"feedback":[{"path":"/a","thumbsUp":2,"thumbsDown":0,"code":0,"total":2}],"hasMore":true,"nextCursor":"cDE6MQ"}`},
		{"/feedback/by-page?status=pending&limit=1&cursor=cDE6MQ", `{"feedback":[{"path":"/b","thumbsUp":1,"thumbsDown":0,"code":1,"total":2}],"hasMore":false,"nextCursor":null}`},
	} {
		if code, body := s.getRaw(t, tc.path); code != 200 || idOf(body) != tc.want {
			t.Errorf("%s: %d\n %s\nwant\n %s", tc.path, code, idOf(body), tc.want)
		}
	}
	// Two a page, newest first, every one once.
	var got []string
	path := "/feedback?limit=2"
	for range 5 {
		var page struct {
			Feedback   []row   `json:"feedback"`
			NextCursor *string `json:"nextCursor"`
			HasMore    bool    `json:"hasMore"`
		}
		code, body := s.getRaw(t, path)
		if err := json.Unmarshal([]byte(body), &page); code != 200 || err != nil || page.HasMore != (page.NextCursor != nil) {
			t.Fatalf("%s: %d %s", path, code, body)
		}
		for _, r := range page.Feedback {
			got = append(got, idOf(r.ID))
		}
		if page.NextCursor == nil {
			break
		}
		path = "/feedback?limit=2&cursor=" + *page.NextCursor
	}
	if strings.Join(got, " ") != "#4 #3 #2 #1 #0" {
		t.Errorf("paged through %v, want #4 #3 #2 #1 #0", got)
	}
	for _, q := range []string{"/feedback?status=open", "/feedback?status=pending,", "/feedback?source=email", "/feedback?cursor=czE6MQ", "/feedback/by-page?cursor=" + "ZjE6MTox", "/feedback?limit=101"} {
		if code, body := s.getRaw(t, q); code != 400 {
			t.Errorf("%s: %d %s, want 400", q, code, body)
		}
	}
	// Mintlify's assistant exports: Folio has none.
	if code, body := s.getRaw(t, "/assistant"); code != 404 || !strings.Contains(body, "Folio has no assistant") || !strings.Contains(body, `"code":"not_found"`) {
		t.Errorf("assistant: %d %s, want 404 saying Folio has no assistant", code, body)
	}
}
