package db_test

import (
	"context"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/folio-docs/folio/db"
)

// Each view keeps where it came from: the sources' dictionary is shared by
// batches and by caches (another process), the counts by source are exact
// and of people's views only, and direct views (no source) are one row.
func TestAnalyticsReferrerCounts(t *testing.T) {
	ctx := context.Background()
	d, _, site := newAnalyticsSite(t)
	chatgpt := db.ViewReferral{Source: "chatgpt.com", Channel: "aiAssistant", Name: "ChatGPT"}
	google := db.ViewReferral{Source: "google.com", Channel: "search", Name: "Google"}
	blog := db.ViewReferral{Source: "blog.example.org", Channel: "other"}
	first := []db.NewPageView{
		{At: 1000, Path: "/a", VisitorID: 1, Class: 0, Referral: chatgpt},
		{At: 1001, Path: "/b", VisitorID: 1, Class: 0, Referral: chatgpt},
		{At: 1002, Path: "/a", VisitorID: 2, Class: 0, Referral: chatgpt},
		{At: 1003, Path: "/a", VisitorID: 3, Class: 0, Referral: google},
		{At: 1004, Path: "/a", VisitorID: 3, Class: 0},
		{At: 1005, Path: "/b", VisitorID: 4, Class: 0},
		{At: 1006, Path: "/a", VisitorID: 9, Class: 1, Referral: chatgpt}, // not a person: never counted
		{At: 1007, Path: "/a", VisitorID: 9, Class: 4, Referral: blog},
	}
	if n, err := d.InsertPageViews(ctx, site, db.NewAnalyticsDict(), first); err != nil || n != len(first) {
		t.Fatalf("stored %d, %v; want %d", n, err, len(first))
	}
	// Another cache: the sources stored before are found, so their views count together.
	second := []db.NewPageView{
		{At: 2000, Path: "/b", VisitorID: 5, Class: 0, Referral: chatgpt},
		{At: 2001, Path: "/b", VisitorID: 5, Class: 0, Referral: blog},
	}
	if n, err := d.InsertPageViews(ctx, site, db.NewAnalyticsDict(), second); err != nil || n != 2 {
		t.Fatalf("stored %d, %v; want 2", n, err)
	}
	sorted := func(c []db.ReferrerCount) []db.ReferrerCount {
		slices.SortFunc(c, func(a, b db.ReferrerCount) int { return strings.Compare(a.Referral.Source, b.Referral.Source) })
		return c
	}
	for _, tc := range []struct {
		from, to int64
		path     string
		want     []db.ReferrerCount
	}{
		{0, math.MaxInt64, "", []db.ReferrerCount{{Views: 2, Visitors: 2}, {Referral: blog, Views: 1, Visitors: 1},
			{Referral: chatgpt, Views: 4, Visitors: 3}, {Referral: google, Views: 1, Visitors: 1}}},
		{0, 2000, "", []db.ReferrerCount{{Views: 2, Visitors: 2}, {Referral: chatgpt, Views: 3, Visitors: 2}, {Referral: google, Views: 1, Visitors: 1}}},
		{0, math.MaxInt64, "/b", []db.ReferrerCount{{Views: 1, Visitors: 1}, {Referral: blog, Views: 1, Visitors: 1}, {Referral: chatgpt, Views: 2, Visitors: 2}}},
		{0, math.MaxInt64, "/nowhere", nil},
		{1004, 1006, "", []db.ReferrerCount{{Views: 2, Visitors: 2}}},
	} {
		got, err := d.AnalyticsReferrerCounts(ctx, site, tc.from, tc.to, tc.path)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(sorted(got), tc.want) {
			t.Errorf("AnalyticsReferrerCounts(%d, %d, %q) = %+v, want %+v", tc.from, tc.to, tc.path, got, tc.want)
		}
	}
}
