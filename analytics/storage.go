package analytics

import (
	"context"
	"time"

	"github.com/folio-docs/folio/model"
)

// Storage is what the Service keeps in the database: the sites, their
// stored views, the drains' settings, and the projects the tracker checks.
// *db.DB implements it; the composition root passes it to NewService.
type Storage interface {
	SiteRecords
	ViewRecords
	InteractionRecords
	DrainRecords
	// ProjectByID finds a project (model.ErrNotFound if none).
	ProjectByID(ctx context.Context, id string) (model.Project, error)
	// Path is the database's file: index snapshots and the positions of
	// followed logs are kept beside it ("" or ":memory:": nowhere).
	Path() string
}

// SiteRecords name each project's analytics site by an integer id, and
// hold the install's visitor-identity secret.
type SiteRecords interface {
	// AnalyticsSite is a project's site id, the site made on first use.
	AnalyticsSite(ctx context.Context, projectID string) (int64, error)
	// AnalyticsSiteID is a project's site id, or model.ErrNotFound when it
	// has never had traffic.
	AnalyticsSiteID(ctx context.Context, projectID string) (int64, error)
	// AnalyticsSiteIDs maps every project with a site to its id.
	AnalyticsSiteIDs(ctx context.Context) (map[string]int64, error)
	// AnalyticsSecret is the install's secret, the same in every process.
	AnalyticsSecret(ctx context.Context) ([]byte, error)
}

// ViewRecords store a site's page views, append-only, and read them back
// for the index (by id range) and the agents' counts.
type ViewRecords interface {
	// StorePageViews stores views in one transaction and says how many
	// were stored (a log line imported before is skipped); a batch named
	// by an Idempotency-Key seen before is replayed, or is
	// model.ErrIdempotencyConflict with another body.
	// The batch's searches and feedback (more, may be nil) are stored in
	// the same transaction, and counted as stored.
	StorePageViews(ctx context.Context, siteID int64, views []model.NewPageView, more *model.Interactions, batch *model.EventBatch) (stored int, replayed bool, err error)
	// AnalyticsMaxViewID is the newest view's id (0 if none).
	AnalyticsMaxViewID(ctx context.Context, siteID int64) (int64, error)
	// AnalyticsView reads one view by id, or model.ErrNotFound.
	AnalyticsView(ctx context.Context, siteID, id int64) (model.PageView, error)
	// AnalyticsPaths calls fn for every path whose id is above afterID.
	AnalyticsPaths(ctx context.Context, siteID, afterID int64, fn func(id int64, path string)) error
	// AnalyticsViewColumns reads the views afterID < id <= uptoID.
	AnalyticsViewColumns(ctx context.Context, siteID, afterID, uptoID int64) (model.PageViewColumns, error)
	// AnalyticsAgentCounts counts views from <= at < to by agent and
	// class (only path's when path is not "").
	AnalyticsAgentCounts(ctx context.Context, siteID, from, to int64, path string) ([]model.AgentCount, error)
	// AnalyticsAgentPathCounts counts, per page, the views of class from
	// <= at < to by the agents called name ("": those no agent is named
	// for).
	AnalyticsAgentPathCounts(ctx context.Context, siteID, from, to int64, name string, class uint8) ([]model.PathCount, error)
	// AnalyticsAgentsByID reads the agents' names and operators by id.
	AnalyticsAgentsByID(ctx context.Context, ids []int64) (map[int64]model.ViewAgent, error)
	// AnalyticsReferrersByID reads the referrers' sources, channels and
	// names by id.
	AnalyticsReferrersByID(ctx context.Context, ids []int64) (map[int64]model.ViewReferral, error)
	// AnalyticsReferrerCounts counts human views from <= at < to by
	// where they came from (only path's when path is not "").
	AnalyticsReferrerCounts(ctx context.Context, siteID, from, to int64, path string) ([]model.ReferrerCount, error)
	// AnalyticsChannelCounts counts human views from <= at < to by
	// channel, and by AI assistant.
	AnalyticsChannelCounts(ctx context.Context, siteID, from, to int64) ([]model.ChannelCount, error)
}

// DrainRecords hold a project's log-drain settings.
type DrainRecords interface {
	DrainSettings(ctx context.Context, projectID string) (model.DrainSettings, error)
	// SetDrainSecret sets (or, with "", removes) the drain secret.
	SetDrainSecret(ctx context.Context, projectID, secret string) error
	// SetVercelVerify sets (or, with "", removes) Vercel's verification code.
	SetVercelVerify(ctx context.Context, projectID, code string) error
}

// InteractionRecords read a site's searches and feedback (stored with its
// views, by StorePageViews) and keep feedback's review status.
type InteractionRecords interface {
	// SearchTerms are the terms searched from <= at < to, by searches
	// descending then term, the page [offset, offset+limit).
	SearchTerms(ctx context.Context, siteID, from, to int64, limit, offset int) ([]model.SearchTerm, error)
	// SearchCount is how many searches there were from <= at < to.
	SearchCount(ctx context.Context, siteID, from, to int64) (int, error)
	// SearchClicks counts the results opened from <= at < to from each
	// of the terms, by term and page.
	SearchClicks(ctx context.Context, siteID, from, to int64, queries []string) ([]model.SearchClickCount, error)
	// FeedbackList is up to limit of the feedback f picks, newest first,
	// after the key when one is given.
	FeedbackList(ctx context.Context, siteID int64, f model.FeedbackFilter, after *model.FeedbackKey, limit int) ([]model.Feedback, error)
	// FeedbackByPage counts the feedback f picks per page, by total
	// descending then path, the page [offset, offset+limit).
	FeedbackByPage(ctx context.Context, siteID int64, f model.FeedbackFilter, limit, offset int) ([]model.FeedbackPage, error)
	// FeedbackStatusCounts counts the feedback f picks (statuses aside)
	// by status.
	FeedbackStatusCounts(ctx context.Context, siteID int64, f model.FeedbackFilter) (map[model.FeedbackStatus]int, error)
	// SetFeedbackStatus moves one feedback to status at a time and returns
	// it, or is model.ErrFeedbackNotFound.
	SetFeedbackStatus(ctx context.Context, siteID int64, id string, status model.FeedbackStatus, at time.Time) (model.Feedback, error)
}
