package api

import (
	"fmt"
	"maps"
	"net/http"
	"slices"

	"github.com/folio-docs/folio/analytics"
	"github.com/folio-docs/folio/handlers/httpx"
)

// AnalyticsOpenAPI describes the analytics API (CONTRACT §3).
func AnalyticsOpenAPI() OpenAPIPart {
	project := pathParam("projectId", "The project's id, from the API keys page.")
	integer := map[string]any{"type": "integer", "minimum": 0}
	str := map[string]any{"type": "string"}
	timestamp := map[string]any{"type": "string", "format": "date-time"}
	term := map[string]any{"type": "string", "description": fmt.Sprintf("The search term; grouped with white space collapsed and in lower case, at most %d characters.", analytics.MaxTermLen)}
	date := map[string]any{"type": "string", "description": "YYYY-MM-DD (that day's start, UTC) or an ISO 8601 date-time (UTC when it names no zone). Page views are kept to the millisecond, so a finer bound (Python's microseconds) is ceiled to the millisecond, which counts exactly the views at or after it. dateFrom equal to dateTo is an empty range (200); dateFrom after dateTo is 400."}
	// JSON Schema's integer is any number without a fraction, 50.0 too, as the parser reads it.
	integral := " An integer written as a number (50.0, 5e1) is that integer; a fraction (50.5) is 400."
	rangeParams := []any{project,
		queryParam("dateFrom", "Lower bound (inclusive).", date),
		queryParam("dateTo", "Upper bound (exclusive): results include dates before, not on, it.", date),
		queryParam("limit", "Rows per page."+integral, map[string]any{"type": "integer", "minimum": 1, "maximum": 250, "default": 50}),
		queryParam("offset", "Rows to skip: (page - 1) * limit."+integral, map[string]any{"type": "integer", "minimum": 0, "default": 0}),
	}
	errs := []int{http.StatusBadRequest, http.StatusUnauthorized, http.StatusForbidden, http.StatusNotFound}
	object := func(required []any, props map[string]any) map[string]any {
		return map[string]any{"type": "object", "required": required, "properties": props}
	}
	visitorCounts := map[string]any{"human": integer, "ai": integer, "total": integer}
	viewCounts := map[string]any{"human": integer, "ai": integer, "aiSearch": integer, "aiTraining": integer, "bots": integer, "total": integer}
	withPath := func(props map[string]any) map[string]any {
		out := map[string]any{"path": str}
		for k, v := range props {
			out[k] = v
		}
		return out
	}

	unknown := " An unknown query parameter (say, a misspelt datefrom) is 400 naming it."
	visitors := operation("getUniqueVisitors", "Unique visitors, site-wide and per page, split human/AI; total is deduplicated across both."+unknown, 200, ref("VisitorsExport"), errs...)
	visitors["parameters"] = rangeParams
	views := operation("getPageViews", "Page views, site-wide and per page, split human, ai, aiSearch, aiTraining, bots; total is human + ai (as Mintlify's export defines it), the crawler classes are beside it, not in it."+unknown, 200, ref("ViewsExport"), errs...)
	views["parameters"] = rangeParams
	agents := operation("getAgents", "Who reads the docs besides people: per agent or crawler named for a view in the range (every class but human; a Markdown read by an unnamed client is \"Markdown reader\" and any other view no list names \"Unnamed bot\", each with a null operator), its views and exact distinct visitors, by visitors then views descending, then name."+unknown, 200, ref("AgentsExport"), errs...)
	agents["parameters"] = append(slices.Clone(rangeParams), queryParam("path", "One page only (exact match).", str))
	referrers := operation("getReferrers", "Where people come from: per source of the people's views in the range (the referrer's host; null for direct: no referrer, or a page of the site itself), its channel, the list's name for it, its views and exact distinct visitors, by visitors then views descending, then source. Human views only; the channels come from matomo's searchengine-and-social-list."+unknown, 200, ref("ReferrersExport"), errs...)
	referrers["parameters"] = append(slices.Clone(rangeParams), queryParam("path", "One page only (exact match).", str))
	events := operation("recordEvents", "Record server-side page views (how a docs host reports AI agents). The batch is validated whole: one bad event stores nothing. With an Idempotency-Key, a batch retried after a lost answer is stored once.", 200,
		object([]any{"accepted"}, map[string]any{"accepted": integer}), http.StatusBadRequest, http.StatusUnauthorized, http.StatusForbidden, http.StatusNotFound, http.StatusConflict, http.StatusRequestEntityTooLarge, http.StatusUnsupportedMediaType)
	events["parameters"] = []any{project, map[string]any{"name": "Idempotency-Key", "in": "header", "required": false,
		"description": "The same key with the same events within 24 hours stores nothing more and returns the first answer (with Idempotent-Replayed: true); with other events, 409 idempotency_conflict.",
		"schema":      map[string]any{"type": "string", "maxLength": httpx.MaxIdempotencyKey}}}
	events["requestBody"] = map[string]any{"required": true, "content": jsonContent(ref("EventBatch"))}

	events["description"] = "An ingest key (scope ingest, which opens only the events API and the drains) is enough, as is a write key."

	drainOK := object([]any{"accepted", "skipped", "duplicates"}, map[string]any{
		"accepted":   map[string]any{"type": "integer", "minimum": 0, "description": "Page views of the delivery now stored, by this delivery or an earlier one of the same entries."},
		"duplicates": map[string]any{"type": "integer", "minimum": 0, "description": "Of those, how many an earlier delivery stored: a redelivered batch stores nothing twice."},
		"skipped":    map[string]any{"type": "integer", "minimum": 0, "description": "Entries that are not page views: not requests (build output, function logs), not a GET, not a success, a static asset, or without what tells a reader (user agent, client address, time)."},
		"skippedBy":  map[string]any{"type": "object", "additionalProperties": integer, "description": "The skipped entries by reason."},
	})
	limits := fmt.Sprintf(" A delivery is stored whole, in one transaction, or not at all: one that is not the provider's format is 400, one over %d bytes as sent, %d decompressed or %d entries is 413. An ingest key (or a write key) in Authorization: Bearer.",
		analytics.MaxDrainBody, analytics.MaxDrainDecoded, analytics.MaxDrainEntries)
	drainBody := func(desc string) map[string]any {
		raw := map[string]any{"schema": map[string]any{"type": "string", "format": "binary"}}
		return map[string]any{"required": false, "description": desc, "content": map[string]any{
			"application/json": raw, "application/x-ndjson": raw, "application/gzip": raw}}
	}
	drainErrs := []int{http.StatusBadRequest, http.StatusUnauthorized, http.StatusForbidden, http.StatusNotFound, http.StatusRequestEntityTooLarge}
	vercel := operation("drainVercel", "Vercel log drain: the request logs Vercel pushes (JSON array or NDJSON, gzip or not). Entries with a proxy object are requests; build output and function logs are skipped. Every delivery must carry x-vercel-signature, the HMAC-SHA1 of the body under the project's drain secret; every answer carries x-vercel-verify, the project's Vercel verification code, and an empty delivery (Vercel's endpoint verification) stores nothing."+limits, 200, drainOK, drainErrs...)
	vercel["parameters"] = []any{project,
		map[string]any{"name": vercelSignature, "in": "header", "required": false, "description": "Hex HMAC-SHA1 of the raw body under the project's drain secret (required on a non-empty delivery).", "schema": str}}
	vercel["requestBody"] = drainBody("Vercel's log entries (https://vercel.com/docs/drains/reference/logs).")
	netlify := operation("drainNetlify", "Netlify log drain (General HTTP endpoint, JSON or NDJSON): its traffic log entries (log_type traffic) are requests; function, edge function, deploy and WAF logs are skipped. Put the key in the drain's Authorization header field. Excluding PII drops the user agent and client address, and the entries with them."+limits, 200, drainOK, drainErrs...)
	netlify["parameters"] = []any{project}
	netlify["requestBody"] = drainBody("Netlify's log drain entries.")
	cloudflare := operation("drainCloudflare", "Cloudflare Logpush HTTP destination, dataset http_requests (gzip NDJSON): ClientRequestURI (or ClientRequestPath), ClientRequestUserAgent, ClientIP and EdgeStartTimestamp (unixnano, unix or rfc3339) are needed; ClientRequestMethod and EdgeResponseStatus keep out what is not a page read; RayID names a request; ClientRequestReferer is read. Logpush's test message is skipped. Send the key with the destination's header_Authorization parameter."+limits, 200, drainOK, drainErrs...)
	cloudflare["parameters"] = []any{project}
	cloudflare["requestBody"] = drainBody("One Logpush batch.")

	noKey := []any{} // the browser must never hold an admin key
	tracker := operation("trackPageView", fmt.Sprintf("Record a page view, a search, a search result opened or feedback from the browser tracker (no key; CORS for the project's allowed domains; rate limits per address, and for searches and feedback per project; bodies up to %d bytes). Bots and AI agents are not recorded here (their events are accepted and dropped), nor feedback of source agent.", MaxTrackerBody), 202, nil,
		http.StatusBadRequest, http.StatusForbidden, http.StatusNotFound, http.StatusRequestEntityTooLarge, http.StatusTooManyRequests)
	tracker["security"] = noKey
	trackerProps := feedbackInput(nil)
	maps.Copy(trackerProps, map[string]any{
		"project":  str,
		"type":     map[string]any{"type": "string", "enum": []any{analytics.TypeSearch, analytics.TypeSearchClick, analytics.TypeFeedback}, "description": "Left out for a page view."},
		"path":     map[string]any{"type": "string", "description": "The page viewed, rated, or opened from a search."},
		"referrer": str, "query": term, "hits": map[string]any{"type": "integer", "minimum": 0},
	})
	delete(trackerProps, "timestamp")
	trackerBody := map[string]any{"type": "object", "required": []any{"project"}, "additionalProperties": false,
		"description": "A page view (project, path, referrer), or an event of the events API's fields with its type; the time is when it arrives.", "properties": trackerProps}
	// The script sends text/plain: a simple request, with no CORS preflight, as a beacon needs.
	tracker["requestBody"] = map[string]any{"required": true, "content": map[string]any{
		"application/json": map[string]any{"schema": trackerBody}, "text/plain": map[string]any{"schema": trackerBody}}}
	preflight := operation("trackPageViewPreflight", "CORS preflight of the tracker's POST.", 204, nil)
	preflight["security"] = noKey
	script := operation("getTrackerScript", "The browser tracker, used as <script defer src=\"{base}/js/folio.js\" data-project=\"{projectId}\"></script>.", 200, nil)
	script["security"] = noKey
	script["responses"].(map[string]any)["200"] = map[string]any{"description": "The script.", "content": map[string]any{"text/javascript": map[string]any{"schema": str}}}

	return OpenAPIPart{
		Paths: map[string]map[string]any{
			"/api/event":                                  {"post": tracker, "options": preflight},
			"/js/folio.js":                                {"get": script},
			"/v1/analytics/{projectId}/visitors":          {"get": visitors},
			"/v1/analytics/{projectId}/views":             {"get": views},
			"/v1/analytics/{projectId}/agents":            {"get": agents},
			"/v1/analytics/{projectId}/referrers":         {"get": referrers},
			"/v1/analytics/{projectId}/events":            {"post": events},
			"/v1/analytics/{projectId}/drains/vercel":     {"post": vercel},
			"/v1/analytics/{projectId}/drains/netlify":    {"post": netlify},
			"/v1/analytics/{projectId}/drains/cloudflare": {"post": cloudflare},
		},
		Schemas: map[string]any{
			"VisitorsExport": object([]any{"totals", "visitors", "hasMore"}, map[string]any{
				"totals":   object([]any{"human", "ai", "total"}, visitorCounts),
				"visitors": map[string]any{"type": "array", "items": object([]any{"path", "human", "ai", "total"}, withPath(visitorCounts))},
				"hasMore":  map[string]any{"type": "boolean"},
			}),
			"ViewsExport": object([]any{"totals", "views", "hasMore"}, map[string]any{
				"totals":  object([]any{"human", "ai", "aiSearch", "aiTraining", "bots", "total"}, viewCounts),
				"views":   map[string]any{"type": "array", "items": object([]any{"path", "human", "ai", "aiSearch", "aiTraining", "bots", "total"}, withPath(viewCounts))},
				"hasMore": map[string]any{"type": "boolean"},
			}),
			"AgentsExport": object([]any{"agents", "hasMore"}, map[string]any{
				"agents": map[string]any{"type": "array", "items": object([]any{"name", "operator", "class", "views", "visitors"}, map[string]any{
					"name":     str,
					"operator": map[string]any{"type": []any{"string", "null"}, "description": "Who runs it (OpenAI, Anthropic, Google…); null when unknown."},
					"class":    map[string]any{"type": "string", "enum": []any{"ai", "aiSearch", "aiTraining", "bots"}},
					"views":    integer, "visitors": integer,
				})},
				"hasMore": map[string]any{"type": "boolean"},
			}),
			"ReferrersExport": object([]any{"referrers", "hasMore"}, map[string]any{
				"referrers": map[string]any{"type": "array", "items": object([]any{"source", "channel", "name", "views", "visitors"}, map[string]any{
					"source":  map[string]any{"type": []any{"string", "null"}, "description": "The referrer's host (never its path or query; x.com/i/grok, a list's entry with a path, as written); null for direct views."},
					"channel": map[string]any{"type": "string", "enum": []any{"aiAssistant", "search", "social", "direct", "other"}},
					"name":    map[string]any{"type": []any{"string", "null"}, "description": "The list's name for the source (ChatGPT, Perplexity, Google, Hacker News…); null when no list names it."},
					"views":   integer, "visitors": integer,
				})},
				"hasMore": map[string]any{"type": "boolean"},
			}),
			"EventBatch": object([]any{"events"}, map[string]any{
				"events": map[string]any{"type": "array", "minItems": 1, "maxItems": analytics.MaxBatch, "items": map[string]any{
					"oneOf": []any{ref("ViewEvent"), ref("SearchEvent"), ref("SearchClickEvent"), ref("FeedbackEvent")}}},
			}),
			"ViewEvent": map[string]any{
				"type": "object", "required": []any{"path", "timestamp", "userAgent"}, "additionalProperties": false,
				"description": "A page view. ip is required unless visitorId is given.",
				"properties": map[string]any{
					"type": map[string]any{"type": "string", "enum": []any{analytics.TypeView}, "default": analytics.TypeView},
					"path": str, "timestamp": timestamp, "userAgent": str, "ip": str,
					"visitorId": map[string]any{"type": "string", "description": "Your own stable visitor id; without it, a daily-keyed hash of IP and user agent is used."},
					"accept":    map[string]any{"type": "string", "description": "The request's Accept header, so Markdown reads are classed as AI."},
					"referrer":  map[string]any{"type": "string", "maxLength": 2048, "description": "The page that linked here (the Referer header), when there is one."},
				}},
			"SearchEvent": map[string]any{
				"type": "object", "required": []any{"type", "timestamp", "query", "hits"}, "additionalProperties": false,
				"description": "A search a reader made in the docs site's search box.",
				"properties": map[string]any{
					"type": map[string]any{"type": "string", "enum": []any{analytics.TypeSearch}}, "timestamp": timestamp, "query": term,
					"hits": map[string]any{"type": "integer", "minimum": 0, "description": "How many results the search showed (0 for none)."},
				}},
			"SearchClickEvent": map[string]any{
				"type": "object", "required": []any{"type", "timestamp", "query", "path"}, "additionalProperties": false,
				"description": "A result a reader opened from a search: ctr and topClickedPage in the searches export.",
				"properties": map[string]any{
					"type": map[string]any{"type": "string", "enum": []any{analytics.TypeSearchClick}}, "timestamp": timestamp, "query": term,
					"path": map[string]any{"type": "string", "description": "The page opened, from /."},
				}},
			"FeedbackEvent": map[string]any{
				"type": "object", "required": []any{"type", "timestamp", "path", "source"}, "additionalProperties": false,
				"description": "Feedback on a page: helpful is required except on a code snippet's (source code_snippet), which requires code and alone takes code, filename and lang. It is stored pending review.",
				"properties":  feedbackInput(timestamp),
			},
		},
	}
}

