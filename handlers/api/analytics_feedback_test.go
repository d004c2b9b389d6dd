package api_test

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"

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
	// Too large a body for the tracker is 413.
	code, _, _ := s.do(t, "POST", "/api/event", fmt.Sprintf(`{"project":%q,"type":"feedback","comment":%q}`, s.project, strings.Repeat("x", api.MaxTrackerBody)), "Origin", "https://docs.example.com")
	if code != 413 {
		t.Errorf("a body over %d bytes: %d, want 413", api.MaxTrackerBody, code)
	}
}
