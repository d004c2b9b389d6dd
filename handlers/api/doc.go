// Package api is Folio's public HTTP API, the one in /openapi.json: the
// agent jobs under /v2/agent, the analytics under /v1/analytics, the
// browser tracker's script and event door, the OpenAPI document itself, and
// the health checks. A handler decodes and validates the request, calls one
// domain function, and encodes the answer or the contract's error.
package api
