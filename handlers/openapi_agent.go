package handlers

import (
	"net/http"

	"github.com/folio-docs/folio/jobs"
)

// AgentOpenAPI describes the agent job API (CONTRACT §2).
func AgentOpenAPI() OpenAPIPart {
	project := pathParam("projectId", "The project's id, from the API keys page.")
	job := pathParam("id", "The job's id.")
	prompt := map[string]any{"required": true, "content": jsonContent(ref("PromptRequest"))}
	rateLimited := func(op map[string]any) map[string]any {
		rl := map[string]any{"schema": map[string]any{"type": "integer"}}
		res := op["responses"].(map[string]any)
		for code, r := range res {
			if code != "429" && code != "400" && code != "409" && code[0] != '2' {
				continue
			}
			r.(map[string]any)["headers"] = map[string]any{"RateLimit-Limit": rl, "RateLimit-Remaining": rl, "RateLimit-Reset": rl}
		}
		res["429"].(map[string]any)["headers"].(map[string]any)["Retry-After"] = rl
		return op
	}
	auth := []int{http.StatusUnauthorized, http.StatusForbidden, http.StatusNotFound}
	errs := func(extra ...int) []int { return append(append([]int{}, auth...), extra...) }

	create := operation("createJob", "Start an agent job.", 201, ref("Job"), errs(400, 409, 413, 415, 429, 503)...)
	create["requestBody"] = prompt
	create["parameters"] = []any{project, map[string]any{"name": "Idempotency-Key", "in": "header", "required": false,
		"description": "The same key with the same body within 24 hours returns the same job; with another body, 409 idempotency_conflict.",
		"schema":      map[string]any{"type": "string", "maxLength": MaxIdempotencyKey}}}
	message := operation("sendJobMessage", "Send a follow-up prompt; processed asynchronously.", 200, ref("Job"), errs(400, 409, 413, 415, 429, 503)...)
	message["requestBody"] = prompt
	message["parameters"] = []any{project, job}

	list := operation("listJobs", "List jobs, newest first.", 200, ref("JobList"), errs(400)...)
	list["parameters"] = []any{project,
		queryParam("status", "Only jobs in this status.", map[string]any{"type": "string", "enum": []any{"active", "completed", "failed", "archived"}}),
		queryParam("limit", "Jobs per page.", map[string]any{"type": "integer", "minimum": 1, "maximum": 100, "default": 20}),
		queryParam("offset", "Jobs to skip.", map[string]any{"type": "integer", "minimum": 0, "default": 0}),
	}
	onJob := func(op map[string]any) map[string]any { return with(op, "parameters", []any{project, job}) }
	nullable := func(t, format string) map[string]any {
		s := map[string]any{"type": []any{t, "null"}}
		if format != "" {
			s["format"] = format
		}
		return s
	}
	str := map[string]any{"type": "string"}
	github := operation("githubWebhook", "GitHub's pull_request deliveries (X-Hub-Signature-256 with FOLIO_GITHUB_WEBHOOK_SECRET): a merged or closed pull request of a job archives the job.", 200, nil,
		http.StatusBadRequest, http.StatusUnauthorized, http.StatusNotFound)
	github["security"] = []any{}

	return OpenAPIPart{
		Paths: map[string]map[string]any{
			"/webhooks/github":                       {"post": github},
			"/v2/agent/{projectId}/job":              {"post": rateLimited(create)},
			"/v2/agent/{projectId}/job/{id}":         {"get": onJob(operation("getJob", "Get a job: the polling endpoint.", 200, ref("Job"), errs()...))},
			"/v2/agent/{projectId}/job/{id}/message": {"post": rateLimited(message)},
			"/v2/agent/{projectId}/jobs":             {"get": list},
			"/v2/agent/{projectId}/job/{id}/archive": {"post": onJob(operation("archiveJob", "Archive a job (stopping its run).", 200, ref("Job"), errs(409)...))},
			"/v2/agent/{projectId}/job/{id}/cancel":  {"post": onJob(operation("cancelJob", "Stop an active job's run: it fails with error.code canceled and queued follow-ups are dropped.", 200, ref("Job"), errs(409)...))},
			"/v2/agent/{projectId}/job/{id}/messages": {"get": onJob(operation("listJobMessages", "The conversation: each prompt, the agent's replies and tool calls, in order.", 200,
				map[string]any{"type": "object", "required": []any{"messages"}, "properties": map[string]any{"messages": map[string]any{"type": "array", "items": ref("Message")}}}, errs()...))},
		},
		Schemas: map[string]any{
			"PromptRequest": map[string]any{"type": "object", "required": []any{"prompt"}, "additionalProperties": false,
				"properties": map[string]any{"prompt": map[string]any{"type": "string", "minLength": 1, "maxLength": jobs.MaxPromptLength}}},
			"Job": map[string]any{"type": "object", "required": []any{"id", "status", "source", "model", "prLink", "createdAt", "archivedAt"},
				"properties": map[string]any{
					"id":     str,
					"status": map[string]any{"type": "string", "enum": []any{"active", "completed", "archived", "failed"}},
					"source": map[string]any{"type": "object", "properties": map[string]any{"repository": str, "ref": str}},
					"model":  str, "prLink": nullable("string", "uri"),
					"createdAt": map[string]any{"type": "string", "format": "date-time"}, "archivedAt": nullable("string", "date-time"),
					"updatedAt": map[string]any{"type": "string", "format": "date-time"}, "branch": str,
					"usage": map[string]any{"type": "object", "description": "What the job's runs have used of the model, over all turns and attempts.",
						"properties": map[string]any{"steps": map[string]any{"type": "integer"}, "tokens": map[string]any{"type": "integer"}}},
					"error": map[string]any{"type": "object", "description": "Why a failed job failed.", "properties": map[string]any{"code": str, "message": str}},
				}},
			"JobList": map[string]any{"type": "object", "required": []any{"jobs", "hasMore"},
				"properties": map[string]any{"jobs": map[string]any{"type": "array", "items": ref("Job")}, "hasMore": map[string]any{"type": "boolean"}}},
			"Message": map[string]any{"type": "object", "required": []any{"turn", "role", "content", "createdAt"},
				"properties": map[string]any{
					"turn": map[string]any{"type": "integer"}, "role": map[string]any{"type": "string", "enum": []any{"user", "assistant", "tool"}},
					"content": str, "toolCalls": map[string]any{"type": "array", "items": map[string]any{"type": "object",
						"properties": map[string]any{"id": str, "name": str, "arguments": map[string]any{}}}},
					"toolCallId": str, "toolName": str, "isError": map[string]any{"type": "boolean"},
					"discarded": map[string]any{"type": "boolean", "description": "Said by a failed attempt; not part of the history the agent continues from."},
					"dropped":   map[string]any{"type": "boolean", "description": "A queued follow-up dropped by a cancel or failure."},
					"createdAt": map[string]any{"type": "string", "format": "date-time"},
				}},
		},
	}
}
