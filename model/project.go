package model

import (
	"time"
)

// Project is one docs repository with its agent settings and its traffic.
type Project struct {
	ID             string
	Name           string
	Repository     string
	Ref            string
	Model          string
	OwnerID        string
	WebhookURL     string
	WebhookSecret  string
	DraftPRs       bool
	AllowedDomains string
	CreatedAt      time.Time
	UpdatedAt      time.Time
}
