package model

import "testing"

func TestAPIKeyAllows(t *testing.T) {
	for _, c := range []struct {
		scope, method string
		ingest, want  bool
	}{
		{ScopeWrite, "POST", false, true},
		{ScopeWrite, "POST", true, true},
		{ScopeWrite, "GET", false, true},
		{ScopeRead, "GET", false, true},
		{ScopeRead, "HEAD", false, true},
		{ScopeRead, "POST", false, false},
		{ScopeRead, "POST", true, false},
		{ScopeIngest, "POST", true, true},
		{ScopeIngest, "POST", false, false},
		{ScopeIngest, "GET", false, false},
		{"admin", "GET", false, false},
	} {
		if got := (APIKey{Scope: c.scope}).Allows(c.method, c.ingest); got != c.want {
			t.Errorf("a %s key, %s to an ingest door %v: %v, want %v", c.scope, c.method, c.ingest, got, c.want)
		}
	}
}
