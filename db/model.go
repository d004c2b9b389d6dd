package db

import "github.com/folio-docs/folio/model"

// The domain types live in package model; db reads and writes them under
// these names.
type (
	APIKey           = model.APIKey
	AgentCount       = model.AgentCount
	ChannelCount     = model.ChannelCount
	EventBatch       = model.EventBatch
	FeedbackFilter   = model.FeedbackFilter
	FeedbackKey      = model.FeedbackKey
	FeedbackPage     = model.FeedbackPage
	IdempotencyKey   = model.IdempotencyKey
	Interactions     = model.Interactions
	Invitation       = model.Invitation
	Job              = model.Job
	JobMessage       = model.JobMessage
	JobStatus        = model.JobStatus
	Member           = model.Member
	NewPageView      = model.NewPageView
	NewSearch        = model.NewSearch
	NewSearchClick   = model.NewSearchClick
	PageView         = model.PageView
	PageViewColumns  = model.PageViewColumns
	PathCount        = model.PathCount
	Project          = model.Project
	ReferrerCount    = model.ReferrerCount
	SearchClickCount = model.SearchClickCount
	SearchTerm       = model.SearchTerm
	TurnOutcome      = model.TurnOutcome
	User             = model.User
	ViewAgent        = model.ViewAgent
	ViewReferral     = model.ViewReferral
	WebhookDelivery  = model.WebhookDelivery
	WebhookEvent     = model.WebhookEvent
)

// The values the domain's rules name.
const (
	InvitationExpired = model.InvitationExpired
	InvitationPending = model.InvitationPending
	InvitationRevoked = model.InvitationRevoked
	InvitationUsed    = model.InvitationUsed
	JobActive         = model.JobActive
	JobArchived       = model.JobArchived
	JobCompleted      = model.JobCompleted
	JobFailed         = model.JobFailed
	ScopeRead         = model.ScopeRead
	ScopeWrite        = model.ScopeWrite
	WebhookAbandoned  = model.WebhookAbandoned
	WebhookDelivered  = model.WebhookDelivered
	WebhookPending    = model.WebhookPending
)
