package model

import "time"

// ProjectRecord is a project as the worker API (version 1) sends it to a
// remote worker. Its JSON names are the Go field names Project had when it
// was sent untagged, and they are frozen, as JobRecord's are.
type ProjectRecord struct {
	ID             string    `json:"ID"`
	Name           string    `json:"Name"`
	Repository     string    `json:"Repository"`
	Ref            string    `json:"Ref"`
	Model          string    `json:"Model"`
	OwnerID        string    `json:"OwnerID"`
	WebhookURL     string    `json:"WebhookURL"`    // always "" to a worker (jobs.ForWorker)
	WebhookSecret  string    `json:"WebhookSecret"` // likewise
	DraftPRs       bool      `json:"DraftPRs"`
	AllowedDomains string    `json:"AllowedDomains"`
	CreatedAt      time.Time `json:"CreatedAt"`
	UpdatedAt      time.Time `json:"UpdatedAt"`
}

// Record is p as it is sent (ProjectRecord).
func (p Project) Record() ProjectRecord { return ProjectRecord(p) }

// Project is the project the record holds.
func (r ProjectRecord) Project() Project { return Project(r) }
