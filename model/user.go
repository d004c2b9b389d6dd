package model

import (
	"time"
)

// MinPasswordLen is the shortest password accepted (ErrPasswordTooShort).
const MinPasswordLen = 8

// User is a dashboard admin.
type User struct {
	ID           string
	Email        string
	PasswordHash string
	CreatedAt    time.Time
}
