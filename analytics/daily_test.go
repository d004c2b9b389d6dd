package analytics

import (
	"context"
	"strings"
	"testing"
	"time"
)

func date(t *testing.T, s string) time.Time {
	t.Helper()
	v, err := ParseBound(s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestDailyVisitorsMatchTheExportDayByDay(t *testing.T) {
	s, d, project := newTestService(t)
	from, to := date(t, "2026-02-20"), date(t, "2026-03-06")
	// Traffic starts before the range and ends after it, so the edges count.
	record(t, s, project, GenConfig{Views: 3000, Paths: 40, Visitors: 300, From: from.AddDate(0, 0, -3), To: to.AddDate(0, 0, 2), Seed: 7})
	got, err := s.DailyVisitors(context.Background(), project, from, to)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 14 {
		t.Fatalf("got %d days for 20 Feb to 6 Mar (exclusive), want 14", len(got))
	}
	busy := 0
	for i, day := range got {
		want := from.AddDate(0, 0, i)
		if !day.Day.Equal(want) || !day.From.Equal(want) || !day.To.Equal(want.AddDate(0, 0, 1)) {
			t.Errorf("day %d is %v [%v, %v), want %v and its whole day", i, day.Day, day.From, day.To, want)
		}
		_, totals, _, _ := bruteForce(t, d, project, Query{From: &day.From, To: &day.To})
		if day.VisitorCounts != totals {
			t.Errorf("%s: got %+v, brute force over the stored views gives %+v", want.Format(time.DateOnly), day.VisitorCounts, totals)
		}
		if totals.Human > 0 && totals.AI > 0 {
			busy++
		}
	}
	if busy < 10 {
		t.Errorf("only %d of 14 days have both human and AI visitors; the test traffic is too thin to mean anything", busy)
	}
}

func TestDailyVisitorsClipTheEdgeDays(t *testing.T) {
	s, _, project := newTestService(t)
	from, to := date(t, "2026-03-01T18:00:00Z"), date(t, "2026-03-03T06:30:00Z")
	got, err := s.DailyVisitors(context.Background(), project, from, to)
	if err != nil {
		t.Fatal(err)
	}
	want := [][2]string{{"2026-03-01T18:00:00Z", "2026-03-02T00:00:00Z"}, {"2026-03-02T00:00:00Z", "2026-03-03T00:00:00Z"}, {"2026-03-03T00:00:00Z", "2026-03-03T06:30:00Z"}}
	if len(got) != len(want) {
		t.Fatalf("got %d days, want %d", len(got), len(want))
	}
	for i, w := range want {
		if got[i].From.Format(time.RFC3339) != w[0] || got[i].To.Format(time.RFC3339) != w[1] {
			t.Errorf("day %d covers [%v, %v), want [%s, %s)", i, got[i].From, got[i].To, w[0], w[1])
		}
		if got[i].Total != 0 {
			t.Errorf("day %d of a project without traffic counts %+v", i, got[i].VisitorCounts)
		}
	}
}

func TestDayRange(t *testing.T) {
	now := date(t, "2026-03-05T15:04:05Z")
	parse := func(from, to string) (Query, []Problem) {
		q, problems := ParseQuery(func(k string) string { return map[string]string{"dateFrom": from, "dateTo": to}[k] })
		if problems != nil {
			return q, problems
		}
		return DayRange(q, now)
	}
	for _, tc := range []struct {
		name, from, to     string
		wantFrom, wantTo   string
		problemField, text string
	}{
		{name: "default: the last 30 days, today included", wantFrom: "2026-02-04", wantTo: "2026-03-06"},
		{name: "from only runs to the end of today", from: "2026-03-01", wantFrom: "2026-03-01", wantTo: "2026-03-06"},
		{name: "to only goes back 30 days", to: "2026-01-31", wantFrom: "2026-01-01", wantTo: "2026-01-31"},
		{name: "a leap year is allowed", from: "2024-01-01", to: "2025-01-01", wantFrom: "2024-01-01", wantTo: "2025-01-01"},
		{name: "one day more is refused", from: "2024-01-01", to: "2025-01-02", problemField: "dateFrom", text: "367 days"},
		{name: "centuries are refused", from: "0001-01-01", to: "2026-01-01", problemField: "dateFrom", text: "at most 366"},
		{name: "from after a defaulted to", from: "2026-04-01", problemField: "dateTo", text: "exclusive"},
		{name: "a malformed date names its parameter", from: "2026-13-01", problemField: "dateFrom", text: "is not a date"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q, problems := parse(tc.from, tc.to)
			if tc.problemField != "" {
				if len(problems) != 1 || problems[0].Field != tc.problemField || !strings.Contains(problems[0].Message, tc.text) {
					t.Fatalf("got problems %+v, want one on %s saying %q", problems, tc.problemField, tc.text)
				}
				return
			}
			if problems != nil {
				t.Fatalf("unexpected problems %+v", problems)
			}
			if f, to := q.From.Format(time.DateOnly), q.To.Format(time.DateOnly); f != tc.wantFrom || to != tc.wantTo {
				t.Errorf("range [%s, %s), want [%s, %s)", f, to, tc.wantFrom, tc.wantTo)
			}
		})
	}
}
