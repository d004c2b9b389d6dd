package model

import (
	"fmt"
	"slices"
	"time"
)

// FeedbackStatus is where a reader's feedback stands in the project's
// review (CONTRACT §3): pending when it arrives, then whichever status an
// admin gives it; any status may follow any other.
type FeedbackStatus string

// Feedback statuses, Mintlify's names.
const (
	FeedbackPending    FeedbackStatus = "pending"
	FeedbackInProgress FeedbackStatus = "in_progress"
	FeedbackResolved   FeedbackStatus = "resolved"
	FeedbackDismissed  FeedbackStatus = "dismissed"
)

// FeedbackStatuses lists every status in review order.
func FeedbackStatuses() []FeedbackStatus {
	return []FeedbackStatus{FeedbackPending, FeedbackInProgress, FeedbackResolved, FeedbackDismissed}
}

// Valid reports whether s is one of the statuses.
func (s FeedbackStatus) Valid() bool { return slices.Contains(FeedbackStatuses(), s) }

// Label is the status as the dashboard shows it.
func (s FeedbackStatus) Label() string {
	switch s {
	case FeedbackPending:
		return "New"
	case FeedbackInProgress:
		return "In progress"
	case FeedbackResolved:
		return "Resolved"
	case FeedbackDismissed:
		return "Dismissed"
	}
	return string(s)
}

// FeedbackSource is where feedback came from, Mintlify's names: the
// "Was this page helpful?" widget with a comment (contextual) or without
// (thumbs_only), a code snippet's feedback, or an AI agent's.
type FeedbackSource string

// Feedback sources.
const (
	FeedbackContextual  FeedbackSource = "contextual"
	FeedbackThumbsOnly  FeedbackSource = "thumbs_only"
	FeedbackCodeSnippet FeedbackSource = "code_snippet"
	FeedbackAgent       FeedbackSource = "agent"
)

// FeedbackSources lists every source.
func FeedbackSources() []FeedbackSource {
	return []FeedbackSource{FeedbackContextual, FeedbackThumbsOnly, FeedbackCodeSnippet, FeedbackAgent}
}

// Valid reports whether s is one of the sources.
func (s FeedbackSource) Valid() bool { return slices.Contains(FeedbackSources(), s) }

// ErrFeedbackNotFound: no feedback of the project has the id.
var ErrFeedbackNotFound = fmt.Errorf("feedback %w", ErrNotFound)

// Feedback is one reader's (or agent's) feedback on a page. Helpful is nil
// only on a code snippet's feedback that gave no rating; the texts are ""
// when not given, and Code is set exactly on a code snippet's feedback.
type Feedback struct {
	ID        string
	Path      string
	Source    FeedbackSource
	Helpful   *bool
	Comment   string
	Contact   string // an e-mail address to answer the reader at
	Code      string
	Filename  string
	Lang      string
	Status    FeedbackStatus
	CreatedAt time.Time
	// StatusAt is when an admin last changed the status (zero: never).
	StatusAt time.Time
}

// FeedbackFilter picks a site's feedback: From <= at < To (unix
// milliseconds), of one source ("" any) and one of the statuses (none: any).
type FeedbackFilter struct {
	From, To int64
	Source   FeedbackSource
	Statuses []FeedbackStatus
}

// FeedbackKey is where a page of feedback ends, newest first: the next
// page holds what is older than At (unix milliseconds), or as old with a
// smaller ID.
type FeedbackKey struct {
	At int64
	ID string
}

// FeedbackPage is one page's feedback counted: ratings of the page
// (helpful or not, code snippets' aside), code snippets' feedback, and all.
type FeedbackPage struct {
	Path       string
	ThumbsUp   int
	ThumbsDown int
	Code       int
	Total      int
}
