package analytics

import (
	"context"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/folio-docs/folio/db"
	"github.com/folio-docs/folio/internal/testenv"
	"github.com/folio-docs/folio/model"
)

// newTestService gives a test its own database, a project and the service.
func newTestService(t testing.TB) (*Service, *db.DB, string) {
	t.Helper()
	d := testenv.NewDB(t)
	p, err := d.CreateProject(context.Background(), model.Project{Name: "docs", Repository: "/tmp/docs"})
	if err != nil {
		t.Fatal(err)
	}
	return NewService(d, newTestClassifier(t)), d, p.ID
}

// record generates traffic and stores it through the service.
func record(t testing.TB, s *Service, projectID string, cfg GenConfig) int {
	t.Helper()
	n, err := s.Generate(context.Background(), projectID, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// bruteForce counts the export straight from the stored page views.
func bruteForce(t testing.TB, d *db.DB, projectID string, q Query) ([]VisitorRow, VisitorCounts, []ViewRow, ViewCounts) {
	t.Helper()
	return readStored(t, d, projectID).count(q)
}

// stored is every page view of a project as the database holds it, read
// once so that a test counting many ranges over the same views reads them
// once, not once a range (it must be read again after views are added).
type stored struct {
	names map[int64]string
	views []db.PageView
}

func readStored(t testing.TB, d *db.DB, projectID string) stored {
	t.Helper()
	ctx := context.Background()
	site, err := d.AnalyticsSiteID(ctx, projectID)
	if err != nil {
		t.Fatal(err)
	}
	st := stored{names: map[int64]string{}}
	if err := d.AnalyticsPaths(ctx, site, 0, func(id int64, p string) { st.names[id] = p }); err != nil {
		t.Fatal(err)
	}
	if err := d.AnalyticsViews(ctx, site, 0, math.MaxInt64, func(v db.PageView) { st.views = append(st.views, v) }); err != nil {
		t.Fatal(err)
	}
	return st
}

// storedView is a stored page view, its page's path, and what the
// brute-force tests make of it.
type storedView struct {
	db.PageView
	path     string
	agent    Agent    // the agents test's: the classifier's name for the view's event
	referral Referral // the referrers test's: where the view's reader came from
}

// withPaths is the views read, in the order stored, each with its path.
func (st stored) withPaths() []storedView {
	out := make([]storedView, len(st.views))
	for i, v := range st.views {
		out[i] = storedView{PageView: v, path: st.names[v.PathID]}
	}
	return out
}

// storedInOrder reads back a project's views, which must be the n
// events recorded, in the order stored: the i-th is the i-th event's.
func storedInOrder(t testing.TB, d *db.DB, projectID string, n int) []storedView {
	t.Helper()
	views := readStored(t, d, projectID).withPaths()
	if len(views) != n {
		t.Fatalf("%d views stored for %d events", len(views), n)
	}
	return views
}

// recordInBatches stores events through s in batches of MaxBatch; half-way
// through, export is asked of each service of loaded, so that its index
// loads then and reads the rest as it comes.
func recordInBatches(t testing.TB, s *Service, projectID string, events []Event, export func(*Service) error, loaded ...*Service) {
	t.Helper()
	for i := 0; i < len(events); i += MaxBatch {
		if n, err := s.Record(context.Background(), projectID, events[i:min(i+MaxBatch, len(events))]); err != nil || n != min(MaxBatch, len(events)-i) {
			t.Fatalf("stored %d, %v", n, err)
		}
		if i != len(events)/2 {
			continue
		}
		for _, svc := range loaded {
			if err := export(svc); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// generated is every event g makes, in order.
func generated(g *Generator) []Event {
	var events []Event
	for e, ok := g.Next(); ok; e, ok = g.Next() {
		events = append(events, e)
	}
	return events
}

// count is bruteForce over the views read.
func (st stored) count(q Query) ([]VisitorRow, VisitorCounts, []ViewRow, ViewCounts) {
	names := st.names
	from, to := int64(math.MinInt64), int64(math.MaxInt64)
	if q.From != nil {
		from = q.From.UnixMilli()
		if time.UnixMilli(from).Before(*q.From) {
			from++
		}
	}
	if q.To != nil {
		to = q.To.UnixMilli()
		if time.UnixMilli(to).Before(*q.To) {
			to++
		}
	}
	type sets struct{ h, a map[int64]bool }
	perPath := map[string]*sets{}
	all := sets{map[int64]bool{}, map[int64]bool{}}
	views := map[string]*ViewCounts{}
	var vt ViewCounts
	for _, v := range st.views {
		if v.At < from || v.At >= to {
			continue
		}
		p := names[v.PathID]
		vc := views[p]
		if vc == nil {
			vc = &ViewCounts{}
			views[p] = vc
		}
		for _, c := range []*ViewCounts{vc, &vt} {
			switch Class(v.Class) {
			case Human:
				c.Human++
				c.Total++ // total is human + ai, crawlers beside it
			case AI:
				c.AI++
				c.Total++
			case AISearch:
				c.AISearch++
			case AITraining:
				c.AITraining++
			case Bot:
				c.Bots++
			}
		}
		if !Class(v.Class).IsVisitor() {
			continue
		}
		s := perPath[p]
		if s == nil {
			s = &sets{map[int64]bool{}, map[int64]bool{}}
			perPath[p] = s
		}
		for _, s := range []*sets{s, &all} {
			if Class(v.Class) == Human {
				s.h[v.VisitorID] = true
			} else {
				s.a[v.VisitorID] = true
			}
		}
	}
	count := func(s sets) VisitorCounts {
		union := map[int64]bool{}
		for v := range s.h {
			union[v] = true
		}
		for v := range s.a {
			union[v] = true
		}
		return VisitorCounts{Human: len(s.h), AI: len(s.a), Total: len(union)}
	}
	var rows []VisitorRow
	for p, s := range perPath {
		rows = append(rows, VisitorRow{Path: p, VisitorCounts: count(*s)})
	}
	slices.SortFunc(rows, func(a, b VisitorRow) int {
		if a.Total != b.Total {
			return b.Total - a.Total
		}
		return strings.Compare(a.Path, b.Path)
	})
	var vrows []ViewRow
	for p, c := range views {
		vrows = append(vrows, ViewRow{Path: p, ViewCounts: *c})
	}
	slices.SortFunc(vrows, func(a, b ViewRow) int {
		if a.Total != b.Total {
			return b.Total - a.Total
		}
		return strings.Compare(a.Path, b.Path)
	})
	return rows, count(all), vrows, vt
}

func ptr(t time.Time) *time.Time { return &t }

func TestExportEqualsBruteForce(t *testing.T) {
	s, d, project := newTestService(t)
	ctx := context.Background()
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	cfg := GenConfig{Views: 30000, Paths: 400, Visitors: 3000, From: start, To: start.AddDate(0, 2, 0), Seed: 1}
	if n := record(t, s, project, cfg); n != cfg.Views {
		t.Fatalf("stored %d views, want %d", n, cfg.Views)
	}
	ranges := []struct {
		name     string
		from, to *time.Time
	}{
		{"unbounded", nil, nil},
		{"one day", ptr(start.AddDate(0, 0, 10)), ptr(start.AddDate(0, 0, 11))},
		{"one month", ptr(start.AddDate(0, 0, 5)), ptr(start.AddDate(0, 1, 5))},
		{"open start", nil, ptr(start.AddDate(0, 0, 20))},
		{"open end", ptr(start.AddDate(0, 1, 20)), nil},
		{"instants", ptr(start.Add(36*time.Hour + 17*time.Minute + 3*time.Second + 250*time.Millisecond)), ptr(start.Add(200*time.Hour + 999*time.Millisecond))},
		{"sub-millisecond instants", ptr(start.Add(50*time.Hour + 1234567*time.Nanosecond)), ptr(start.Add(90*time.Hour + 7654321*time.Nanosecond))},
		{"one millisecond", ptr(start.Add(time.Hour)), ptr(start.Add(time.Hour + time.Millisecond))},
		{"empty, before any view", ptr(start.AddDate(-1, 0, 0)), ptr(start.AddDate(-1, 0, 1))},
		{"empty, after every view", ptr(start.AddDate(1, 0, 0)), nil},
	}
	views := readStored(t, d, project)
	for _, r := range ranges {
		wantRows, wantTotals, wantViews, wantViewTotals := views.count(Query{From: r.from, To: r.to})
		for _, limit := range []int{1, 7, 50, 250} {
			q := Query{From: r.from, To: r.to, Limit: limit}
			var got []VisitorRow
			for {
				v, err := s.Visitors(ctx, project, q)
				if err != nil {
					t.Fatal(err)
				}
				if v.Totals != wantTotals {
					t.Fatalf("%s: totals %+v, brute force %+v", r.name, v.Totals, wantTotals)
				}
				got = append(got, v.Visitors...)
				if wantMore := q.Offset+limit < len(wantRows); v.HasMore != wantMore {
					t.Fatalf("%s limit %d offset %d: hasMore %v, want %v", r.name, limit, q.Offset, v.HasMore, wantMore)
				}
				if !v.HasMore {
					break
				}
				q.Offset += limit
			}
			if !slices.Equal(got, wantRows) {
				t.Fatalf("%s limit %d: %d rows differ from brute force's %d (first: %v vs %v)", r.name, limit, len(got), len(wantRows), first(got), first(wantRows))
			}
		}
		v, err := s.Views(ctx, project, Query{From: r.from, To: r.to, Limit: MaxLimit})
		if err != nil {
			t.Fatal(err)
		}
		if v.Totals != wantViewTotals || !slices.Equal(v.Views, wantViews[:min(MaxLimit, len(wantViews))]) || v.HasMore != (len(wantViews) > MaxLimit) {
			t.Fatalf("%s: views export differs from brute force: totals %+v vs %+v", r.name, v.Totals, wantViewTotals)
		}
		if strings.HasPrefix(r.name, "empty") && (len(wantRows) != 0 || wantTotals != (VisitorCounts{})) {
			t.Fatalf("%s: brute force found views in an empty range", r.name)
		}
		if r.name == "unbounded" && wantTotals.Total < 1000 {
			t.Fatalf("only %d visitors in generated traffic; the test would prove little", wantTotals.Total)
		}
	}

	// New traffic, older than what is indexed, is picked up exactly.
	if n := record(t, s, project, GenConfig{Views: 3000, Paths: 500, Visitors: 800, From: start.AddDate(0, 0, -3), To: start.AddDate(0, 0, 40), Seed: 2}); n != 3000 {
		t.Fatalf("stored %d of 3000", n)
	}
	q := Query{From: ptr(start.AddDate(0, 0, -2)), To: ptr(start.AddDate(0, 0, 3)), Limit: MaxLimit}
	wantRows, wantTotals, _, _ := bruteForce(t, d, project, q)
	v, err := s.Visitors(ctx, project, q)
	if err != nil {
		t.Fatal(err)
	}
	if v.Totals != wantTotals || !slices.Equal(v.Visitors, wantRows[:min(MaxLimit, len(wantRows))]) {
		t.Fatalf("after more traffic: totals %+v, brute force %+v", v.Totals, wantTotals)
	}
}

func first[T any](s []T) any {
	if len(s) == 0 {
		return nil
	}
	return s[0]
}

func TestExportOfProjectWithoutTraffic(t *testing.T) {
	s, _, project := newTestService(t)
	v, err := s.Visitors(context.Background(), project, Query{Limit: 50})
	if err != nil {
		t.Fatal(err)
	}
	if v.Visitors == nil || len(v.Visitors) != 0 || v.HasMore || v.Totals != (VisitorCounts{}) {
		t.Fatalf("got %+v, want an empty export with an empty list", v)
	}
}

func TestParseQuery(t *testing.T) {
	day := time.Date(2026, 3, 4, 0, 0, 0, 0, time.UTC)
	instant := time.Date(2026, 3, 4, 10, 11, 12, 500_000_000, time.UTC)
	cases := []struct {
		params    map[string]string
		wantField string
		check     func(Query) bool
	}{
		{map[string]string{}, "", func(q Query) bool { return q.Limit == 50 && q.Offset == 0 && q.From == nil && q.To == nil }},
		{map[string]string{"dateFrom": "2026-03-04"}, "", func(q Query) bool { return q.From.Equal(day) }},
		{map[string]string{"dateTo": "2026-03-04T12:11:12.5+02:00"}, "", func(q Query) bool { return q.To.Equal(instant) }},
		{map[string]string{"dateFrom": "2026-03-04T10:11:12.5Z"}, "", func(q Query) bool { return q.From.Equal(instant) }},
		{map[string]string{"limit": "1", "offset": "0"}, "", func(q Query) bool { return q.Limit == 1 }},
		{map[string]string{"limit": "250", "offset": "1000"}, "", func(q Query) bool { return q.Limit == 250 && q.Offset == 1000 }},
		{map[string]string{"limit": "0"}, "limit", nil},
		{map[string]string{"limit": "251"}, "limit", nil},
		{map[string]string{"limit": "ten"}, "limit", nil},
		{map[string]string{"limit": "-1"}, "limit", nil},
		{map[string]string{"offset": "-1"}, "offset", nil},
		{map[string]string{"offset": "x"}, "offset", nil},
		{map[string]string{"dateFrom": "2026-13-01"}, "dateFrom", nil},
		{map[string]string{"dateFrom": "yesterday"}, "dateFrom", nil},
		{map[string]string{"dateTo": "2026-02-30"}, "dateTo", nil},
		{map[string]string{"dateTo": "04/03/2026"}, "dateTo", nil},
		// Equal bounds are an empty range (Mintlify's own docs ask for one); backwards is refused.
		{map[string]string{"dateFrom": "2026-03-04", "dateTo": "2026-03-04"}, "", func(q Query) bool { return q.From.Equal(day) && q.To.Equal(day) }},
		{map[string]string{"dateFrom": "2026-03-04T10:00:00Z", "dateTo": "2026-03-04T10:00:00Z"}, "", func(q Query) bool { return q.From.Equal(*q.To) }},
		{map[string]string{"dateFrom": "2026-03-05", "dateTo": "2026-03-04"}, "dateTo", nil},
		{map[string]string{"dateFrom": "2026-03-04T10:00:00.001Z", "dateTo": "2026-03-04T10:00:00Z"}, "dateTo", nil},
		// Views are kept to the millisecond: a finer bound is ceiled to it.
		{map[string]string{"dateFrom": "2026-03-04T10:11:12.500000Z"}, "", func(q Query) bool { return q.From.Equal(instant) }},
		{map[string]string{"dateFrom": "2026-03-04T10:11:12.4991Z"}, "", func(q Query) bool { return q.From.Equal(instant) }},
		{map[string]string{"dateFrom": "2026-03-04T10:11:12.5001Z"}, "", func(q Query) bool { return q.From.Equal(instant.Add(time.Millisecond)) }},
		{map[string]string{"dateTo": "2026-03-04T10:11:12.499000001Z"}, "", func(q Query) bool { return q.To.Equal(instant) }},
		{map[string]string{"dateTo": "2026-03-04T12:11:12.499999+02:00"}, "", func(q Query) bool { return q.To.Equal(instant) }},
		// Python's isoformat() of a naive datetime: microseconds, no zone (UTC).
		{map[string]string{"dateFrom": "2026-03-04T10:11:12.499001"}, "", func(q Query) bool { return q.From.Equal(instant) }},
		// Given in order, ceiled to the same millisecond: empty, not refused.
		{map[string]string{"dateFrom": "2026-03-04T10:11:12.4991Z", "dateTo": "2026-03-04T10:11:12.4999Z"}, "", func(q Query) bool { return q.From.Equal(*q.To) }},
		// Given backwards, ceiled to the same millisecond: still backwards.
		{map[string]string{"dateFrom": "2026-03-04T10:11:12.4999Z", "dateTo": "2026-03-04T10:11:12.4991Z"}, "dateTo", nil},
		// An integral limit written as a number is that integer; a fraction is not.
		{map[string]string{"limit": "50.0"}, "", func(q Query) bool { return q.Limit == 50 }},
		{map[string]string{"limit": "5e1", "offset": "1.00E+2"}, "", func(q Query) bool { return q.Limit == 50 && q.Offset == 100 }},
		{map[string]string{"limit": "250.000"}, "", func(q Query) bool { return q.Limit == 250 }},
		{map[string]string{"offset": "0.0"}, "", func(q Query) bool { return q.Offset == 0 }},
		{map[string]string{"limit": "50.5"}, "limit", nil},
		{map[string]string{"limit": "50.0000000000000001"}, "limit", nil},
		{map[string]string{"limit": "250.5"}, "limit", nil},
		{map[string]string{"limit": "251.0"}, "limit", nil},
		{map[string]string{"limit": "0.0"}, "limit", nil},
		{map[string]string{"limit": "1e400"}, "limit", nil},
		{map[string]string{"limit": "5e-1"}, "limit", nil},
		{map[string]string{"limit": "50."}, "limit", nil},
		{map[string]string{"limit": ".5e2"}, "limit", nil},
		{map[string]string{"limit": "NaN"}, "limit", nil},
		{map[string]string{"limit": "Inf"}, "limit", nil},
		{map[string]string{"limit": "0x32"}, "limit", nil},
		{map[string]string{"offset": "-1.0"}, "offset", nil},
		{map[string]string{"offset": "2147483648.0"}, "offset", nil},
		{map[string]string{"offset": "1e9223372036854775807"}, "offset", nil},
	}
	for _, tc := range cases {
		q, problems := ParseQuery(func(k string) string { return tc.params[k] })
		if tc.wantField == "" {
			if problems != nil || !tc.check(q) {
				t.Errorf("ParseQuery(%v) = %+v, %v", tc.params, q, problems)
			}
			continue
		}
		if len(problems) != 1 || problems[0].Field != tc.wantField || !strings.Contains(problems[0].Message, tc.wantField) {
			t.Errorf("ParseQuery(%v) problems %v, want one naming %s", tc.params, problems, tc.wantField)
		}
	}
}

func TestVisitorIdentity(t *testing.T) {
	s, d, project := newTestService(t)
	ctx := context.Background()
	day1 := time.Date(2026, 5, 1, 23, 0, 0, 0, time.UTC)
	ua := "Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0"
	events := []Event{
		{Path: "/a", At: day1, UserAgent: ua, IP: "192.0.2.1"},
		{Path: "/a", At: day1.Add(30 * time.Minute), UserAgent: ua, IP: "192.0.2.1"}, // same day: same visitor
		{Path: "/a", At: day1.Add(2 * time.Hour), UserAgent: ua, IP: "192.0.2.1"},    // next UTC day: another
		{Path: "/a", At: day1, UserAgent: ua, IP: "192.0.2.2", VisitorID: "u1"},
		{Path: "/a", At: day1.Add(48 * time.Hour), UserAgent: ua, IP: "192.0.2.9", VisitorID: "u1"}, // id wins
	}
	if _, err := s.Record(ctx, project, events); err != nil {
		t.Fatal(err)
	}
	humans := func(s *Service) int {
		t.Helper()
		v, err := s.Visitors(ctx, project, Query{Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		return v.Totals.Human
	}
	if n := humans(s); n != 3 {
		t.Fatalf("human visitors %d, want 3 (IP+UA on two UTC days is two, a visitorId one)", n)
	}
	// Another service over the same database (another process, a restart)
	// gives the same IP and user agent of the same days the same ids, even
	// for a day long past, and a new pair a new one.
	cls, err := NewClassifier()
	if err != nil {
		t.Fatal(err)
	}
	other := NewService(d, cls)
	again := []Event{
		{Path: "/b", At: day1.Add(10 * time.Minute), UserAgent: ua, IP: "192.0.2.1"},
		{Path: "/b", At: day1.Add(3 * time.Hour), UserAgent: ua, IP: "192.0.2.1"},
	}
	if _, err := other.Record(ctx, project, again); err != nil {
		t.Fatal(err)
	}
	if n := humans(other); n != 3 {
		t.Fatalf("after a second service stored the same visitors: %d human visitors, want 3", n)
	}
	if _, err := other.Record(ctx, project, []Event{{Path: "/b", At: day1, UserAgent: ua, IP: "192.0.2.3"}}); err != nil {
		t.Fatal(err)
	}
	if n := humans(s); n != 4 {
		t.Fatalf("a new IP: %d human visitors, want 4", n)
	}
	// Nothing stored holds the IP address.
	secret, err := d.AnalyticsSecret(ctx)
	if err != nil || len(secret) != 32 {
		t.Fatalf("secret %x, %v; want 32 bytes", secret, err)
	}
	if secret2, _ := d.AnalyticsSecret(ctx); !slices.Equal(secret, secret2) {
		t.Fatal("the secret changed between two reads")
	}
}

func TestParseCount(t *testing.T) {
	for s, want := range map[string]int{
		"50": 50, "+5": 5, "050": 50, "50.0": 50, "50.000": 50, "5e1": 50, "5E+1": 50, "500e-1": 50,
		"0": 0, "-0": 0, "0.0": 0, "0e999999999999999999999": 0, "-3.0": -3,
		"2147483647": 2147483647, "2147483647.0": 2147483647, "2.147483647e9": 2147483647,
	} {
		if got, err := ParseCount(s); err != nil || got != want {
			t.Errorf("ParseCount(%q) = %d, %v; want %d", s, got, err, want)
		}
	}
	for _, s := range []string{
		"", "50.5", "5e-1", "50.0000000000000001", "1e400", "1e9223372036854775807", "10e9223372036854775807",
		"2147483648", "2147483648.0", "2.147483648e9", "99999999999.0", "50.", ".5", "- 5", "5 ", "five", "0x32", "Inf", "NaN", "1_0", "1/2",
	} {
		if got, err := ParseCount(s); err == nil {
			t.Errorf("ParseCount(%q) = %d, want an error", s, got)
		}
	}
}
