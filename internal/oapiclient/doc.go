// Package oapiclient is a Go client of Folio's API generated from Folio's
// own OpenAPI document (openapi.json, as /openapi.json serves it) with
// oapi-codegen, as a team moving from Mintlify would generate one. Only
// tests use it: web's TestGeneratedClient runs every Mintlify-shaped call
// through it against a real Folio and validates each answer against the
// document. A test fails when openapi.json differs from what Folio serves;
// regenerate with `go generate ./internal/oapiclient`.
package oapiclient

//go:generate go run ./dump openapi.json
//go:generate go tool oapi-codegen -config oapi-codegen.yaml openapi.json
