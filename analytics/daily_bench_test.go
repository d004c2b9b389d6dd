package analytics

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// BenchmarkReport measures the analytics page's counting (Report: the
// visitors page, view totals, each bar's visitors and the previous period's
// totals) over a year of generated traffic, for the 30-day default (30
// days) and the 12-month preset (53 weeks). BenchmarkScale does the same on
// the 10M and 100M datasets.
func BenchmarkReport(b *testing.B) {
	const views = 200_000
	s, _, project := newTestService(b)
	ctx := context.Background()
	start := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	if _, err := s.Generate(ctx, project, GenConfig{Views: views, Paths: 10_000, Visitors: views / 10, From: start, To: start.AddDate(1, 0, 0), Seed: 42}); err != nil {
		b.Fatal(err)
	}
	for _, days := range []int{30, 365} {
		b.Run(fmt.Sprintf("%dviews/%ddays", views, days), func(b *testing.B) {
			to := start.AddDate(1, 0, 0)
			from := to.AddDate(0, 0, -days)
			for b.Loop() {
				if _, err := s.Report(ctx, project, Query{From: &from, To: &to, Limit: 25}, UnitFor(from, to), true); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