// feedbackInput are the fields a feedback event takes (timestamp nil:
// none, as from the tracker).
func feedbackInput(timestamp any) map[string]any {
	text := func(max int, desc string) map[string]any {
		return map[string]any{"type": "string", "description": fmt.Sprintf("%s At most %d characters (white space around it aside).", desc, max)}
	}
	props := map[string]any{
		"type":     map[string]any{"type": "string", "enum": []any{analytics.TypeFeedback}},
		"path":     map[string]any{"type": "string", "description": "The page the feedback is about, from /."},
		"helpful":  map[string]any{"type": "boolean", "description": "Whether the page (or the snippet) helped."},
		"source":   map[string]any{"type": "string", "enum": []any{"contextual", "thumbs_only", "code_snippet", "agent"}, "description": "contextual: the page's widget with a comment; thumbs_only: without; code_snippet: on a code block; agent: from an AI agent (events API only)."},
		"comment":  text(analytics.MaxCommentLen, "What the reader wrote."),
		"contact":  map[string]any{"type": "string", "format": "email", "maxLength": 254, "description": "An e-mail address the reader left to be answered at."},
		"code":     map[string]any{"type": "string", "maxLength": analytics.MaxCodeLen, "description": "The code snippet, as written (code_snippet only)."},
		"filename": text(255, "The snippet's file name (code_snippet only)."),
		"lang":     text(64, "The snippet's language (code_snippet only)."),
	}
	if timestamp != nil {
		props["timestamp"] = timestamp
	}
	return props
}
