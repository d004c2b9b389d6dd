// Package internalapi is the door for Folio's own machinery rather than its
// users: the worker API remote workers run turns through, the local
// repositories over git's smart HTTP, and GitHub's webhook deliveries. Only
// the last is in the OpenAPI document, for those who point GitHub at it.
// (A path element "internal" would keep web, the composition root, from
// importing it, hence the name.)
//
// The worker API is versioned (jobs.WorkerAPIVersion, its bodies in
// jobs/worker_api.go): a worker names its version in the Folio-Worker-API
// header and serve says its own at hello. Workers of the previous release,
// which send no version, speak version 1 and are understood; a version
// serve does not speak is refused with a 400 that names both, and a worker
// refuses to start against a serve of another version.
package internalapi
