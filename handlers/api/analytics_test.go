package api_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/mux"

	"github.com/folio-docs/folio/analytics"
	"github.com/folio-docs/folio/auth"
	"github.com/folio-docs/folio/db"
	"github.com/folio-docs/folio/handlers/api"
	"github.com/folio-docs/folio/handlers/httpx"
	"github.com/folio-docs/folio/internal/testenv"
	"github.com/folio-docs/folio/model"
)

type analyticsServer struct {
	url, project, key string
	db                *db.DB
}

// classifier is built once for the tests, as serve builds one for the
// process (web/app.go): a build costs about 0.45 s of CPU under -race, and a
// Classifier does not change once built.
var classifier = sync.OnceValues(analytics.NewClassifier)

// newAnalyticsServer serves the analytics API and the tracker over real
// HTTP, as web/routes.go assembles them.
func newAnalyticsServer(t testing.TB, allowedDomains string) analyticsServer {
	t.Helper()
	return newAnalyticsServerWith(t, allowedDomains, api.TrackerLimits{PerSecond: 0.001, Burst: 5})
}

// newAnalyticsServerWith is newAnalyticsServer with the tracker's limits.
func newAnalyticsServerWith(t testing.TB, allowedDomains string, limits api.TrackerLimits) analyticsServer {
	t.Helper()
	ctx := context.Background()
	d := testenv.NewDB(t)
	p, err := d.CreateProject(ctx, model.Project{Name: "docs", Repository: "/tmp/docs", AllowedDomains: allowedDomains})
	if err != nil {
		t.Fatal(err)
	}
	keys := auth.NewKeys(d)
	key, _, err := keys.Issue(ctx, p.ID, "test", model.ScopeWrite, "never")
	if err != nil {
		t.Fatal(err)
	}
	cls, err := classifier()
	if err != nil {
		t.Fatal(err)
	}
	svc := analytics.NewService(d, cls)
	r := mux.NewRouter()
	keyed := r.PathPrefix("/v1/analytics/{projectId}").Subrouter()
	keyed.Use(httpx.LimitBody, api.RequireAPIKey(keys))
	keyed.Handle("/visitors", api.AnalyticsVisitors(svc)).Methods(http.MethodGet)
	keyed.Handle("/views", api.AnalyticsViews(svc)).Methods(http.MethodGet)
	keyed.Handle("/agents", api.AnalyticsAgents(svc)).Methods(http.MethodGet)
	keyed.Handle("/referrers", api.AnalyticsReferrers(svc)).Methods(http.MethodGet)
	keyed.Handle("/events", api.AnalyticsEvents(svc)).Methods(http.MethodPost)
	keyed.Handle("/searches", api.AnalyticsSearches(svc)).Methods(http.MethodGet)
	keyed.Handle("/feedback", api.AnalyticsFeedback(svc)).Methods(http.MethodGet)
	keyed.Handle("/feedback/by-page", api.AnalyticsFeedbackByPage(svc)).Methods(http.MethodGet)
	keyed.HandleFunc("/assistant", api.AnalyticsAssistant).Methods(http.MethodGet)
	drains := r.NewRoute().Subrouter() // capping their own bodies, as web/routes.go mounts them
	drains.Use(api.RequireIngestKey(keys))
	for _, provider := range analytics.DrainProviders {
		drains.Handle("/v1/analytics/{projectId}/drains/"+provider, api.AnalyticsDrain(svc, provider)).Methods(http.MethodPost)
	}
	r.Handle("/js/folio.js", api.TrackerScript([]byte("//js"))).Methods(http.MethodGet)
	r.Handle("/api/event", api.TrackerEvent(svc, limits)).Methods(http.MethodPost, http.MethodOptions)
	srv := httptest.NewServer(httpx.Observe(slog.New(slog.NewTextHandler(io.Discard, nil)))(r))
	t.Cleanup(srv.Close)
	return analyticsServer{url: srv.URL, project: p.ID, key: key, db: d}
}

