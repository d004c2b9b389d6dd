package model

import (
	"net/netip"
	"slices"
	"time"
)

// API key scopes (CONTRACT §4): read allows GET and HEAD; ingest, only the
// doors that take traffic in (the events API and the drains), so that a
// third party may hold it; write, everything.
const (
	ScopeRead   = "read"
	ScopeIngest = "ingest"
	ScopeWrite  = "write"
)

// APIKey is a stored key: everything but the key itself, of which only the
// SHA-256 hash is kept.
type APIKey struct {
	ID       string
	Name     string
	Hash     []byte
	LastFour string
	Scope    string
	// Projects are the projects the key opens, in the order given. With
	// AllProjects none are listed: the key opens every project CreatedBy
	// is a member of when a request comes, those joined later included.
	Projects    []string
	AllProjects bool
	// CreatedBy is the user who issued the key ("" for the operator CLI
	// without --owner); Creator is their email, where a list shows it.
	CreatedBy string
	Creator   string
	// AllowIPs are the networks the key may be used from; none: any.
	AllowIPs   []netip.Prefix
	CreatedAt  time.Time
	ExpiresAt  *time.Time
	LastUsedAt *time.Time
	RevokedAt  *time.Time
}

// Allows reports whether the key's scope admits a request of method to a
// door that takes traffic in (ingest: the events API, a drain) or to any
// other.
func (k APIKey) Allows(method string, ingest bool) bool {
	switch k.Scope {
	case ScopeWrite:
		return true
	case ScopeIngest:
		return ingest
	case ScopeRead:
		return method == "GET" || method == "HEAD"
	}
	return false
}

// AllowsFrom reports whether the key may be used by a client at a: any
// address when the key has no allowlist, else one inside it. An address
// that is not valid (the client is unknown) passes no allowlist.
func (k APIKey) AllowsFrom(a netip.Addr) bool {
	if len(k.AllowIPs) == 0 {
		return true
	}
	a = a.Unmap()
	return slices.ContainsFunc(k.AllowIPs, func(p netip.Prefix) bool { return p.Contains(a) })
}

// Active reports whether the key may be used at now.
func (k APIKey) Active(now time.Time) bool {
	return k.RevokedAt == nil && (k.ExpiresAt == nil || now.Before(*k.ExpiresAt))
}

// API key states, derived from the record and the time.
const (
	APIKeyActive  = "active"
	APIKeyRevoked = "revoked"
	APIKeyExpired = "expired"
)

// State is what the key is at now. A revoked key stays revoked after it
// would have expired.
func (k APIKey) State(now time.Time) string {
	switch {
	case k.RevokedAt != nil:
		return APIKeyRevoked
	case !k.Active(now):
		return APIKeyExpired
	}
	return APIKeyActive
}
