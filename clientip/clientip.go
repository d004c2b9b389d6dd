// Package clientip is the one rule for which address is a request's client
// when it came through proxies Folio trusts (FOLIO_TRUSTED_PROXIES): serve
// applies it to each request, the access-log import to each logged one.
package clientip

import (
	"net/netip"
	"strings"
)

// Trusted are the proxies whose X-Forwarded-For names the client.
type Trusted []netip.Prefix

// Contains says whether a is one of the trusted proxies.
func (t Trusted) Contains(a netip.Addr) bool {
	for _, p := range t {
		if p.Contains(a.Unmap()) {
			return true
		}
	}
	return false
}

// Forwarded is the client a request from peer names in forwarded, its
// X-Forwarded-For (several headers joined with commas), when peer is a
// trusted proxy: the right-most address that is not itself a trusted proxy,
// or the left-most when all are, since what a client wrote further left is
// not believed. ok is false when peer is the client: peer is not trusted,
// the header is empty, or a malformed hop stops the walk before any
// address is taken.
func (t Trusted) Forwarded(peer netip.Addr, forwarded string) (client netip.Addr, ok bool) {
	if len(t) == 0 || !t.Contains(peer) {
		return peer, false
	}
	hops := strings.Split(forwarded, ",")
	for i := len(hops) - 1; i >= 0; i-- {
		a, err := netip.ParseAddr(strings.TrimSpace(hops[i]))
		if err != nil {
			break // a malformed hop: trust nothing further left
		}
		if !t.Contains(a) || i == 0 {
			return a.Unmap(), true
		}
	}
	return peer, false
}
