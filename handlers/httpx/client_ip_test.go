package httpx

import (
	"net/http"
	"net/http/httptest"
	"net/netip"
	"testing"
)

func TestClientAddress(t *testing.T) {
	trusted := []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32"), netip.MustParsePrefix("10.0.0.0/8")}
	cases := []struct {
		name, peer, xff, want string
	}{
		{"no proxy configured for this peer", "203.0.113.9:5000", "1.2.3.4", "203.0.113.9"},
		{"through a trusted proxy", "127.0.0.1:5000", "198.51.100.7", "198.51.100.7"},
		{"a client's own forged hop is not believed", "127.0.0.1:5000", "6.6.6.6, 198.51.100.7", "198.51.100.7"},
		{"a chain of trusted proxies", "127.0.0.1:5000", "198.51.100.7, 10.1.2.3", "198.51.100.7"},
		{"all hops trusted: the left-most", "127.0.0.1:5000", "10.9.9.9, 10.1.2.3", "10.9.9.9"},
		{"trusted proxy without the header", "127.0.0.1:5000", "", "127.0.0.1"},
		{"a malformed hop stops the walk", "127.0.0.1:5000", "198.51.100.7, junk", "127.0.0.1"},
		{"IPv6 client", "[::ffff:127.0.0.1]:5000", "2001:db8::1", "2001:db8::1"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var got string
			h := ClientAddress(trusted)(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { got = ClientIP(r) }))
			req := httptest.NewRequest("GET", "/", nil)
			req.RemoteAddr = c.peer
			if c.xff != "" {
				req.Header.Set("X-Forwarded-For", c.xff)
			}
			h.ServeHTTP(httptest.NewRecorder(), req)
			if got != c.want {
				t.Errorf("client %q, want %q", got, c.want)
			}
		})
	}
	t.Run("nothing trusted: the header is ignored", func(t *testing.T) {
		var got string
		h := ClientAddress(nil)(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { got = ClientIP(r) }))
		req := httptest.NewRequest("GET", "/", nil)
		req.RemoteAddr = "127.0.0.1:5000"
		req.Header.Set("X-Forwarded-For", "198.51.100.7")
		h.ServeHTTP(httptest.NewRecorder(), req)
		if got != "127.0.0.1" {
			t.Errorf("client %q, want the peer", got)
		}
	})
}
