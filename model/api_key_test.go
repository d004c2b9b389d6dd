package model

import (
	"testing"
	"time"
)

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

func TestAPIKeyState(t *testing.T) {
	now := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	past, future := now.Add(-time.Hour), now.Add(time.Hour)
	for _, c := range []struct {
		name             string
		expires, revoked *time.Time
		want             string
	}{
		{"no expiry", nil, nil, APIKeyActive},
		{"expires later", &future, nil, APIKeyActive},
		{"expired", &past, nil, APIKeyExpired},
		{"expires at this instant", &now, nil, APIKeyExpired},
		{"revoked", nil, &past, APIKeyRevoked},
		{"revoked, then it would have expired", &past, &past, APIKeyRevoked},
	} {
		if got := (APIKey{ExpiresAt: c.expires, RevokedAt: c.revoked}).State(now); got != c.want {
			t.Errorf("%s: %s, want %s", c.name, got, c.want)
		}
	}
}
