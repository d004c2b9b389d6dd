package analytics

import (
	"context"
	"strings"
	"time"
	"unicode/utf8"
)

// SiteSearch is one search a reader made on the docs site: the term as grouped
// (NormalizeTerm) and how many results the search box showed.
type SiteSearch struct {
	At      time.Time
	Query   string
	Results int
}

// SearchClick is a result a reader opened from a search.
type SearchClick struct {
	At    time.Time
	Query string
	Path  string
}

// Limits on a search's fields.
const (
	// MaxTermLen is the longest search term kept, in characters; the
	// tracker cuts a longer one to it.
	MaxTermLen = 200
	maxResults = 1_000_000
)

// NormalizeTerm is a search term as terms are grouped: its words, single
// spaces between them, in lower case, so "Auth  keys" and "auth keys" are
// one term.
func NormalizeTerm(q string) string {
	return strings.ToLower(strings.Join(strings.Fields(q), " "))
}

// parseTerm checks a search term and returns it grouped.
func parseTerm(q string, field func(name, format string, args ...any)) (string, bool) {
	term := NormalizeTerm(q)
	switch {
	case !utf8.ValidString(q):
		field("query", "The query must be valid UTF-8.")
	case term == "":
		field("query", "The query is required: the search term the reader typed.")
	case utf8.RuneCountInString(term) > MaxTermLen:
		field("query", "The query is longer than %d characters.", MaxTermLen)
	case strings.ContainsFunc(term, func(r rune) bool { return r < 0x20 || r == 0x7f }):
		field("query", "The query must be printable.")
	default:
		return term, true
	}
	return "", false
}

// parseSearch checks a search event: its term and its result count (hits,
// the results the search box showed).
func parseSearch(r RawEvent, at time.Time, field func(name, format string, args ...any)) (SiteSearch, bool) {
	term, ok := parseTerm(r.Query, field)
	switch {
	case r.Hits == nil:
		field("hits", "hits is required: how many results the search showed (0 for none).")
		ok = false
	case *r.Hits < 0 || *r.Hits > maxResults:
		field("hits", "hits must be an integer from 0 to %d; got %d.", maxResults, *r.Hits)
		ok = false
	}
	if !ok || at.IsZero() {
		return SiteSearch{}, false
	}
	return SiteSearch{At: at, Query: term, Results: int(*r.Hits)}, true
}

// parseSearchClick checks a searchClick event: the term searched and the
// page opened from its results.
func parseSearchClick(r RawEvent, at time.Time, field func(name, format string, args ...any)) (SearchClick, bool) {
	term, ok := parseTerm(r.Query, field)
	path, msg := normalizePath(r.Path)
	if msg != "" {
		field("path", "%s", msg)
		ok = false
	}
	if !ok || at.IsZero() {
		return SearchClick{}, false
	}
	return SearchClick{At: at, Query: term, Path: path}, true
}

// Stamp is a time as the exports write it: RFC 3339 in UTC to the
// millisecond, always the same width (as the jobs API writes times).
type Stamp time.Time

// MarshalJSON writes the stamp as a JSON string.
func (s Stamp) MarshalJSON() ([]byte, error) {
	b := append([]byte{'"'}, time.Time(s).UTC().AppendFormat(nil, "2006-01-02T15:04:05.000Z")...)
	return append(b, '"'), nil
}

// UnmarshalJSON reads the stamp as a Go client of the exports would.
func (s *Stamp) UnmarshalJSON(b []byte) error {
	var t time.Time
	if err := t.UnmarshalJSON(b); err != nil {
		return err
	}
	*s = Stamp(t)
	return nil
}

// SearchRow is one search term in the searches export, as Mintlify's: how
// often it was searched (hits), the share of those searches a result was
// opened from (ctr, clicks / hits, at most 1), the result opened most
// (null if none) and the last search.
type SearchRow struct {
	SearchQuery    string  `json:"searchQuery"`
	Hits           int     `json:"hits"`
	CTR            float64 `json:"ctr"`
	TopClickedPage *string `json:"topClickedPage"`
	LastSearchedAt Stamp   `json:"lastSearchedAt"`
}

// Searches is the searches export: terms by hits descending (then term),
// every search in the range, and the next page's cursor (null on the last).
type Searches struct {
	Searches      []SearchRow `json:"searches"`
	TotalSearches int         `json:"totalSearches"`
	NextCursor    *string     `json:"nextCursor"`
}

// Searches answers the searches export (CONTRACT §3). Clicks count in the
// range as searches do.
func (s *Service) Searches(ctx context.Context, projectID string, q CursorQuery) (Searches, error) {
	out := Searches{Searches: []SearchRow{}}
	st, err := s.site(ctx, projectID, false)
	if err != nil || st == nil {
		return out, err
	}
	from, to := q.bounds()
	if from >= to {
		return out, nil
	}
	terms, err := s.db.SearchTerms(ctx, st.id, from, to, q.Limit+1, q.Offset)
	if err != nil {
		return out, err
	}
	if len(terms) > q.Limit {
		terms = terms[:q.Limit]
		out.NextCursor = offsetCursor(cursorSearches, q.Offset+q.Limit)
	}
	if out.TotalSearches, err = s.db.SearchCount(ctx, st.id, from, to); err != nil {
		return out, err
	}
	queries := make([]string, len(terms))
	for i, t := range terms {
		queries[i] = t.Query
	}
	clicks, err := s.db.SearchClicks(ctx, st.id, from, to, queries)
	if err != nil {
		return out, err
	}
	type opened struct {
		total, top int
		page       string
	}
	byTerm := map[string]*opened{}
	for _, c := range clicks {
		o := byTerm[c.Query]
		if o == nil {
			o = &opened{}
			byTerm[c.Query] = o
		}
		o.total += c.Clicks
		if c.Clicks > o.top || c.Clicks == o.top && c.Path < o.page {
			o.top, o.page = c.Clicks, c.Path
		}
	}
	for _, t := range terms {
		row := SearchRow{SearchQuery: t.Query, Hits: t.Hits, LastSearchedAt: Stamp(time.UnixMilli(t.LastAt))}
		if o := byTerm[t.Query]; o != nil {
			// A reader may open several results of one search: the rate
			// is of searches, so it stops at every search.
			row.CTR = float64(min(o.total, t.Hits)) / float64(t.Hits)
			row.TopClickedPage = &o.page
		}
		out.Searches = append(out.Searches, row)
	}
	return out, nil
}
