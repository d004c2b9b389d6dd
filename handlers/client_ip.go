package handlers

import (
	"net"
	"net/http"
)

// clientIP is the peer's address. Folio does not trust X-Forwarded-For: a
// proxy in front must pass the real peer (e.g. the PROXY protocol) for rate
// limits and visitor identity to tell people apart.
func clientIP(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}
