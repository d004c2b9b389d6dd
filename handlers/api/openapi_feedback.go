package api

import (
	"fmt"
	"net/http"

	"github.com/folio-docs/folio/analytics"
)

// FeedbackOpenAPI describes the searches and feedback exports, in
// Mintlify's shapes, and Mintlify's assistant exports, which Folio does not
// have (CONTRACT §3, "Searches and feedback").
func FeedbackOpenAPI() OpenAPIPart {
	project := pathParam("projectId", "The project's id, from the API keys page.")
	str := map[string]any{"type": "string"}
	nullable := func(desc string) map[string]any {
		return map[string]any{"type": []any{"string", "null"}, "description": desc}
	}
	count := func(desc string) map[string]any {
		return map[string]any{"type": "integer", "minimum": 0, "description": desc}
	}
	stamp := func(desc string) map[string]any {
		return map[string]any{"type": "string", "format": "date-time", "description": desc + " RFC 3339 in UTC, to the millisecond."}
	}
	object := func(required []any, props map[string]any) map[string]any {
		return map[string]any{"type": "object", "required": required, "properties": props}
	}
	date := map[string]any{"type": "string", "description": "YYYY-MM-DD (that day's start, UTC) or an ISO 8601 date-time, as the other exports take it: a bound finer than a millisecond is ceiled to the millisecond; dateFrom equal to dateTo is an empty answer; dateFrom after dateTo is 400."}
	cursorParams := []any{project,
		queryParam("dateFrom", "Lower bound (inclusive).", date),
		queryParam("dateTo", "Upper bound (exclusive): results include dates before, not on, it.", date),
		queryParam("limit", "Rows per page. An integer written as a number (50.0) is that integer; a fraction is 400.",
			map[string]any{"type": "integer", "minimum": 1, "maximum": analytics.MaxCursorLimit, "default": analytics.DefaultCursorLimit}),
		queryParam("cursor", "The nextCursor of the previous page; left out for the first. Opaque: a cursor another export gave is 400.", str),
	}
	sources := []any{"contextual", "thumbs_only", "code_snippet", "agent"}
	statuses := []any{"pending", "in_progress", "resolved", "dismissed"}
	feedbackParams := append(cursorParams,
		queryParam("source", "Only feedback from this source.", map[string]any{"type": "string", "enum": sources}),
		queryParam("status", "Only feedback in these review statuses, a comma-separated list of pending, in_progress, resolved and dismissed.", str),
	)
	errs := []int{http.StatusBadRequest, http.StatusUnauthorized, http.StatusForbidden, http.StatusNotFound}
	unknown := " An unknown query parameter is 400 naming it."

	searches := operation("getSearches", "Search terms of the range by hits (searches of the term) descending, then term: the share of its searches a result was opened from (ctr, clicks / hits, at most 1), the result opened most, and the last search. totalSearches counts every search in the range (all hits, not distinct terms)."+unknown, 200, ref("SearchesExport"), errs...)
	searches["parameters"] = cursorParams
	feedback := operation("getFeedback", "Readers' feedback, newest first: page feedback (contextual, thumbs_only, agent) with helpful and contact, a code snippet's with code, filename and lang; optional texts not given are null."+unknown, 200, ref("FeedbackExport"), errs...)
	feedback["parameters"] = feedbackParams
	byPage := operation("getFeedbackByPage", "Feedback counted per page, by total descending then path: thumbs up and down of the page's ratings (code snippets' aside), code snippets' feedback, and all of it. Beside Mintlify's hasMore, nextCursor pages on."+unknown, 200, ref("FeedbackByPageExport"), errs...)
	byPage["parameters"] = feedbackParams
	assistant := func(id, summary string) map[string]any {
		op := operation(id, summary+" Folio has no assistant: always 404 not_found (after the key is checked).", http.StatusNotFound, ref("Error"), http.StatusUnauthorized, http.StatusForbidden)
		op["responses"].(map[string]any)["404"] = response("Folio has no assistant.", ref("Error"))
		op["parameters"] = []any{project}
		return op
	}

	pageFeedback := object([]any{"id", "path", "comment", "createdAt", "source", "status", "helpful", "contact"}, map[string]any{
		"id": str, "path": str, "comment": nullable("What the reader wrote, or null."), "createdAt": stamp("When it was given."),
		"source":  map[string]any{"type": "string", "enum": []any{"contextual", "thumbs_only", "agent"}},
		"status":  map[string]any{"type": "string", "enum": statuses, "description": "The review status admins give it on the dashboard's Feedback page; pending when new."},
		"helpful": map[string]any{"type": "boolean"}, "contact": nullable("The e-mail address the reader left, or null."),
	})
	codeFeedback := object([]any{"id", "path", "comment", "createdAt", "source", "status", "code", "filename", "lang"}, map[string]any{
		"id": str, "path": str, "comment": nullable("What the reader wrote, or null."), "createdAt": stamp("When it was given."),
		"source": map[string]any{"type": "string", "enum": []any{"code_snippet"}},
		"status": map[string]any{"type": "string", "enum": statuses},
		"code":   map[string]any{"type": "string", "description": "The snippet, as written."}, "filename": nullable("The snippet's file name, or null."), "lang": nullable("The snippet's language, or null."),
	})
	return OpenAPIPart{
		Paths: map[string]map[string]any{
			"/v1/analytics/{projectId}/searches":               {"get": searches},
			"/v1/analytics/{projectId}/feedback":               {"get": feedback},
			"/v1/analytics/{projectId}/feedback/by-page":       {"get": byPage},
			"/v1/analytics/{projectId}/assistant":              {"get": assistant("getAssistantConversations", "Mintlify's assistant conversations.")},
			"/v1/analytics/{projectId}/assistant/caller-stats": {"get": assistant("getAssistantCallerStats", "Mintlify's assistant caller stats.")},
		},
		Schemas: map[string]any{
			"SearchesExport": object([]any{"searches", "totalSearches", "nextCursor"}, map[string]any{
				"searches": map[string]any{"type": "array", "items": object([]any{"searchQuery", "hits", "ctr", "topClickedPage", "lastSearchedAt"}, map[string]any{
					"searchQuery":    map[string]any{"type": "string", "description": fmt.Sprintf("The term: white space collapsed, lower case, at most %d characters.", analytics.MaxTermLen)},
					"hits":           count("Searches of the term in the range."),
					"ctr":            map[string]any{"type": "number", "minimum": 0, "maximum": 1, "description": "Results opened from the term / hits, at most 1."},
					"topClickedPage": nullable("The result opened most from the term (the first path of a tie), or null."),
					"lastSearchedAt": stamp("The term's last search in the range."),
				})},
				"totalSearches": count("Every search in the range."),
				"nextCursor":    nullable("The next page's cursor; null on the last page."),
			}),
			"FeedbackExport": object([]any{"feedback", "nextCursor", "hasMore"}, map[string]any{
				"feedback":   map[string]any{"type": "array", "items": map[string]any{"oneOf": []any{ref("PageFeedback"), ref("CodeSnippetFeedback")}}},
				"nextCursor": nullable("The next page's cursor; null on the last page."),
				"hasMore":    map[string]any{"type": "boolean"},
			}),
			"PageFeedback":        pageFeedback,
			"CodeSnippetFeedback": codeFeedback,
			"FeedbackByPageExport": object([]any{"feedback", "hasMore", "nextCursor"}, map[string]any{
				"feedback": map[string]any{"type": "array", "items": object([]any{"path", "thumbsUp", "thumbsDown", "code", "total"}, map[string]any{
					"path": str, "thumbsUp": count("Ratings of the page that it helped."), "thumbsDown": count("Ratings of the page that it did not."),
					"code": count("Feedback on the page's code snippets."), "total": count("All feedback on the page."),
				})},
				"hasMore":    map[string]any{"type": "boolean"},
				"nextCursor": nullable("The next page's cursor (Folio's, beside Mintlify's fields); null on the last page."),
			}),
		},
	}
}
