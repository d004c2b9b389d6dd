package api

import (
	"net/http"

	"github.com/folio-docs/folio/handlers/httpx"
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
	idemKey := map[string]any{"name": "Idempotency-Key", "in": "header", "required": false,
		"description": "The same key with the same body within 24 hours returns the same job (Idempotent-Replayed: true) and does not count against the rate limit; with another body, 409 idempotency_conflict.",
		"schema":      map[string]any{"type": "string", "maxLength": httpx.MaxIdempotencyKey}}
	create["requestBody"] = map[string]any{"required": true, "content": jsonContent(ref("CreateJobRequest"))}
	create["parameters"] = []any{project, idemKey}
	message := operation("sendJobMessage", "Send a follow-up prompt; processed asynchronously. On an active job it is queued and given to the agent with the others queued, in order, in the next turn.", 200, ref("Job"), errs(400, 409, 413, 415, 429, 503)...)
	message["requestBody"] = prompt
	message["parameters"] = []any{project, job, idemKey}
	models := operation("listModels", "The models a job may ask for (the provider's list; only the default where the provider has none), and the default.", 200,
		map[string]any{"type": "object", "required": []any{"models", "default"}, "properties": map[string]any{
			"models":  map[string]any{"type": "array", "items": map[string]any{"type": "object", "required": []any{"id"}, "properties": map[string]any{"id": map[string]any{"type": "string"}}}},
			"default": map[string]any{"type": "string"},
		}}, errs()...)
	models["parameters"] = []any{project}

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
	events := onJob(operation("streamJobEvents", "Follow a job as it changes: server-sent events.", 200, nil, errs()...))
	events["description"] = "A text/event-stream that stays open until the client closes it. `event: job` carries the job " +
		"(a Job, as GET job returns it): first on connecting, then on every change of status, prLink, summary, problems, error, " +
		"archivedAt or mergedAt (not of usage or updatedAt alone). " +
		"`event: message` carries one entry of the conversation (a Message, as GET .../messages returns each) as it is " +
		"recorded (once: a flag that changes later, such as dropped, is in GET .../messages); messages recorded before a " +
		"change of status are sent before it. A comment line (`: keep-alive`) comes at " +
		"least every 15 s. Every event has an `id:`; a client that reconnects with it in Last-Event-ID (browsers' EventSource " +
		"does so itself) gets the job first if it changed since, then the messages it missed, and nothing twice."
	events["parameters"] = append(events["parameters"].([]any), map[string]any{"name": "Last-Event-ID", "in": "header", "required": false,
		"description": "The id of the last event received: the stream resumes after it.", "schema": str})
	events["responses"].(map[string]any)["200"] = map[string]any{"description": "The job's events.",
		"content": map[string]any{"text/event-stream": map[string]any{"schema": map[string]any{"type": "string",
			"example": "id: 0-8f3a2c1d9e7b6a50\nevent: job\ndata: {\"id\":\"…\",\"status\":\"active\",…}\n\n" +
				"id: 17-8f3a2c1d9e7b6a50\nevent: message\ndata: {\"turn\":1,\"role\":\"user\",\"content\":\"…\",…}\n\n: keep-alive\n\n"}}}}
	github := operation("githubWebhook", "GitHub's pull_request deliveries (X-Hub-Signature-256 with FOLIO_GITHUB_WEBHOOK_SECRET): a merged or closed pull request of a job archives the job; a merged one is recorded as merged (mergedAt, and the diff GitHub merged in .../changes).", 200, nil,
		http.StatusBadRequest, http.StatusUnauthorized, http.StatusNotFound)
	github["security"] = []any{}
	statusChanged := map[string]any{
		"operationId": "jobStatusChanged",
		"summary":     "Folio POSTs this to the project's webhook URL on every status change of a job.",
		"description": "Signed `" + jobs.SignatureHeader + ": t=<unix seconds>,v1=<hex HMAC-SHA256 of \"<t>.<body>\">` with the project's webhook secret: " +
			"recompute it over the raw body and refuse an old `t`. Answer 2xx within 15 s; anything else is retried with backoff (10 s, doubling up to an hour) " +
			"for a day, and every attempt is listed on the project's settings page. Delivery is at least once: deduplicate by `id`. " +
			"One job's events come in order of `sequence`, a later one only after the one before was answered 2xx or given up.",
		"parameters": []any{
			map[string]any{"name": jobs.SignatureHeader, "in": "header", "required": true, "schema": str},
			map[string]any{"name": "Folio-Event-Id", "in": "header", "required": true, "description": "The body's id.", "schema": str},
		},
		"requestBody": map[string]any{"required": true, "content": jsonContent(ref("WebhookEvent"))},
		"responses":   map[string]any{"2XX": map[string]any{"description": "Received; any other answer, or none, is retried."}},
		"security":    []any{},
	}

	return OpenAPIPart{
		Webhooks: map[string]map[string]any{"jobStatusChanged": {"post": statusChanged}},
		Paths: map[string]map[string]any{
			"/webhooks/github":                       {"post": github},
			"/v2/agent/{projectId}/job":              {"post": rateLimited(create)},
			"/v2/agent/{projectId}/job/{id}":         {"get": onJob(operation("getJob", "Get a job: the polling endpoint.", 200, ref("Job"), errs()...))},
			"/v2/agent/{projectId}/job/{id}/message": {"post": rateLimited(message)},
			"/v2/agent/{projectId}/jobs":             {"get": list},
			"/v2/agent/{projectId}/models":           {"get": models},
			"/v2/agent/{projectId}/job/{id}/archive": {"post": onJob(operation("archiveJob", "Archive a job (stopping its run).", 200, ref("Job"), errs(409)...))},
			"/v2/agent/{projectId}/job/{id}/cancel":  {"post": onJob(operation("cancelJob", "Stop an active job's run: it fails with error.code canceled and queued follow-ups are dropped.", 200, ref("Job"), errs(409)...))},
			"/v2/agent/{projectId}/job/{id}/changes": {"get": onJob(operation("getJobChanges", "The job's branch against its ref: files changed and a unified diff; a job without changes has files []. After a merge (through Folio, or of the pull request on GitHub), what was merged.", 200, ref("Changes"), errs()...))},
			"/v2/agent/{projectId}/job/{id}/merge":   {"post": onJob(operation("mergeJob", "Merge the job's branch into its ref (local repository: in Folio; GitHub: merges the pull request) and archive the job. 409 conflict when there is nothing to merge, the job is active, or the branch does not merge cleanly; 409 job_archived when archived.", 200, ref("Job"), errs(409)...))},
			"/v2/agent/{projectId}/job/{id}/events":  {"get": events},
			"/v2/agent/{projectId}/job/{id}/messages": {"get": onJob(operation("listJobMessages", "The conversation: each prompt, the agent's replies and tool calls, in order.", 200,
				map[string]any{"type": "object", "required": []any{"messages"}, "properties": map[string]any{"messages": map[string]any{"type": "array", "items": ref("Message")}}}, errs()...))},
		},
		Schemas: map[string]any{
			"CreateJobRequest": map[string]any{"type": "object", "required": []any{"prompt"}, "additionalProperties": false,
				"properties": map[string]any{
					"prompt": map[string]any{"type": "string", "minLength": 1, "maxLength": jobs.MaxPromptLength},
					"ref":    map[string]any{"type": "string", "description": "The branch to start from instead of the project's. It must exist: otherwise 400 naming ref."},
					"model":  map[string]any{"type": "string", "description": "The model instead of the project's default; where the provider lists its models, one of GET /v2/agent/{projectId}/models, otherwise 400 naming model."},
				}},
			"PromptRequest": map[string]any{"type": "object", "required": []any{"prompt"}, "additionalProperties": false,
				"properties": map[string]any{"prompt": map[string]any{"type": "string", "minLength": 1, "maxLength": jobs.MaxPromptLength}}},
			"Job": map[string]any{"type": "object", "required": []any{"id", "status", "source", "model", "prLink", "createdAt", "archivedAt"},
				"properties": map[string]any{
					"id":     str,
					"status": map[string]any{"type": "string", "enum": []any{"active", "completed", "archived", "failed"}},
					"source": map[string]any{"type": "object", "required": []any{"repository", "ref"}, "properties": map[string]any{
						"repository": map[string]any{"type": "string", "format": "uri", "description": "The repository's URL, as Mintlify documents it: https://github.com/owner/name (or the GitHub Enterprise host) for a GitHub project, Folio's own clone URL {FOLIO_BASE_URL}/git/{projectId}.git for a local repository (a key of the project clones it; the user name is anything)."},
						"ref":        map[string]any{"type": "string", "description": "The branch the job started from."},
					}},
					"model": str, "prLink": nullable("string", "uri"),
					"createdAt": map[string]any{"type": "string", "format": "date-time"}, "archivedAt": nullable("string", "date-time"),
					"updatedAt": map[string]any{"type": "string", "format": "date-time"}, "branch": str,
					"usage": map[string]any{"type": "object", "description": "What the job's runs have used of the model, over all turns and attempts.",
						"properties": map[string]any{
							"steps":  map[string]any{"type": "integer", "description": "Model calls."},
							"tokens": map[string]any{"type": "integer", "description": "inputTokens + outputTokens."},
							"inputTokens": map[string]any{"type": "integer", "description": "The prompts' tokens, cachedTokens and cacheWriteTokens among them. " +
								"0 for the runs of jobs made before Folio counted them apart (their tokens are in tokens only)."},
							"outputTokens":     map[string]any{"type": "integer", "description": "The replies' tokens."},
							"cachedTokens":     map[string]any{"type": "integer", "description": "Prompt tokens the provider read from its prompt cache (OpenAI's cached_tokens, Anthropic's cache_read_input_tokens)."},
							"cacheWriteTokens": map[string]any{"type": "integer", "description": "Prompt tokens written to the provider's prompt cache (Anthropic's cache_creation_input_tokens)."},
							"costUsd": map[string]any{"type": []any{"number", "null"}, "description": "What the runs cost in US dollars, at the prices FOLIO_MODEL_PRICES gives the job's model; " +
								"null once a run's model had no price (and for jobs run before Folio priced them)."},
						}},
					"error": map[string]any{"type": "object", "description": "Why a failed job failed. Codes include canceled, timeout, retries_exhausted, config_missing, budget_exceeded, context_length_exceeded, model_error, model_unavailable, repository_not_found and ref_not_found (the last two fail the job at once; they are never retried). " +
						"A run that reaches a budget, the model's context window or its last attempt after changing files does not fail: the job completes with a draft pull request, and summary and problems say it stopped early.", "properties": map[string]any{"code": str, "message": str}},
					"summary":  map[string]any{"type": []any{"string", "null"}, "description": "The agent's final answer of its latest finished turn; null before one ends."},
					"problems": map[string]any{"type": "array", "items": ref("Problem"), "description": "What Folio's checks still found when the latest turn ended; [] when clean. A job with problems is still completed."},
					"mergedAt": with(nullable("string", "date-time"), "description", "When the job's branch was merged into its ref, through Folio or as its pull request on GitHub; null otherwise."),
				}},
			"Problem": map[string]any{"type": "object", "required": []any{"path", "severity", "message"},
				"properties": map[string]any{
					"path": str, "line": map[string]any{"type": "integer", "minimum": 1, "description": "1-based; absent when the problem has no place in the file."},
					"column":   map[string]any{"type": "integer", "minimum": 1},
					"severity": map[string]any{"type": "string", "enum": []any{"error", "warning"}, "description": "error: Mintlify's build would fail; warning: it builds but reads wrong."},
					"message":  str,
				}},
			"Changes": map[string]any{"type": "object", "required": []any{"base", "branch", "files", "diff"},
				"properties": map[string]any{
					"base": str, "branch": str, "diff": map[string]any{"type": "string", "description": "A unified diff."},
					"files": map[string]any{"type": "array", "items": map[string]any{"type": "object", "required": []any{"path", "status", "additions", "deletions"},
						"properties": map[string]any{
							"path": str, "previousPath": str, "binary": map[string]any{"type": "boolean"},
							"status":    map[string]any{"type": "string", "enum": []any{"added", "modified", "deleted", "renamed"}},
							"additions": map[string]any{"type": "integer"}, "deletions": map[string]any{"type": "integer"},
						}}},
				}},
			"WebhookEvent": map[string]any{"type": "object", "required": []any{"id", "type", "sequence", "job"},
				"description": "A job's status change. Deduplicate by id; order by sequence: per job, keep the highest sequence handled and drop any event at or below it.",
				"properties": map[string]any{
					"id":   map[string]any{"type": "string", "description": "The event's id: the same on every retry of this event, different for every other event."},
					"type": map[string]any{"type": "string", "const": jobs.EventStatusChanged},
					"sequence": map[string]any{"type": "integer", "minimum": 1, "description": "Counts the job's status changes: 1 for the create's active, then 2, 3, ... " +
						"A higher sequence is a later state of the job. The job's events arrive in this order; a gap means an event was given up after a day of failed attempts " +
						"(or the webhook was set after the job's first changes)."},
					"job": with(ref("Job"), "description", "The job as this change left it."),
				}},
			"JobList": map[string]any{"type": "object", "required": []any{"jobs", "hasMore"},
				"properties": map[string]any{"jobs": map[string]any{"type": "array", "items": ref("Job")}, "hasMore": map[string]any{"type": "boolean"}}},
			"Message": map[string]any{"type": "object", "required": []any{"turn", "role", "content", "createdAt"},
				"properties": map[string]any{
					"turn": map[string]any{"type": "integer"}, "role": map[string]any{"type": "string", "enum": []any{"user", "assistant", "tool"}},
					"content": str, "toolCalls": map[string]any{"type": "array", "items": map[string]any{"type": "object",
						"properties": map[string]any{"id": str, "name": str, "arguments": map[string]any{}}}},
					"toolCallId": str, "toolName": str, "isError": map[string]any{"type": "boolean"},
					"usage": map[string]any{"type": "object", "description": "On an agent's reply: what the model call that produced it used; its inputTokens are the size of that request.",
						"properties": map[string]any{"inputTokens": map[string]any{"type": "integer"}, "cachedTokens": map[string]any{"type": "integer"},
							"cacheWriteTokens": map[string]any{"type": "integer"}, "outputTokens": map[string]any{"type": "integer"}}},
					"discarded": map[string]any{"type": "boolean", "description": "Said by a failed attempt; not part of the history the agent continues from."},
					"dropped":   map[string]any{"type": "boolean", "description": "A queued follow-up dropped by a cancel or failure."},
					"createdAt": map[string]any{"type": "string", "format": "date-time"},
				}},
		},
	}
}
