package model

import (
	"time"
)

// Member is a user who administers a project.
type Member struct {
	UserID  string
	Email   string
	AddedAt time.Time
}
