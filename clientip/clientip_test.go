package clientip

import (
	"net/netip"
	"testing"
)

func TestForwarded(t *testing.T) {
	trusted := Trusted{netip.MustParsePrefix("127.0.0.1/32"), netip.MustParsePrefix("10.0.0.0/8")}
	cases := []struct {
		name, peer, xff, want string
		ok                    bool
	}{
		{"an untrusted peer is the client", "203.0.113.9", "1.2.3.4", "203.0.113.9", false},
		{"through a trusted proxy", "127.0.0.1", "198.51.100.7", "198.51.100.7", true},
		{"a client's own forged hop is not believed", "127.0.0.1", "6.6.6.6, 198.51.100.7", "198.51.100.7", true},
		{"a chain of trusted proxies", "10.0.0.2", "198.51.100.7, 10.1.2.3", "198.51.100.7", true},
		{"all hops trusted: the left-most", "127.0.0.1", "10.9.9.9, 10.1.2.3", "10.9.9.9", true},
		{"no header", "127.0.0.1", "", "127.0.0.1", false},
		{"a malformed hop stops the walk", "127.0.0.1", "198.51.100.7, junk", "127.0.0.1", false},
		{"a mapped IPv4 peer", "::ffff:127.0.0.1", "2001:db8::1", "2001:db8::1", true},
		{"a mapped hop is unmapped", "127.0.0.1", "::ffff:198.51.100.7", "198.51.100.7", true},
	}
	for _, c := range cases {
		got, ok := trusted.Forwarded(netip.MustParseAddr(c.peer), c.xff)
		if got.String() != c.want || ok != c.ok {
			t.Errorf("%s: %s %v, want %s %v", c.name, got, ok, c.want, c.ok)
		}
	}
	if got, ok := Trusted(nil).Forwarded(netip.MustParseAddr("127.0.0.1"), "198.51.100.7"); ok || got.String() != "127.0.0.1" {
		t.Errorf("nothing trusted: %s %v, want the peer", got, ok)
	}
}
