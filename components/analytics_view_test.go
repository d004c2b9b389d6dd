package components

import (
	"context"
	"strings"
	"testing"
	"time"
)

// Paths come from anyone's browser or logs: the table must escape them
// even though it lets them wrap at slashes.
func TestAnalyticsTableEscapesPaths(t *testing.T) {
	v := AnalyticsView{ProjectID: "p", Limit: 25, Rows: []PathVisitors{
		{Path: `/docs/<script>alert(1)</script>/"x"&y`, VisitorCounts: VisitorCounts{Human: 1, Total: 1}},
	}}
	var b strings.Builder
	if err := AnalyticsTable(v).Render(context.Background(), &b); err != nil {
		t.Fatal(err)
	}
	got := b.String()
	if strings.Contains(got, "<script>") {
		t.Fatalf("a path became markup: %s", got)
	}
	if want := `<code>/<wbr>docs/<wbr>&lt;script&gt;alert(1)&lt;/<wbr>script&gt;/<wbr>&#34;x&#34;&amp;y</code>`; !strings.Contains(got, want) {
		t.Errorf("the path cell is not %s in:\n%s", want, got)
	}
}

func TestChartScale(t *testing.T) {
	for peak, step := range map[int]int{0: 1, 3: 1, 4: 1, 5: 2, 8: 2, 9: 5, 20: 5, 21: 10, 399: 100, 401: 200, 1999: 500} {
		if got := niceStep(peak); got != step {
			t.Errorf("niceStep(%d) = %d, want %d", peak, got, step)
		}
	}
	day := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	c := newChart([]Bucket{
		{Start: day, From: day, To: day.AddDate(0, 0, 1), VisitorCounts: VisitorCounts{Human: 40, AI: 1, Total: 40}},
		{Start: day.AddDate(0, 0, 1), From: day.AddDate(0, 0, 1), To: day.AddDate(0, 0, 2)},
	}, UnitDay)
	if len(c.Bars) != 2 || c.Bars[0].HumanY != plotTop || c.Bars[0].AIH < 2 || c.Bars[1].HumanH != 0 {
		t.Errorf("the peak reaches the top, one visitor still shows, none draws nothing: %+v", c.Bars)
	}
	if len(c.Grid) != 5 || c.Grid[0].Label != "0" || c.Grid[4].Label != "40" || len(c.Labels) != 2 || c.Labels[1].Anchor != "end" {
		t.Errorf("grid %+v, labels %+v", c.Grid, c.Labels)
	}
	if c.Bars[0].TabIndex != "-1" || c.Bars[1].TabIndex != "0" {
		t.Errorf("the latest bar alone is in the tab order: %q, %q", c.Bars[0].TabIndex, c.Bars[1].TabIndex)
	}
}

func TestBucketLabels(t *testing.T) {
	d := func(s string) time.Time { v, _ := time.Parse(time.DateOnly, s); return v }
	for _, tc := range []struct {
		unit            Unit
		start, from, to string
		want            string
	}{
		{UnitDay, "2026-03-03", "2026-03-03", "2026-03-04", "Tue 3 Mar 2026"},
		{UnitWeek, "2026-03-02", "2026-03-02", "2026-03-09", "2–8 Mar 2026"},
		{UnitWeek, "2026-03-30", "2026-03-30", "2026-04-06", "30 Mar – 5 Apr 2026"},
		{UnitWeek, "2025-12-29", "2025-12-31", "2026-01-05", "31 Dec 2025 – 4 Jan 2026"},
		{UnitMonth, "2026-02-01", "2026-02-01", "2026-03-01", "February 2026"},
		{UnitMonth, "2026-02-01", "2026-02-14", "2026-03-01", "14–28 Feb 2026"},
	} {
		b := Bucket{Start: d(tc.start), From: d(tc.from), To: d(tc.to)}
		if got := bucketLabel(b, tc.unit); got != tc.want {
			t.Errorf("%s bucket [%s, %s): %q, want %q", tc.unit, tc.from, tc.to, got, tc.want)
		}
	}
}
