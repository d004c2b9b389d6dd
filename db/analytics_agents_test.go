package db_test

import (
	"context"
	"math"
	"slices"
	"testing"

	"github.com/folio-docs/folio/db"
	"github.com/folio-docs/folio/internal/testenv"
)

// Each view keeps its agent: the agents' dictionary is shared by batches
// and by caches (another process), and the counts by agent are exact; a
// view of a class but human that no agent is named for counts under the
// zero agent, a person's view nowhere.
func TestAnalyticsAgentCounts(t *testing.T) {
	ctx := context.Background()
	d := testenv.NewDB(t)
	p, err := d.CreateProject(ctx, db.Project{Name: "Docs", Repository: "/tmp/docs"})
	if err != nil {
		t.Fatal(err)
	}
	site, err := d.AnalyticsSite(ctx, p.ID)
	if err != nil {
		t.Fatal(err)
	}
	chatgpt := db.ViewAgent{Name: "ChatGPT-User", Operator: "OpenAI"}
	md := db.ViewAgent{Name: "Markdown reader"}
	first := []db.NewPageView{
		{At: 1000, Path: "/a", VisitorID: 1, Class: 1, Agent: chatgpt},
		{At: 1001, Path: "/a", VisitorID: 1, Class: 1, Agent: chatgpt},
		{At: 1002, Path: "/b", VisitorID: 2, Class: 1, Agent: chatgpt},
		{At: 1003, Path: "/a", VisitorID: 3, Class: 0},
		{At: 1004, Path: "/a.md", VisitorID: 3, Class: 1, Agent: md},
		{At: 1005, Path: "/a", VisitorID: 5, Class: 4}, // a bot no list names
		{At: 1006, Path: "/b", VisitorID: 5, Class: 4},
	}
	if n, err := d.InsertPageViews(ctx, site, db.NewAnalyticsDict(), first); err != nil || n != 7 {
		t.Fatalf("stored %d, %v; want 7", n, err)
	}
	second := []db.NewPageView{{At: 2000, Path: "/b", VisitorID: 4, Class: 1, Agent: chatgpt}}
	if n, err := d.InsertPageViews(ctx, site, db.NewAnalyticsDict(), second); err != nil || n != 1 {
		t.Fatalf("stored %d, %v; want 1", n, err)
	}
	sorted := func(c []db.AgentCount) []db.AgentCount {
		slices.SortFunc(c, func(a, b db.AgentCount) int { return b.Views - a.Views })
		return c
	}
	for _, tc := range []struct {
		from, to int64
		path     string
		want     []db.AgentCount
	}{
		{0, math.MaxInt64, "", []db.AgentCount{{Agent: chatgpt, Class: 1, Views: 4, Visitors: 3}, {Class: 4, Views: 2, Visitors: 1}, {Agent: md, Class: 1, Views: 1, Visitors: 1}}},
		{0, 2000, "", []db.AgentCount{{Agent: chatgpt, Class: 1, Views: 3, Visitors: 2}, {Class: 4, Views: 2, Visitors: 1}, {Agent: md, Class: 1, Views: 1, Visitors: 1}}},
		{0, math.MaxInt64, "/b", []db.AgentCount{{Agent: chatgpt, Class: 1, Views: 2, Visitors: 2}, {Class: 4, Views: 1, Visitors: 1}}},
		{0, math.MaxInt64, "/nowhere", nil},
		{1001, 1002, "", []db.AgentCount{{Agent: chatgpt, Class: 1, Views: 1, Visitors: 1}}},
	} {
		got, err := d.AnalyticsAgentCounts(ctx, site, tc.from, tc.to, tc.path)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(sorted(got), tc.want) {
			t.Errorf("AnalyticsAgentCounts(%d, %d, %q) = %+v, want %+v", tc.from, tc.to, tc.path, got, tc.want)
		}
	}
}
