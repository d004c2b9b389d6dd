// Package model holds Folio's domain types — jobs, projects, users, keys,
// invitations, webhook events, page views — and the values their rules
// name. Storage (db), the services and the handlers all speak in these
// types; db only reads and writes them.
package model
