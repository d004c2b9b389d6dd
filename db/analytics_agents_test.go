package db_test

import (
	"context"
	"maps"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/folio-docs/folio/db"
)

// Each view keeps its agent: the agents' dictionary is shared by batches
// and by caches (another process), and the counts by agent are exact; a
// view of a class but human that no agent is named for counts under the
// zero agent, a person's view nowhere.
func TestAnalyticsAgentCounts(t *testing.T) {
	ctx := context.Background()
	d, _, site := newAnalyticsSite(t)
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

	// Per page, for one agent (by name and class) or the views of a class
	// no agent is named for.
	byPath := func(c []db.PathCount) []db.PathCount {
		slices.SortFunc(c, func(a, b db.PathCount) int { return strings.Compare(a.Path, b.Path) })
		return c
	}
	for _, tc := range []struct {
		from, to int64
		name     string
		class    uint8
		want     []db.PathCount
	}{
		{0, math.MaxInt64, "ChatGPT-User", 1, []db.PathCount{{Path: "/a", Views: 2, Visitors: 1}, {Path: "/b", Views: 2, Visitors: 2}}},
		{0, 2000, "ChatGPT-User", 1, []db.PathCount{{Path: "/a", Views: 2, Visitors: 1}, {Path: "/b", Views: 1, Visitors: 1}}},
		{0, math.MaxInt64, "ChatGPT-User", 4, nil},
		{0, math.MaxInt64, "", 4, []db.PathCount{{Path: "/a", Views: 1, Visitors: 1}, {Path: "/b", Views: 1, Visitors: 1}}},
		{0, math.MaxInt64, "", 1, nil},
		{0, math.MaxInt64, "Markdown reader", 1, []db.PathCount{{Path: "/a.md", Views: 1, Visitors: 1}}},
	} {
		got, err := d.AnalyticsAgentPathCounts(ctx, site, tc.from, tc.to, tc.name, tc.class)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(byPath(got), tc.want) {
			t.Errorf("AnalyticsAgentPathCounts(%d, %d, %q, %d) = %+v, want %+v", tc.from, tc.to, tc.name, tc.class, got, tc.want)
		}
	}

	// The index reads each view's agent id with its columns, and the
	// agents' names by id.
	cols, err := d.AnalyticsViewColumns(ctx, site, 0, math.MaxInt64)
	if err != nil {
		t.Fatal(err)
	}
	if len(cols.AgentID) != 8 || cols.AgentID[0] == 0 || cols.AgentID[3] != 0 || cols.AgentID[4] == cols.AgentID[0] ||
		cols.AgentID[5] != 0 || cols.AgentID[7] != cols.AgentID[0] {
		t.Fatalf("agent ids read with the views: %v", cols.AgentID)
	}
	names, err := d.AnalyticsAgentsByID(ctx, []int64{cols.AgentID[0], cols.AgentID[4], 999})
	if err != nil {
		t.Fatal(err)
	}
	if want := map[int64]db.ViewAgent{cols.AgentID[0]: chatgpt, cols.AgentID[4]: md}; !maps.Equal(names, want) {
		t.Fatalf("AnalyticsAgentsByID = %v, want %v", names, want)
	}
}
