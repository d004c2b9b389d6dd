// Package httpx is the plumbing Folio's HTTP doors (handlers/api,
// handlers/dashboard, handlers/internalapi) share: the contract's error
// shape and its one writer, the one JSON decoder with limits, query
// parsing, the request's id, log line and metrics (Observe), the body cap,
// the client's address, the rate-limit headers, the sign-in limiter, and a
// job's event stream, which the API and the job page both serve. The doors
// import it; it imports none of them.
package httpx
