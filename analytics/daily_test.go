package analytics

import (
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

func TestParsePageRange(t *testing.T) {
	now := date(t, "2026-03-05T15:04:05Z")
	first := func() (time.Time, bool, error) { return date(t, "2025-07-14T08:00:00Z"), true, nil }
	for _, tc := range []struct {
		name, from, to, rng string
		wantFrom, wantTo    string // the API's bounds, dateTo exclusive
		unit                Unit
		problemField, text  string
	}{
		{name: "default: the last 30 days, today included", wantFrom: "2026-02-04", wantTo: "2026-03-06", unit: Day},
		{name: "to is included", from: "2026-02-01", to: "2026-02-22", wantFrom: "2026-02-01", wantTo: "2026-02-23", unit: Day},
		{name: "one day", from: "2026-02-22", to: "2026-02-22", wantFrom: "2026-02-22", wantTo: "2026-02-23", unit: Day},
		{name: "from only runs to the end of today", from: "2026-03-01", wantFrom: "2026-03-01", wantTo: "2026-03-06", unit: Day},
		{name: "to only goes back 30 days", to: "2026-01-31", wantFrom: "2026-01-02", wantTo: "2026-02-01", unit: Day},
		{name: "90 days draw weeks", from: "2025-12-06", to: "2026-03-05", wantFrom: "2025-12-06", wantTo: "2026-03-06", unit: Week},
		{name: "a leap year draws weeks", from: "2024-01-01", to: "2024-12-31", wantFrom: "2024-01-01", wantTo: "2025-01-01", unit: Week},
		{name: "five years draw months", from: "2021-03-05", to: "2026-03-05", wantFrom: "2021-03-05", wantTo: "2026-03-06", unit: Month},
		{name: "all time runs from the first view by month", rng: "all", wantFrom: "2025-07-14", wantTo: "2026-03-06", unit: Month},
		{name: "more than five years is refused", from: "2021-03-04", to: "2026-03-05", problemField: "from", text: "All time"},
		{name: "centuries are refused", from: "0001-01-01", problemField: "from", text: "more than 5 years"},
		{name: "an end before the start", from: "2026-03-01", to: "2026-02-22", problemField: "to", text: "The end date, 22 Feb 2026, is before the start date, 1 Mar 2026."},
		{name: "a start after today", from: "2026-04-01", problemField: "from", text: "after today"},
		{name: "a malformed date names its field", from: "2026-13-01", problemField: "from", text: "The start date “2026-13-01” is not a date."},
		{name: "a date-time is not a day", to: "2026-01-01T10:00:00Z", problemField: "to", text: "The end date"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, problems, err := ParsePageRange(func(k string) string {
				return map[string]string{"from": tc.from, "to": tc.to, "range": tc.rng}[k]
			}, now, first)
			if err != nil {
				t.Fatal(err)
			}
			if tc.problemField != "" {
				if len(problems) != 1 || problems[0].Field != tc.problemField || !strings.Contains(problems[0].Message, tc.text) {
					t.Fatalf("got problems %+v, want one on %s saying %q", problems, tc.problemField, tc.text)
				}
				return
			}
			if problems != nil {
				t.Fatalf("unexpected problems %+v", problems)
			}
			if f, to := r.Query.From.Format(time.DateOnly), r.Query.To.Format(time.DateOnly); f != tc.wantFrom || to != tc.wantTo {
				t.Errorf("range [%s, %s), want [%s, %s)", f, to, tc.wantFrom, tc.wantTo)
			}
			if r.Unit != tc.unit {
				t.Errorf("unit %s, want %s", r.Unit, tc.unit)
			}
			if !r.Last.AddDate(0, 0, 1).Equal(*r.Query.To) || !r.First.Equal(*r.Query.From) {
				t.Errorf("shown as %v to %v (included), asked as [%v, %v)", r.First, r.Last, r.Query.From, r.Query.To)
			}
		})
	}
}
