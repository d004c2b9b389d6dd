package httpx

import (
	"net"
	"net/http"
	"net/netip"
	"strings"
)

// ClientIP is the peer's address, after ClientAddress has put the real
// client there when the peer is a trusted proxy.
func ClientIP(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// ClientAddress makes r.RemoteAddr the client's address when the request
// came through one of the trusted proxies (FOLIO_TRUSTED_PROXIES), so rate
// limits, visitor identity and logs see people rather than the proxy. It
// takes the right-most address of X-Forwarded-For that is not itself a
// trusted proxy: what a client wrote further left is not believed.
func ClientAddress(trusted []netip.Prefix) func(http.Handler) http.Handler {
	isTrusted := func(a netip.Addr) bool {
		for _, p := range trusted {
			if p.Contains(a.Unmap()) {
				return true
			}
		}
		return false
	}
	return func(next http.Handler) http.Handler {
		if len(trusted) == 0 {
			return next
		}
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			peer, err := netip.ParseAddrPort(r.RemoteAddr)
			if err != nil || !isTrusted(peer.Addr()) {
				next.ServeHTTP(w, r)
				return
			}
			hops := strings.Split(strings.Join(r.Header.Values("X-Forwarded-For"), ","), ",")
			for i := len(hops) - 1; i >= 0; i-- {
				a, err := netip.ParseAddr(strings.TrimSpace(hops[i]))
				if err != nil {
					break // a malformed hop: trust nothing further left
				}
				if !isTrusted(a) || i == 0 {
					r2 := *r
					r2.RemoteAddr = netip.AddrPortFrom(a.Unmap(), 0).String()
					r = &r2
					break
				}
			}
			next.ServeHTTP(w, r)
		})
	}
}
