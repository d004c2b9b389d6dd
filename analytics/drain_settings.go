package analytics

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"

	"github.com/folio-docs/folio/model"
)

// The fields of the drain settings, as model.FieldErrors name them.
const (
	FieldDrainSecret  = "drain_secret"
	FieldVercelVerify = "vercel_verify"
)

// The bounds of a drain secret a project's admin brings (one Vercel made,
// say); one Folio makes is 40 hex digits.
const (
	minDrainSecret = 8
	maxDrainSecret = 256
)

// DrainSettings returns a project's drain settings.
func (s *Service) DrainSettings(ctx context.Context, projectID string) (model.DrainSettings, error) {
	return s.db.DrainSettings(ctx, projectID)
}

// SetDrainSecret sets a project's drain secret and returns it, to be shown
// once: secret as given (the one Vercel signs with, when Vercel made it),
// or, when it is empty, a new random one to give Vercel. A secret is 8 to
// 256 printable ASCII characters without spaces (else model.FieldErrors).
func (s *Service) SetDrainSecret(ctx context.Context, projectID, secret string) (string, error) {
	if secret == "" {
		b := make([]byte, 20)
		rand.Read(b)
		secret = hex.EncodeToString(b)
	}
	if len(secret) < minDrainSecret || len(secret) > maxDrainSecret || !headerToken(secret) {
		return "", model.Invalid(FieldDrainSecret, fmt.Sprintf("A drain secret is %d to %d printable ASCII characters without spaces.", minDrainSecret, maxDrainSecret))
	}
	if err := s.db.SetDrainSecret(ctx, projectID, secret); err != nil {
		return "", err
	}
	return secret, nil
}

// RemoveDrainSecret removes a project's drain secret: Vercel deliveries are
// refused until another is set.
func (s *Service) RemoveDrainSecret(ctx context.Context, projectID string) error {
	return s.db.SetDrainSecret(ctx, projectID, "")
}

// SetVercelVerify sets the code a project answers Vercel's endpoint
// verification with (empty: none), at most 256 printable ASCII characters
// without spaces, as it goes into a header (else model.FieldErrors).
func (s *Service) SetVercelVerify(ctx context.Context, projectID, code string) error {
	if len(code) > maxDrainSecret || !headerToken(code) {
		return model.Invalid(FieldVercelVerify, fmt.Sprintf("The Vercel verification code is at most %d printable ASCII characters without spaces.", maxDrainSecret))
	}
	return s.db.SetVercelVerify(ctx, projectID, code)
}

// headerToken says whether s is printable ASCII without spaces.
func headerToken(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] <= ' ' || s[i] > '~' {
			return false
		}
	}
	return true
}
