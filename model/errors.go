package model

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// The domain's sentinel errors, each defined here once; callers match them
// with errors.Is, and handlers/httpx.StatusOf answers each in the
// contract's words. The refusals of a job's transitions sit beside
// JobStatus, an invitation's beside Invitation. The messages are for logs.
var (
	ErrNotFound = errors.New("not found")
	// ErrJobNotFound and ErrProjectNotFound say what was not found; both
	// are ErrNotFound.
	ErrJobNotFound     = fmt.Errorf("job %w", ErrNotFound)
	ErrProjectNotFound = fmt.Errorf("project %w", ErrNotFound)

	ErrConflict = errors.New("conflict")
	// ErrIdempotencyConflict is an Idempotency-Key reused within 24 hours
	// with another request body (a job's prompt, a batch of events).
	ErrIdempotencyConflict = fmt.Errorf("idempotency key reused with another request body: %w", ErrConflict)

	// ErrQueueUnavailable: the job queue (Redis) cannot be reached, so
	// nothing was stored.
	ErrQueueUnavailable = errors.New("the job queue is unavailable")

	// ErrNothingToMerge: the job's branch brings no change to its ref (or,
	// on GitHub, it has no open pull request). ErrMergeConflict: it does
	// not merge cleanly, or the code host refused the merge.
	ErrNothingToMerge = errors.New("there is nothing to merge")
	ErrMergeConflict  = errors.New("the branch does not merge cleanly")
)

// Why a request's API key was refused: each is a 401 to the client.
var (
	ErrNoKey      = errors.New("no API key")
	ErrMalformed  = errors.New("malformed API key")
	ErrUnknownKey = errors.New("unknown, expired or revoked API key")
)

// ErrIPNotAllowed refuses a request whose client address is outside its
// key's IP allowlist (403 ip_not_allowed).
var ErrIPNotAllowed = errors.New("the API key is not allowed from this address")

// Why a key was not issued: a bad scope or expiry (ErrKeyOptions), a name
// empty once trimmed of spaces or too long (ErrKeyName).
var (
	ErrKeyOptions = errors.New("invalid key options")
	ErrKeyName    = errors.New("invalid key name")
)

// Why an account, a sign-in or a membership was refused.
var (
	ErrNoMatch          = errors.New("the email address and password do not match an account")
	ErrInvalidEmail     = errors.New("invalid email address")
	ErrPasswordTooShort = fmt.Errorf("password must be at least %d characters", MinPasswordLen)
	ErrEmailTaken       = fmt.Errorf("email already registered: %w", ErrConflict)
	ErrNotFirstUser     = fmt.Errorf("a user exists already: %w", ErrConflict)
	// ErrInviteOnly and ErrSignupClosed refuse a stranger's sign-up under
	// FOLIO_SIGNUP=invite and closed; ErrSignupClosed also refuses an
	// invitation that would create an account.
	ErrInviteOnly   = errors.New("sign-up is by invitation only")
	ErrSignupClosed = errors.New("sign-up is closed")
	// ErrAlreadyMember: the address invited is a member's already.
	ErrAlreadyMember = errors.New("already a member of the project")
	// ErrNoAccount: nobody has an account with the email address given.
	ErrNoAccount = errors.New("no account has this email address")
	// ErrLastMember: a project keeps at least one member.
	ErrLastMember = fmt.Errorf("a project keeps at least one member: %w", ErrConflict)
)

// ErrDrainTooLarge refuses a log drain's delivery over one of the drain
// limits (analytics.MaxDrainBody, MaxDrainDecoded, MaxDrainEntries).
var ErrDrainTooLarge = errors.New("analytics: drain delivery too large")

// ErrOriginNotAllowed refuses a tracker's page view from a page outside
// the project's allowed domains.
var ErrOriginNotAllowed = errors.New("analytics: origin not allowed for this project")

// RateLimitedError refuses a request over its quota: Limit requests a
// window, the next allowed after Reset.
type RateLimitedError struct {
	Limit int
	Reset time.Duration
}

func (e *RateLimitedError) Error() string { return "rate limit exceeded" }

// FieldError is one field of a request refused, with why in a sentence.
// Field is named as the door that took it names it ("prompt",
// "events[3].path", "webhook_url"); "" is the request, or the form, as a
// whole. Its JSON is an element of the contract's "details" (§5).
type FieldError struct {
	Field   string `json:"field"`
	Message string `json:"message"`
}

// FieldErrors is a request refused for its fields: every field refused,
// in the order found. An empty FieldErrors refuses nothing; Err turns it
// into the error to return.
type FieldErrors []FieldError

// Invalid refuses one field.
func Invalid(field, message string) FieldErrors {
	return FieldErrors{{Field: field, Message: message}}
}

// Add refuses field, saying why in the sentence format makes.
func (e *FieldErrors) Add(field, format string, args ...any) {
	*e = append(*e, FieldError{Field: field, Message: fmt.Sprintf(format, args...)})
}

// Err is e as an error: nil when no field is refused. (An empty
// FieldErrors returned as an error would be an error that is not nil.)
func (e FieldErrors) Err() error {
	if len(e) == 0 {
		return nil
	}
	return e
}

// Of returns why field was refused (the first reason, if several), or "".
func (e FieldErrors) Of(field string) string {
	for _, f := range e {
		if f.Field == field {
			return f.Message
		}
	}
	return ""
}

func (e FieldErrors) Error() string {
	msgs := make([]string, len(e))
	for i, f := range e {
		msgs[i] = f.Message
		if f.Field != "" {
			msgs[i] = f.Field + ": " + f.Message
		}
	}
	return strings.Join(msgs, "; ")
}
