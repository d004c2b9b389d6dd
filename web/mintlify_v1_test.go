package main

import (
	"net/http"
	"strings"
	"testing"
)

// TestMintlifyV1AgentEndpointsAreNotServed: the v1 agent endpoints Mintlify
// deprecated for v2 answer 404 not_found, even with a good key (README,
// "Moving from Mintlify"); their v2 counterparts are served.
func TestMintlifyV1AgentEndpointsAreNotServed(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	for _, c := range []struct{ method, path string }{
		{http.MethodPost, "/v1/agent/{p}/job"},
		{http.MethodGet, "/v1/agent/{p}/job/some-job"},
		{http.MethodGet, "/v1/agent/{p}/jobs"},
	} {
		var body struct{ Error, Code string }
		res := s.do(c.method, c.path, `{"branch":"main","messages":[{"role":"user","content":"Hi"}]}`, &body)
		if res.StatusCode != http.StatusNotFound || body.Code != "not_found" || !strings.HasPrefix(body.Error, "No such endpoint") {
			t.Errorf("%s %s: %d %+v, want 404 not_found, no such endpoint", c.method, c.path, res.StatusCode, body)
		}
	}
	var list map[string]any
	s.expect(http.StatusOK, http.MethodGet, "/v2/agent/{p}/jobs", "", &list)
}
