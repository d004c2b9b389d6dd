package api

import (
	"context"
	"net/http"

	"github.com/folio-docs/folio/analytics"
)

// ReferrerExporter answers the referrers export.
type ReferrerExporter interface {
	Referrers(ctx context.Context, projectID string, q analytics.Query, path string) (analytics.Referrers, error)
}

// AnalyticsReferrers serves GET /v1/analytics/{projectId}/referrers: where
// people came from, with the agents export's parameters (an optional path:
// one page, exact match).
func AnalyticsReferrers(svc ReferrerExporter) http.HandlerFunc {
	return analyticsExportWith([]string{"path"}, func(ctx context.Context, projectID string, q analytics.Query, get func(string) string) (analytics.Referrers, error) {
		return svc.Referrers(ctx, projectID, q, get("path"))
	})
}
