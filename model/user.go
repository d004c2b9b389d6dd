package model

import (
	"time"
)

// User is a dashboard admin.
type User struct {
	ID           string
	Email        string
	PasswordHash string
	CreatedAt    time.Time
}
