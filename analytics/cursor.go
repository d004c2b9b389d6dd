package analytics

import (
	"encoding/base64"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/folio-docs/folio/model"
)

// Paging of the searches and feedback exports, as Mintlify's (CONTRACT §3).
const (
	DefaultCursorLimit = 50
	MaxCursorLimit     = 100
)

// Cursor kinds: each export reads only the cursors it gave.
const (
	cursorSearches     = "s1"
	cursorFeedback     = "f1"
	cursorFeedbackPage = "p1"
)

// CursorQuery is a request of an export paged by an opaque cursor:
// From <= time < To (unbounded where nil), Limit rows, and where the
// previous page ended: Offset rows in, or, for feedback, After a key.
type CursorQuery struct {
	From, To *time.Time
	Limit    int
	Offset   int
	After    *model.FeedbackKey
}

// bounds are the range in stored unix milliseconds, as Query's.
func (q CursorQuery) bounds() (int64, int64) {
	return Query{From: q.From, To: q.To}.bounds()
}

// parseCursorQuery reads dateFrom, dateTo, limit and cursor (one of kind),
// naming the parameter of every problem.
func parseCursorQuery(get func(string) string, kind string) (CursorQuery, model.FieldErrors) {
	q := CursorQuery{Limit: DefaultCursorLimit}
	var problems model.FieldErrors
	q.From, q.To, problems = ParseRange(get)
	if v := get("limit"); v != "" {
		n, err := ParseCount(v)
		if err != nil || n < 1 || n > MaxCursorLimit {
			problems.Add("limit", "limit must be an integer from 1 to %d; got %q.", MaxCursorLimit, v)
		} else {
			q.Limit = n
		}
	}
	if v := get("cursor"); v != "" && !q.readCursor(v, kind) {
		problems.Add("cursor", "cursor %q is not one this export gave: pass the nextCursor of its previous answer, or leave it out for the first page.", v)
	}
	return q, problems
}

// readCursor reads a cursor of kind into q, saying whether it is one.
func (q *CursorQuery) readCursor(cursor, kind string) bool {
	raw, err := base64.RawURLEncoding.DecodeString(cursor)
	if err != nil {
		return false
	}
	k, rest, _ := strings.Cut(string(raw), ":")
	if k != kind {
		return false
	}
	if kind == cursorFeedback {
		at, id, ok := strings.Cut(rest, ":")
		ms, err := strconv.ParseInt(at, 10, 64)
		if !ok || err != nil || id == "" {
			return false
		}
		q.After = &model.FeedbackKey{At: ms, ID: id}
		return true
	}
	n, err := strconv.Atoi(rest)
	if err != nil || n < 1 {
		return false
	}
	q.Offset = n
	return true
}

// offsetCursor is the cursor of the page that begins offset rows in.
func offsetCursor(kind string, offset int) *string {
	c := base64.RawURLEncoding.EncodeToString(fmt.Appendf(nil, "%s:%d", kind, offset))
	return &c
}

// keyCursor is the cursor of the feedback page after key.
func keyCursor(key model.FeedbackKey) *string {
	c := base64.RawURLEncoding.EncodeToString(fmt.Appendf(nil, "%s:%d:%s", cursorFeedback, key.At, key.ID))
	return &c
}

// ParseSearchesQuery reads the searches export's parameters.
func ParseSearchesQuery(get func(string) string) (CursorQuery, model.FieldErrors) {
	return parseCursorQuery(get, cursorSearches)
}

// FeedbackQuery is a request of the feedback exports: a CursorQuery, and
// the source and statuses to keep (none: all).
type FeedbackQuery struct {
	CursorQuery
	Source   model.FeedbackSource
	Statuses []model.FeedbackStatus
}

// ParseFeedbackQuery reads the feedback export's parameters: the range,
// limit and cursor, a source, and statuses as a comma-separated list.
func ParseFeedbackQuery(get func(string) string) (FeedbackQuery, model.FieldErrors) {
	return parseFeedbackQuery(get, cursorFeedback)
}

// ParseFeedbackByPageQuery reads the feedback by page export's parameters,
// the feedback export's.
func ParseFeedbackByPageQuery(get func(string) string) (FeedbackQuery, model.FieldErrors) {
	return parseFeedbackQuery(get, cursorFeedbackPage)
}

func parseFeedbackQuery(get func(string) string, kind string) (FeedbackQuery, model.FieldErrors) {
	cq, problems := parseCursorQuery(get, kind)
	q := FeedbackQuery{CursorQuery: cq}
	if v := get("source"); v != "" {
		if q.Source = model.FeedbackSource(v); !q.Source.Valid() {
			problems.Add("source", "source %q is not a feedback source; the sources are contextual, thumbs_only, code_snippet and agent.", v)
		}
	}
	if v := get("status"); v != "" {
		for s := range strings.SplitSeq(v, ",") {
			status := model.FeedbackStatus(strings.TrimSpace(s))
			if !status.Valid() {
				problems.Add("status", "status %q is not a feedback status; give a comma-separated list of pending, in_progress, resolved and dismissed.", s)
				break
			}
			q.Statuses = append(q.Statuses, status)
		}
	}
	return q, problems
}

// filter is the query as storage picks feedback.
func (q FeedbackQuery) filter() model.FeedbackFilter {
	from, to := q.bounds()
	return model.FeedbackFilter{From: from, To: to, Source: q.Source, Statuses: q.Statuses}
}