func (s analyticsServer) do(t *testing.T, method, path, body string, header ...string) (int, map[string]any, http.Header) {
	t.Helper()
	req, err := http.NewRequest(method, s.url+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
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
	var out map[string]any
	json.Unmarshal(raw, &out)
	return res.StatusCode, out, res.Header
}

func (s analyticsServer) api(t *testing.T, method, path, body string) (int, map[string]any) {
	t.Helper()
	code, out, _ := s.do(t, method, "/v1/analytics/"+s.project+path, body, "Authorization", "Bearer "+s.key)
	return code, out
}

func eventsBody(events ...string) string {
	return `{"events":[` + strings.Join(events, ",") + `]}`
}

func event(path, ts, ua, ip string) string {
	return fmt.Sprintf(`{"path":%q,"timestamp":%q,"userAgent":%q,"ip":%q}`, path, ts, ua, ip)
}

const firefox = "Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0"

func TestAnalyticsEventsAndExport(t *testing.T) {
	s := newAnalyticsServer(t, "")
	good := []string{
		event("/docs/a", "2026-02-01T10:00:00Z", firefox, "192.0.2.1"),
		event("/docs/a", "2026-02-01T11:00:00Z", "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Claude-User/1.0; +Claude-User@anthropic.com)", "192.0.2.2"),
		event("/docs/b?x=1", "2026-02-01T12:00:00.5+01:00", firefox, "2001:db8::1"),
		// With the referrer the contract lets an event carry.
		`{"path":"/docs/a","timestamp":"2026-02-01T12:00:00Z","userAgent":"Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)","ip":"192.0.2.3","referrer":"https://www.google.com/"}`,
	}
	code, out := s.api(t, "POST", "/events", eventsBody(good...))
	if code != 200 || out["accepted"] != float64(4) {
		t.Fatalf("events: %d %v, want 200 with accepted 4", code, out)
	}
	code, out = s.api(t, "GET", "/visitors?dateFrom=2026-02-01&dateTo=2026-02-02&limit=1", "")
	want := `map[hasMore:true totals:map[ai:1 human:2 total:3] visitors:[map[ai:1 human:1 path:/docs/a total:2]]]`
	if code != 200 || fmt.Sprint(out) != want {
		t.Fatalf("visitors: %d %v, want 200 %s", code, out, want)
	}
	code, out = s.api(t, "GET", "/views?dateFrom=2026-02-01T10:30:00Z", "")
	// total is human + ai: the Googlebot view is beside it, not in it.
	want = `map[hasMore:false totals:map[ai:1 aiSearch:0 aiTraining:0 bots:1 human:1 total:2] views:[map[ai:1 aiSearch:0 aiTraining:0 bots:1 human:0 path:/docs/a total:1] map[ai:0 aiSearch:0 aiTraining:0 bots:0 human:1 path:/docs/b total:1]]]`
	if code != 200 || fmt.Sprint(out) != want {
		t.Fatalf("views: %d %v, want 200 %s", code, out, want)
	}
}

func TestAnalyticsEventsBadBatchStoresNothing(t *testing.T) {
	s := newAnalyticsServer(t, "")
	ok := event("/docs/a", "2026-02-01T10:00:00Z", firefox, "192.0.2.1")
	cases := []struct {
		name, body, field string
	}{
		{"bad timestamp", eventsBody(ok, ok, ok, event("/docs/a", "yesterday", firefox, "192.0.2.1")), "events[3].timestamp"},
		{"missing timestamp", eventsBody(ok, event("/docs/a", "", firefox, "192.0.2.1")), "events[1].timestamp"},
		{"future", eventsBody(event("/a", time.Now().Add(time.Hour).Format(time.RFC3339), firefox, "192.0.2.1")), "events[0].timestamp"},
		{"relative path", eventsBody(event("docs/a", "2026-02-01T10:00:00Z", firefox, "192.0.2.1")), "events[0].path"},
		{"bad ip", eventsBody(ok, event("/a", "2026-02-01T10:00:00Z", firefox, "999.1.1.1")), "events[1].ip"},
		{"no ip nor visitor", eventsBody(event("/a", "2026-02-01T10:00:00Z", firefox, "")), "events[0].ip"},
		{"no user agent", eventsBody(event("/a", "2026-02-01T10:00:00Z", "", "192.0.2.1")), "events[0].userAgent"},
		{"referrer too long", eventsBody(ok, fmt.Sprintf(`{"path":"/a","timestamp":"2026-02-01T10:00:00Z","userAgent":%q,"ip":"192.0.2.1","referrer":%q}`,
			firefox, "https://example.com/"+strings.Repeat("r", 2048))), "events[1].referrer"},
		{"empty", `{"events":[]}`, "events"},
		{"too many", eventsBody(strings.Split(strings.Repeat(ok+"\x00", 1001), "\x00")[:1001]...), "events"},
		{"unknown field", `{"events":[{"path":"/a","when":"x"}]}`, "events[0].when"},
		{"unknown field further on", eventsBody(ok, ok, `{"path":"/b","Path":"/c","zz":1}`), "events[2].zz"},
		{"a search's hits not a number", eventsBody(ok, `{"type":"search","timestamp":"2026-02-01T10:00:00Z","query":"q","hits":"3"}`), "events.hits"},
	}
	for _, tc := range cases {
		code, out := s.api(t, "POST", "/events", tc.body)
		details, _ := out["details"].([]any)
		if code != 400 || out["code"] != "invalid_request" || len(details) == 0 || details[0].(map[string]any)["field"] != tc.field {
			t.Errorf("%s: %d %v, want 400 naming %s", tc.name, code, out, tc.field)
		}
	}
	_, out := s.api(t, "GET", "/views", "")
	if fmt.Sprint(out["totals"]) != `map[ai:0 aiSearch:0 aiTraining:0 bots:0 human:0 total:0]` {
		t.Fatalf("bad batches stored views: %v", out["totals"])
	}
}

func TestAnalyticsExportParameterErrors(t *testing.T) {
	s := newAnalyticsServer(t, "")
	for _, tc := range []struct{ query, field string }{
		{"limit=0", "limit"}, {"limit=251", "limit"}, {"limit=abc", "limit"},
		{"offset=-1", "offset"}, {"offset=1.5", "offset"}, {"limit=50.5", "limit"}, {"limit=250.0001", "limit"},
		{"dateFrom=2026-02-30", "dateFrom"}, {"dateFrom=02/01/2026", "dateFrom"}, {"dateTo=tomorrow", "dateTo"},
		{"dateFrom=2026-02-02&dateTo=2026-02-01", "dateTo"}, {"dateFrom=2026-02-01T00:00:00.001Z&dateTo=2026-02-01", "dateTo"},
		{"dateFrom=2026-02-01T10:00:00.000002Z&dateTo=2026-02-01T10:00:00.000001Z", "dateTo"},
		{"limit=", "limit"}, {"offset=", "offset"}, {"dateFrom=", "dateFrom"}, {"dateTo=", "dateTo"},
		{"limit=5&limit=6", "limit"},
		{"datefrom=2026-02-01", "datefrom"}, {"date_to=2026-02-01", "date_to"}, {"page=2", "page"},
		{"dateFrom=2026-02-01&cursor=abc", "cursor"},
	} {
		for _, export := range []string{"/visitors", "/views"} {
			code, out := s.api(t, "GET", export+"?"+tc.query, "")
			msg, _ := out["error"].(string)
			if code != 400 || !strings.Contains(msg, tc.field) {
				t.Errorf("%s?%s: %d %v, want 400 naming %s", export, tc.query, code, out, tc.field)
			}
		}
	}
}

// TestAnalyticsExportTolerantBounds: what a Mintlify client sends and
// Folio once refused is answered, exactly. Equal bounds are an empty range,
// an integral limit written as a number is that integer, and a bound finer
// than a millisecond (Python's isoformat() gives microseconds) counts the
// views a brute force over the raw times counts, at every millisecond edge.
func TestAnalyticsExportTolerantBounds(t *testing.T) {
	s := newAnalyticsServer(t, "")
	t0 := time.Date(2026, 2, 1, 10, 0, 0, 0, time.UTC)
	// One human view a millisecond at t0+0…t0+3 ms, and an AI one at t0+2 ms.
	var events []string
	var at []time.Time
	for ms := range 4 {
		ts := t0.Add(time.Duration(ms) * time.Millisecond)
		events = append(events, event(fmt.Sprintf("/p%d", ms), ts.Format(time.RFC3339Nano), firefox, fmt.Sprintf("192.0.2.%d", 10+ms)))
		at = append(at, ts)
	}
	events = append(events, event("/p2", t0.Add(2*time.Millisecond).Format(time.RFC3339Nano), "claude-code/1.0.3", "192.0.2.99"))
	at = append(at, t0.Add(2*time.Millisecond))
	if code, out := s.api(t, "POST", "/events", eventsBody(events...)); code != 200 || out["accepted"] != float64(len(events)) {
		t.Fatalf("events: %d %v", code, out)
	}

	// Mintlify's own docs ask for dateFrom == dateTo; the answer is empty, not 400.
	for export, want := range map[string]string{
		"/visitors": `map[hasMore:false totals:map[ai:0 human:0 total:0] visitors:[]]`,
		"/views":    `map[hasMore:false totals:map[ai:0 aiSearch:0 aiTraining:0 bots:0 human:0 total:0] views:[]]`,
		"/agents":   `map[agents:[] hasMore:false]`,
	} {
		for _, q := range []string{"dateFrom=2026-02-01&dateTo=2026-02-01", "dateFrom=2026-02-01T10:00:00.002Z&dateTo=2026-02-01T10:00:00.002Z"} {
			code, out := s.api(t, "GET", export+"?"+q, "")
			if code != 200 || fmt.Sprint(out) != want {
				t.Errorf("%s?%s: %d %v, want 200 %s", export, q, code, out, want)
			}
		}
	}
	// limit and offset as a client typed "number" writes them.
	code, out := s.api(t, "GET", "/views?dateFrom=2026-02-01&limit=2.0&offset=1e0", "")
	if rows, _ := out["views"].([]any); code != 200 || len(rows) != 2 || out["hasMore"] != true {
		t.Fatalf("views?limit=2.0&offset=1e0: %d %v, want 200 with 2 rows and more", code, out)
	}

	// Every pair of bounds at and around the millisecond edges, nanoseconds after t0.
	offsets := []time.Duration{-1, 0, 1, 1000, 999_000, 999_999, 1_000_000, 1_000_001, 1_500_000, 1_999_000,
		2_000_000, 2_000_001, 2_999_999, 3_000_000, 3_000_001, 4_000_000}
	format := func(t time.Time) string {
		if t.Nanosecond()%1000 == 0 {
			return t.Format("2006-01-02T15:04:05.000000") // Python's isoformat() of a naive UTC datetime
		}
		return t.Format("2006-01-02T15:04:05.000000000Z07:00")
	}
	checked := 0
	for _, f := range offsets {
		for _, to := range offsets {
			from, until := t0.Add(f), t0.Add(to)
			q := "?dateFrom=" + format(from) + "&dateTo=" + format(until)
			code, out := s.api(t, "GET", "/views"+q, "")
			if f > to {
				if code != 400 {
					t.Errorf("views%s: %d, want 400 (dateFrom after dateTo)", q, code)
				}
				continue
			}
			want := 0
			for _, a := range at {
				if !a.Before(from) && a.Before(until) {
					want++
				}
			}
			totals, _ := out["totals"].(map[string]any)
			if code != 200 || totals["total"] != float64(want) {
				t.Errorf("views%s: %d %v, want 200 with total %d (a brute force over the views)", q, code, out, want)
			}
			code, out = s.api(t, "GET", "/visitors"+q, "")
			totals, _ = out["totals"].(map[string]any)
			if code != 200 || totals["total"] != float64(want) { // each view is its own visitor here
				t.Errorf("visitors%s: %d %v, want 200 with total %d", q, code, out, want)
			}
			checked++
		}
	}
	if checked < 100 {
		t.Fatalf("checked %d ranges, want every ordered pair", checked)
	}
}

func TestTrackerEvent(t *testing.T) {
	s := newAnalyticsServer(t, "docs.example.com, *.example.org")
	post := func(origin, ua, body string) (int, http.Header) {
		code, _, h := s.do(t, "POST", "/api/event", body, "Origin", origin, "User-Agent", ua)
		return code, h
	}
	body := fmt.Sprintf(`{"project":%q,"path":"/guide","referrer":"https://search.example/"}`, s.project)
	if code, h := post("https://docs.example.com", firefox, body); code != 202 || h.Get("Access-Control-Allow-Origin") != "https://docs.example.com" {
		t.Fatalf("allowed origin: %d %v, want 202 with CORS", code, h)
	}
	if code, _ := post("https://a.example.org", firefox, body); code != 202 {
		t.Fatalf("wildcard origin: %d, want 202", code)
	}
	if code, _ := post("https://evil.example", firefox, body); code != 403 {
		t.Fatalf("foreign origin: %d, want 403", code)
	}
	if code, _ := post("https://docs.example.com", "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)", body); code != 202 {
		t.Fatalf("bot: %d, want 202 (accepted, not counted)", code)
	}
	if code, _ := post("https://docs.example.com", firefox, `{"project":"nope","path":"/a"}`); code != 404 {
		t.Fatalf("unknown project: %d, want 404", code)
	}
	// The burst of 5 is spent: the sixth request from this address waits.
	code, h := post("https://docs.example.com", firefox, body)
	if code != 429 || h.Get("Retry-After") == "" {
		t.Fatalf("sixth event: %d, want 429 with Retry-After", code)
	}
	_, out := s.api(t, "GET", "/views", "")
	if fmt.Sprint(out["totals"]) != `map[ai:0 aiSearch:0 aiTraining:0 bots:0 human:2 total:2]` {
		t.Fatalf("stored %v, want the two human views only", out["totals"])
	}
	code, _, h = s.do(t, "OPTIONS", "/api/event", "", "Origin", "https://docs.example.com", "Access-Control-Request-Method", "POST")
	if code != 204 || h.Get("Access-Control-Allow-Headers") != "Content-Type" {
		t.Fatalf("preflight: %d %v", code, h)
	}
}

// A batch retried with its Idempotency-Key (its first answer lost) is
// stored once and answered the same; another batch under the key is 409.
func TestAnalyticsEventsIdempotencyKey(t *testing.T) {
	s := newAnalyticsServer(t, "")
	batch := eventsBody(
		event("/docs/a", "2026-02-01T10:00:00Z", firefox, "192.0.2.1"),
		event("/docs/b", "2026-02-01T10:01:00Z", firefox, "192.0.2.1"),
	)
	post := func(body, key string) (int, map[string]any, http.Header) {
		t.Helper()
		return s.do(t, "POST", "/v1/analytics/"+s.project+"/events", body, "Authorization", "Bearer "+s.key, "Idempotency-Key", key)
	}
	code, out, h := post(batch, "batch-1")
	if code != 200 || out["accepted"] != float64(2) || h.Get("Idempotent-Replayed") != "" {
		t.Fatalf("first: %d %v %v, want 200 accepted 2", code, out, h)
	}
	// The same events, spaced differently: a retry.
	code, out, h = post(strings.ReplaceAll(batch, ",", " , "), "batch-1")
	if code != 200 || out["accepted"] != float64(2) || h.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("retry: %d %v %v, want 200 accepted 2, replayed", code, out, h)
	}
	code, out, _ = post(eventsBody(event("/docs/c", "2026-02-01T10:02:00Z", firefox, "192.0.2.1")), "batch-1")
	if code != 409 || out["code"] != "idempotency_conflict" {
		t.Fatalf("another batch under the key: %d %v, want 409 idempotency_conflict", code, out)
	}
	code, out, _ = post(batch, strings.Repeat("k", 256))
	if code != 400 || !strings.Contains(fmt.Sprint(out["error"]), "Idempotency-Key") {
		t.Fatalf("a 256-byte key: %d %v, want 400 naming Idempotency-Key", code, out)
	}
	// Without a key, every request stores its batch; another key another.
	if code, out, _ = post(batch, "batch-2"); code != 200 || out["accepted"] != float64(2) {
		t.Fatalf("second key: %d %v", code, out)
	}
	_, out = s.api(t, "GET", "/views", "")
	if got := out["totals"].(map[string]any)["human"]; got != float64(4) {
		t.Fatalf("stored %v human views, want 4 (two batches of two, the retry stored once)", got)
	}
}

