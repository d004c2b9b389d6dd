package httpx

import (
	"net"
	"net/http"
	"net/netip"
	"strings"

	"github.com/folio-docs/folio/clientip"
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
// limits, visitor identity and logs see people rather than the proxy; the
// rule is clientip's, which the access-log import applies too.
func ClientAddress(trusted []netip.Prefix) func(http.Handler) http.Handler {
	t := clientip.Trusted(trusted)
	return func(next http.Handler) http.Handler {
		if len(t) == 0 {
			return next
		}
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			peer, err := netip.ParseAddrPort(r.RemoteAddr)
			if err != nil {
				next.ServeHTTP(w, r)
				return
			}
			if client, ok := t.Forwarded(peer.Addr(), strings.Join(r.Header.Values("X-Forwarded-For"), ",")); ok {
				r2 := *r
				r2.RemoteAddr = netip.AddrPortFrom(client, 0).String()
				r = &r2
			}
			next.ServeHTTP(w, r)
		})
	}
}
