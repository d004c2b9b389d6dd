package model

import (
	"time"
)

// API key scopes.
const (
	ScopeRead  = "read"
	ScopeWrite = "write"
)

// APIKey is a stored key: everything but the key itself, of which only the
// SHA-256 hash is kept.
type APIKey struct {
	ID         string
	ProjectID  string
	Name       string
	Hash       []byte
	LastFour   string
	Scope      string
	CreatedAt  time.Time
	ExpiresAt  *time.Time
	LastUsedAt *time.Time
	RevokedAt  *time.Time
}

// Active reports whether the key may be used at now.
func (k APIKey) Active(now time.Time) bool {
	return k.RevokedAt == nil && (k.ExpiresAt == nil || now.Before(*k.ExpiresAt))
}
