// Package handlers speaks Folio's HTTP: it decodes and validates requests,
// calls one domain function each, and encodes the answer or the contract's
// error.
package handlers
