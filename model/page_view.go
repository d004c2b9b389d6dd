package model

// PageView is one stored page view, dictionary-encoded.
type PageView struct {
	ID        int64
	At        int64 // unix milliseconds
	PathID    int64
	VisitorID int64
	Class     uint8
}

// NewPageView is a page view to store. VisitorID is the visitor's keyed
// hash as a positive number (see analytics.idOf), stored as it is: a dictionary of
// visitors (a unique index of random keys) cost more than all the rest of
// ingest when every visitor is new, as each is once a UTC day. LineHash,
// when set, names the log line it came from: a line already imported into
// the site is skipped.
type NewPageView struct {
	At        int64 // unix milliseconds
	Path      string
	VisitorID int64
	Class     uint8
	LineHash  []byte
	// Agent is who made the view (its name and operator), empty for a
	// browser.
	Agent ViewAgent
	// Referral is where the view came from, the zero ViewReferral for
	// direct (no referrer, or the site itself).
	Referral ViewReferral
}

// ViewAgent is an agent as stored: its name and operator ("" when
// unknown). The zero ViewAgent is none.
type ViewAgent struct {
	Name, Operator string
}

// EventBatch names a batch of the events API by the client's
// Idempotency-Key and a hash of its body.
type EventBatch struct {
	Key      string
	BodyHash []byte
}

// PageViewColumns are page views column-wise, in the order read.
type PageViewColumns struct {
	At         []int64
	PathID     []int64
	VisitorID  []int64
	Class      []uint8
	AgentID    []int64 // the agents' dictionary id, 0 for none
	ReferrerID []int64 // the referrers' dictionary id, 0 for direct
}

// Len is the number of views.
func (c *PageViewColumns) Len() int { return len(c.At) }

// AgentCount is one agent's views in a range (db's AnalyticsAgentCounts).
type AgentCount struct {
	Agent    ViewAgent
	Class    uint8
	Views    int
	Visitors int // distinct visitor ids among its views
}

// PathCount is one page's views and distinct visitors (db's
// AnalyticsAgentPathCounts).
type PathCount struct {
	Path     string
	Views    int
	Visitors int
}

// ViewReferral is where a view came from, as stored: the source (the
// referrer's host), its channel (aiAssistant, search, social, other) and
// the list's name for it ("" when none). The zero ViewReferral is direct:
// no referrer, or the site itself.
type ViewReferral struct {
	Source, Channel, Name string
}

// ReferrerCount is one referral source's human views in a range (db's
// AnalyticsReferrerCounts).
type ReferrerCount struct {
	Referral ViewReferral
	Views    int
	Visitors int // distinct visitor ids among its views
}

// ChannelCount is people's views and distinct visitors of one channel in a
// range, or of one of its sources' names (db's AnalyticsChannelCounts).
type ChannelCount struct {
	Channel  string // "" for direct
	Name     string // "" for the channel as a whole
	Views    int
	Visitors int
}
