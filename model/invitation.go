package model

import (
	"fmt"
	"time"
)

// Invitation is a one-time link to a project for one email address: the
// stored record, of which only the token's SHA-256 hash is kept.
type Invitation struct {
	ID           string
	ProjectID    string
	ProjectName  string // read with the invitation, for the page that opens it
	Email        string
	Hash         []byte
	InvitedBy    string // the inviting user's id; empty when an operator made it
	InviterEmail string // empty when an operator made it, or the inviter is gone
	CreatedAt    time.Time
	ExpiresAt    time.Time
	UsedAt       *time.Time
	UsedBy       string
	RevokedAt    *time.Time
}

// Invitation states, derived from the record and the time.
const (
	InvitationPending = "pending"
	InvitationUsed    = "used"
	InvitationRevoked = "revoked"
	InvitationExpired = "expired"
)

// State is what the invitation is at now. A used or revoked invitation stays
// so after it would have expired.
func (i Invitation) State(now time.Time) string {
	switch {
	case i.UsedAt != nil:
		return InvitationUsed
	case i.RevokedAt != nil:
		return InvitationRevoked
	case !now.Before(i.ExpiresAt):
		return InvitationExpired
	default:
		return InvitationPending
	}
}

// Why an invitation was refused.
var (
	ErrInvitationUsed    = fmt.Errorf("invitation already used: %w", ErrConflict)
	ErrInvitationRevoked = fmt.Errorf("invitation revoked: %w", ErrConflict)
	ErrInvitationExpired = fmt.Errorf("invitation expired: %w", ErrConflict)
	// ErrInvitationEmail: a signed-in user opened an invitation for someone else.
	ErrInvitationEmail = fmt.Errorf("invitation is for another email address: %w", ErrConflict)
)

// stateErr is the refusal for an invitation that is not pending.
func (i Invitation) stateErr(now time.Time) error {
	switch i.State(now) {
	case InvitationUsed:
		return ErrInvitationUsed
	case InvitationRevoked:
		return ErrInvitationRevoked
	case InvitationExpired:
		return ErrInvitationExpired
	}
	return nil
}

// Usable is nil when the invitation may be redeemed at now, else the
// reason it may not.
func (i Invitation) Usable(now time.Time) error { return i.stateErr(now) }
