package jobs

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"syscall"
	"time"

	"github.com/folio-docs/folio/projects"
)

// webhookClient posts webhook deliveries. Unless private addresses are
// allowed, it will not connect to loopback, private, link-local or other
// non-public addresses — checked on the address actually dialled, after DNS,
// so a name cannot smuggle one in — so a project's webhook URL cannot probe
// the server's own network. It follows no redirects: a 3xx is an answer.
func webhookClient(allowPrivate bool) *http.Client {
	dialer := &net.Dialer{Timeout: 10 * time.Second}
	if !allowPrivate {
		dialer.Control = func(_, address string, _ syscall.RawConn) error {
			ap, err := netip.ParseAddrPort(address)
			if err != nil {
				return err
			}
			if a := ap.Addr().Unmap(); !projects.PublicAddr(a) {
				return fmt.Errorf("refusing to deliver to %s, which is not a public address (FOLIO_WEBHOOK_ALLOW_PRIVATE=true allows it)", a)
			}
			return nil
		}
	}
	transport := http.DefaultTransport.(*http.Transport).Clone()
	transport.Proxy = nil // a proxy would dial for us, past the check
	transport.DialContext = dialer.DialContext
	return &http.Client{
		Timeout:       15 * time.Second,
		Transport:     transport,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}
