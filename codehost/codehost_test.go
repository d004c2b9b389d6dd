package codehost

import "testing"

func TestParseRepository(t *testing.T) {
	cases := []struct{ in, kind, loc string }{
		{"acme/docs", KindGitHub, "acme/docs"},
		{"acme/docs.git", KindGitHub, "acme/docs"},
		{"/srv/repos/docs.git", KindLocal, "/srv/repos/docs.git"},
		{"file:///srv/repos/docs", KindLocal, "/srv/repos/docs"},
		{"file://localhost/srv/docs", KindLocal, "/srv/docs"},
		{"file://evil.example/srv", "", ""},
		{"relative/path/x", "", ""},
		{"acme/..", "", ""},
		{"https://github.com/acme/docs", "", ""},
	}
	for _, tc := range cases {
		kind, loc, err := ParseRepository(tc.in)
		if kind != tc.kind || loc != tc.loc || (err == nil) != (tc.kind != "") {
			t.Errorf("ParseRepository(%q) = %q, %q, %v; want %q, %q", tc.in, kind, loc, err, tc.kind, tc.loc)
		}
	}
}