// The agents export through HTTP: a row per agent with its operator and
// class (a bot no list names in "Unnamed bot"), the order of the contract, path narrowing to one page, and the
// exports' parameter rules.
func TestAnalyticsAgentsExport(t *testing.T) {
	s := newAnalyticsServer(t, "")
	const claude = "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Claude-User/1.0; +Claude-User@anthropic.com)"
	events := []string{
		event("/docs/a", "2026-02-01T10:00:00Z", firefox, "192.0.2.1"),
		event("/docs/a", "2026-02-01T11:00:00Z", claude, "192.0.2.2"),
		event("/docs/b", "2026-02-01T11:30:00Z", claude, "192.0.2.2"),
		event("/docs/b", "2026-02-01T11:40:00Z", claude, "192.0.2.5"),
		event("/docs/a", "2026-02-01T12:00:00Z", "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)", "192.0.2.3"),
		event("/docs/a.md", "2026-02-01T13:00:00Z", "curl/8.4.0", "192.0.2.4"),
		event("/docs/a", "2026-02-01T14:00:00Z", "curl/8.4.0", "192.0.2.4"), // a bot no list names
		event("/docs/b", "2026-02-02T13:00:00Z", claude, "192.0.2.6"),
	}
	if code, out := s.api(t, "POST", "/events", eventsBody(events...)); code != 200 || out["accepted"] != float64(len(events)) {
		t.Fatalf("events: %d %v", code, out)
	}
	for _, tc := range []struct{ query, want string }{
		{"?dateFrom=2026-02-01&dateTo=2026-02-02",
			`map[agents:[map[class:ai name:Claude-User operator:Anthropic views:3 visitors:2] map[class:bots name:Googlebot operator:Google views:1 visitors:1] map[class:ai name:Markdown reader operator:<nil> views:1 visitors:1] map[class:bots name:Unnamed bot operator:<nil> views:1 visitors:1]] hasMore:false]`},
		{"?dateFrom=2026-02-01&dateTo=2026-02-02&limit=1&offset=1",
			`map[agents:[map[class:bots name:Googlebot operator:Google views:1 visitors:1]] hasMore:true]`},
		{"?path=/docs/b",
			`map[agents:[map[class:ai name:Claude-User operator:Anthropic views:3 visitors:3]] hasMore:false]`},
		{"?dateFrom=2026-02-01T11:15:00Z&dateTo=2026-02-01T12:00:00Z",
			`map[agents:[map[class:ai name:Claude-User operator:Anthropic views:2 visitors:2]] hasMore:false]`},
		{"?dateFrom=2027-01-01", `map[agents:[] hasMore:false]`},
	} {
		code, out := s.api(t, "GET", "/agents"+tc.query, "")
		if code != 200 || fmt.Sprint(out) != tc.want {
			t.Errorf("agents%s: %d %v, want 200 %s", tc.query, code, out, tc.want)
		}
	}
	for _, q := range []string{"?datefrom=2026-02-01", "?limit=0", "?dateFrom=yesterday"} {
		if code, _ := s.api(t, "GET", "/agents"+q, ""); code != 400 {
			t.Errorf("agents%s: %d, want 400", q, code)
		}
	}
}
