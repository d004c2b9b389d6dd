package components

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/folio-docs/folio/analytics"
)

// Paths come from anyone's browser or logs: the table must escape them
// even though it lets them wrap at slashes.
func TestAnalyticsTableEscapesPaths(t *testing.T) {
	v := AnalyticsView{ProjectID: "p", Limit: 25, Visitors: analytics.Visitors{Visitors: []analytics.VisitorRow{
		{Path: `/docs/<script>alert(1)</script>/"x"&y`, VisitorCounts: analytics.VisitorCounts{Human: 1, Total: 1}},
	}}}
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
	c := newChart([]analytics.DayVisitors{
		{Day: day, VisitorCounts: analytics.VisitorCounts{Human: 40, AI: 1}},
		{Day: day.AddDate(0, 0, 1)},
	})
	if len(c.Days) != 2 || c.Days[0].HumanY != plotTop || c.Days[0].AIH < 2 || c.Days[1].HumanH != 0 {
		t.Errorf("the peak reaches the top, one visitor still shows, none draws nothing: %+v", c.Days)
	}
	if len(c.Grid) != 4 || c.Grid[3].Label != "40" || len(c.Labels) != 2 || c.Labels[1].Anchor != "end" {
		t.Errorf("grid %+v, labels %+v", c.Grid, c.Labels)
	}
}
