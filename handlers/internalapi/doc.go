// Package internalapi is the door for Folio's own machinery rather than its
// users: the worker API remote workers run turns through, the local
// repositories over git's smart HTTP, and GitHub's webhook deliveries. None
// of it is in the OpenAPI document. (A path element "internal" would keep
// web, the composition root, from importing it, hence the name.)
package internalapi
