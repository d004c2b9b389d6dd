package analytics

import (
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
