package jobs

import (
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"

	"github.com/folio-docs/folio/projects"
)

func TestWebhookClientRefusesPrivateAddresses(t *testing.T) {
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/moved" {
			http.Redirect(w, r, "/elsewhere", http.StatusFound)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	defer receiver.Close()

	_, err := webhookClient(false).Post(receiver.URL, "application/json", strings.NewReader("{}"))
	if err == nil || !strings.Contains(err.Error(), "not a public address") {
		t.Fatalf("delivery to %s: err %v, want a refusal", receiver.URL, err)
	}
	res, err := webhookClient(true).Post(receiver.URL, "application/json", strings.NewReader("{}"))
	if err != nil || res.StatusCode != http.StatusNoContent {
		t.Fatalf("with private addresses allowed: %v, %v", res, err)
	}
	res, err = webhookClient(true).Post(receiver.URL+"/moved", "application/json", strings.NewReader("{}"))
	if err != nil || res.StatusCode != http.StatusFound {
		t.Fatalf("a redirect: %v, %v; want the 302 itself, not followed", res, err)
	}

	for addr, public := range map[string]bool{
		"127.0.0.1": false, "10.1.2.3": false, "172.16.0.1": false, "192.168.1.1": false, "169.254.169.254": false,
		"100.64.0.1": false, "0.0.0.0": false, "::1": false, "fd00::1": false, "fe80::1": false,
		"93.184.216.34": true, "2606:4700::1111": true,
	} {
		if got := projects.PublicAddr(netip.MustParseAddr(addr)); got != public {
			t.Errorf("PublicAddr(%s) = %v, want %v", addr, got, public)
		}
	}
}
