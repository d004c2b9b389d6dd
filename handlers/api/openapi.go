package api

import (
	"maps"
	"net/http"
	"strconv"

	"github.com/folio-docs/folio/handlers/httpx"
)

// OpenAPIPart is one area's share of the OpenAPI document: its paths
// (path → method → operation), the webhooks Folio sends (name → method →
// operation), and the schemas they refer to. Each area of the API
// contributes one, so the document is assembled beside the code.
type OpenAPIPart struct {
	Paths    map[string]map[string]any
	Webhooks map[string]map[string]any
	Schemas  map[string]any
}

// FolioOpenAPI is the document /openapi.json serves: every public area's
// part, for the base URL.
func FolioOpenAPI(baseURL string) map[string]any {
	return OpenAPIDocument(baseURL, AgentOpenAPI(), AnalyticsOpenAPI(), FeedbackOpenAPI())
}

// OpenAPIDocument assembles an OpenAPI 3.1 document from the parts.
func OpenAPIDocument(baseURL string, parts ...OpenAPIPart) map[string]any {
	paths, webhooks := map[string]any{}, map[string]any{}
	schemas := map[string]any{}
	for _, p := range append([]OpenAPIPart{commonOpenAPI()}, parts...) {
		mergeOperations(paths, p.Paths)
		mergeOperations(webhooks, p.Webhooks)
		maps.Copy(schemas, p.Schemas)
	}
	for _, item := range paths {
		completeOperations(item.(map[string]any))
	}
	return map[string]any{
		"openapi": "3.1.0",
		"info": map[string]any{
			"title":       "Folio API",
			"version":     "2",
			"description": "Documentation agent jobs (/v2/agent) and documentation analytics (/v1/analytics). Every error is {\"error\", \"code\", \"details\"?}.",
		},
		"servers":  []any{map[string]any{"url": baseURL}},
		"security": []any{map[string]any{"bearer": []any{}}},
		"paths":    paths,
		"webhooks": webhooks,
		"components": map[string]any{
			"securitySchemes": map[string]any{"bearer": map[string]any{"type": "http", "scheme": "bearer", "description": "An API key, folio_…. It opens the projects it was made for: one, several, or every project its creator administers (any other is 404). A key with an IP allowlist answers 403 ip_not_allowed to a client outside it; behind a proxy listed in FOLIO_TRUSTED_PROXIES the client is the address X-Forwarded-For names."}},
			"schemas":         schemas,
		},
	}
}

// mergeOperations adds each of ops' operations (key → method → operation)
// to into, beside those another part gave the same key.
func mergeOperations(into map[string]any, ops map[string]map[string]any) {
	for key, methods := range ops {
		merged, _ := into[key].(map[string]any)
		if merged == nil {
			merged = map[string]any{}
			into[key] = merged
		}
		maps.Copy(merged, methods)
	}
}

// OpenAPI serves a document built once.
func OpenAPI(doc map[string]any) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		httpx.WriteJSON(w, http.StatusOK, doc)
	}
}

// completeOperations adds what every route has in common, so no part can
// forget it: a HEAD beside each GET (the router serves both), and the JSON
// 500 any request may meet (a panic or a failed dependency, with its
// request id).
func completeOperations(item map[string]any) {
	if get, ok := item["get"].(map[string]any); ok && item["head"] == nil {
		head := maps.Clone(get)
		head["operationId"] = get["operationId"].(string) + "Head"
		head["summary"] = "The headers GET would answer, without the body."
		responses := map[string]any{}
		for code, r := range get["responses"].(map[string]any) {
			responses[code] = map[string]any{"description": r.(map[string]any)["description"]}
		}
		head["responses"] = responses
		item["head"] = head
	}
	for _, op := range item {
		if responses := op.(map[string]any)["responses"].(map[string]any); responses["500"] == nil {
			responses["500"] = response("Internal server error; the body carries the request id to quote.", ref("Error"))
		}
	}
}

// Helpers that keep the parts short.

func ref(name string) map[string]any { return map[string]any{"$ref": "#/components/schemas/" + name} }

func jsonContent(schema any) map[string]any {
	return map[string]any{"application/json": map[string]any{"schema": schema}}
}

func response(desc string, schema any) map[string]any {
	r := map[string]any{"description": desc}
	if schema != nil {
		r["content"] = jsonContent(schema)
	}
	return r
}

// operation builds an operation answering ok with okSchema, plus the
// given error statuses in the contract's shape.
func operation(id, summary string, ok int, okSchema any, errs ...int) map[string]any {
	res := map[string]any{strconv.Itoa(ok): response("Success.", okSchema)}
	for _, s := range errs {
		desc := http.StatusText(s) + "."
		switch s {
		case http.StatusForbidden:
			desc = "Forbidden: the key's scope does not allow this (code forbidden), or the client's address is outside the key's IP allowlist (code ip_not_allowed)."
		case http.StatusNotFound:
			desc = "Not found, or a project the key does not open: answered alike, so ids never leak."
		}
		res[strconv.Itoa(s)] = response(desc, ref("Error"))
	}
	return map[string]any{"operationId": id, "summary": summary, "responses": res}
}

func pathParam(name, desc string) map[string]any {
	return map[string]any{"name": name, "in": "path", "required": true, "description": desc, "schema": map[string]any{"type": "string"}}
}

func queryParam(name, desc string, schema map[string]any) map[string]any {
	return map[string]any{"name": name, "in": "query", "required": false, "description": desc, "schema": schema}
}

func with(op map[string]any, key string, v any) map[string]any {
	op[key] = v
	return op
}

func commonOpenAPI() OpenAPIPart {
	public := []any{}
	return OpenAPIPart{
		Paths: map[string]map[string]any{
			"/openapi.json": {"get": with(operation("getOpenAPI", "This document.", 200, map[string]any{"type": "object"}), "security", public)},
			"/healthz":      {"get": with(operation("healthz", "Liveness: the process answers.", 200, map[string]any{"type": "object"}), "security", public)},
			"/readyz":       {"get": with(operation("readyz", "Readiness: the database and Redis answer.", 200, map[string]any{"type": "object"}, 503), "security", public)},
		},
		Schemas: map[string]any{
			"Error": map[string]any{
				"type":     "object",
				"required": []any{"error", "code"},
				"properties": map[string]any{
					"error":     map[string]any{"type": "string", "description": "One human sentence."},
					"code":      map[string]any{"type": "string", "description": "A stable code, e.g. invalid_request, not_found, job_archived, rate_limited."},
					"details":   map[string]any{"type": "array", "items": map[string]any{"type": "object", "properties": map[string]any{"field": map[string]any{"type": "string"}, "message": map[string]any{"type": "string"}}}},
					"requestId": map[string]any{"type": "string"},
				},
			},
		},
	}
}
