package analytics

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/folio-docs/folio/model"
)

// Each event type takes its own fields and names what is wrong with them,
// one case per rule of CONTRACT §3 ("Searches and feedback").
func TestParseEventsByType(t *testing.T) {
	now := time.Date(2026, 3, 2, 12, 0, 0, 0, time.UTC)
	yes, hits, negative := true, int64(3), int64(-1)
	for _, tc := range []struct {
		name    string
		event   RawEvent
		problem string // "field: words of the message", or "" for accepted
	}{
		{"a view without a type", RawEvent{Path: "/a", Timestamp: "2026-03-02T10:00:00Z", UserAgent: "x", IP: "192.0.2.1"}, ""},
		{"a view with its type", RawEvent{Type: "view", Path: "/a", Timestamp: "2026-03-02T10:00:00Z", UserAgent: "x", IP: "192.0.2.1"}, ""},
		{"a view with a search's field", RawEvent{Path: "/a", Timestamp: "2026-03-02T10:00:00Z", UserAgent: "x", IP: "192.0.2.1", EventDetail: EventDetail{Query: "q"}}, "query: A view event takes no query"},
		{"an unknown type", RawEvent{Type: "click", Timestamp: "2026-03-02T10:00:00Z"}, "type: Unknown event type"},
		{"a search", RawEvent{Type: "search", Timestamp: "2026-03-02T10:00:00Z", EventDetail: EventDetail{Query: "  Auth   Keys ", Hits: &hits}}, ""},
		{"a search without hits", RawEvent{Type: "search", Timestamp: "2026-03-02T10:00:00Z", EventDetail: EventDetail{Query: "auth"}}, "hits: hits is required"},
		{"a search with negative hits", RawEvent{Type: "search", Timestamp: "2026-03-02T10:00:00Z", EventDetail: EventDetail{Query: "auth", Hits: &negative}}, "hits: from 0"},
		{"a search without a term", RawEvent{Type: "search", Timestamp: "2026-03-02T10:00:00Z", EventDetail: EventDetail{Query: "   ", Hits: &hits}}, "query: The query is required"},
		{"a search term too long", RawEvent{Type: "search", Timestamp: "2026-03-02T10:00:00Z", EventDetail: EventDetail{Query: strings.Repeat("é", MaxTermLen+1), Hits: &hits}}, "query: longer than 200"},
		{"a search without a time", RawEvent{Type: "search", EventDetail: EventDetail{Query: "auth", Hits: &hits}}, "timestamp: required"},
		{"a search with a view's field", RawEvent{Type: "search", Timestamp: "2026-03-02T10:00:00Z", EventDetail: EventDetail{Query: "auth", Hits: &hits}, UserAgent: "x"}, "userAgent: A search event takes no userAgent"},
		{"a search click", RawEvent{Type: "searchClick", Timestamp: "2026-03-02T10:00:00Z", EventDetail: EventDetail{Query: "auth"}, Path: "/auth?x#y"}, ""},
		{"a search click without a page", RawEvent{Type: "searchClick", Timestamp: "2026-03-02T10:00:00Z", EventDetail: EventDetail{Query: "auth"}}, "path: required"},
		{"a search click with hits", RawEvent{Type: "searchClick", Timestamp: "2026-03-02T10:00:00Z", EventDetail: EventDetail{Query: "auth", Hits: &hits}, Path: "/a"}, "hits: A searchClick event takes no hits"},
		{"feedback", RawEvent{Type: "feedback", Timestamp: "2026-03-02T10:00:00Z", Path: "/a", EventDetail: EventDetail{Helpful: &yes, Source: "contextual", Comment: " Clear. ", Contact: "ada@example.com"}}, ""},
		{"feedback without a source", RawEvent{Type: "feedback", Timestamp: "2026-03-02T10:00:00Z", Path: "/a", EventDetail: EventDetail{Helpful: &yes}}, "source: required"},
		{"feedback of an unknown source", RawEvent{Type: "feedback", Timestamp: "2026-03-02T10:00:00Z", Path: "/a", EventDetail: EventDetail{Helpful: &yes, Source: "email"}}, "source: Unknown source"},
		{"feedback without a rating", RawEvent{Type: "feedback", Timestamp: "2026-03-02T10:00:00Z", Path: "/a", EventDetail: EventDetail{Source: "thumbs_only"}}, "helpful: required"},
		{"feedback with a bad contact", RawEvent{Type: "feedback", Timestamp: "2026-03-02T10:00:00Z", Path: "/a", EventDetail: EventDetail{Helpful: &yes, Source: "contextual", Contact: "Ada <ada@example.com>"}}, "contact: must be an e-mail address"},
		{"feedback with a long comment", RawEvent{Type: "feedback", Timestamp: "2026-03-02T10:00:00Z", Path: "/a", EventDetail: EventDetail{Helpful: &yes, Source: "contextual", Comment: strings.Repeat("x", MaxCommentLen+1)}}, "comment: longer than 2000"},
		{"page feedback with code", RawEvent{Type: "feedback", Timestamp: "2026-03-02T10:00:00Z", Path: "/a", EventDetail: EventDetail{Helpful: &yes, Source: "contextual", Code: "x"}}, "code: Only a code snippet's feedback"},
		{"a code snippet's feedback", RawEvent{Type: "feedback", Timestamp: "2026-03-02T10:00:00Z", Path: "/a", EventDetail: EventDetail{Source: "code_snippet", Code: "  go run .\n", Lang: "sh"}}, ""},
		{"a code snippet's feedback without code", RawEvent{Type: "feedback", Timestamp: "2026-03-02T10:00:00Z", Path: "/a", EventDetail: EventDetail{Source: "code_snippet"}}, "code: required"},
		{"an agent's feedback", RawEvent{Type: "feedback", Timestamp: "2026-03-02T10:00:00Z", Path: "/a", EventDetail: EventDetail{Helpful: &yes, Source: "agent"}}, ""},
	} {
		_, problems := ParseEvents([]RawEvent{tc.event}, now)
		got := ""
		if len(problems) > 0 {
			got = strings.TrimPrefix(problems[0].Field, "events[0].") + ": " + problems[0].Message
		}
		field, words, _ := strings.Cut(tc.problem, ": ")
		switch {
		case tc.problem == "" && got != "":
			t.Errorf("%s: refused (%s), want accepted", tc.name, got)
		case tc.problem != "" && (!strings.HasPrefix(got, field+": ") || !strings.Contains(got, words)):
			t.Errorf("%s: %q, want %q", tc.name, got, tc.problem)
		}
	}

	// What is kept: the term grouped, the page without query or fragment,
	// the texts trimmed but the code as written, the time to the millisecond.
	events, problems := ParseEvents([]RawEvent{
		{Type: "search", Timestamp: "2026-03-02T10:00:00Z", EventDetail: EventDetail{Query: "  Auth   Keys ", Hits: &hits}},
		{Type: "searchClick", Timestamp: "2026-03-02T10:00:01Z", EventDetail: EventDetail{Query: "AUTH keys"}, Path: "/auth?x#y"},
		{Type: "feedback", Timestamp: "2026-03-02T10:00:02.123456Z", Path: "/a", EventDetail: EventDetail{Source: "code_snippet", Code: "  go run .\n", Comment: " Fails. "}},
		{Path: "/a", Timestamp: "2026-03-02T10:00:00Z", UserAgent: "x", IP: "192.0.2.1"},
	}, now)
	if problems != nil {
		t.Fatal(problems)
	}
	f := events.Feedback[0]
	got := fmt.Sprintf("%q %d | %q %q | %q %q %v %s %v", events.Searches[0].Query, events.Searches[0].Results, events.Clicks[0].Query, events.Clicks[0].Path,
		f.Code, f.Comment, f.Helpful, f.Status, f.CreatedAt.Format(time.RFC3339Nano))
	want := `"auth keys" 3 | "auth keys" "/auth" | "  go run .\n" "Fails." <nil> pending 2026-03-02T10:00:02.123Z`
	if got != want || len(events.Views) != 1 || events.Len() != 4 {
		t.Errorf("kept %s (%d views), want %s (1 view)", got, len(events.Views), want)
	}
	if f.Source != model.FeedbackCodeSnippet {
		t.Errorf("source %q", f.Source)
	}
}
