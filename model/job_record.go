package model

import "time"

// JobRecord is a job as it is written down outside the jobs table: the
// snapshot in webhook_events.job, and the job on the worker API (version 1).
// Its JSON names are the Go field names Job had when it was stored untagged,
// so rows written then decode unchanged; they are frozen. Renaming a field
// of Job stops JobRecord(j) compiling: map it by hand then, keeping the tag,
// and a new shape on the wire is a new type under a new version.
type JobRecord struct {
	ID           string     `json:"ID"`
	ProjectID    string     `json:"ProjectID"`
	Status       JobStatus  `json:"Status"`
	Repository   string     `json:"Repository"`
	Ref          string     `json:"Ref"`
	Model        string     `json:"Model"`
	Branch       string     `json:"Branch"`
	PRLink       string     `json:"PRLink"`
	ErrorCode    string     `json:"ErrorCode"`
	ErrorMessage string     `json:"ErrorMessage"`
	Turn         int        `json:"Turn"`
	Recovery     int        `json:"Recovery"`
	Attempts     int        `json:"Attempts"`
	LeaseOwner   string     `json:"LeaseOwner"`
	LeaseUntil   *time.Time `json:"LeaseUntil"`
	CreatedAt    time.Time  `json:"CreatedAt"`
	UpdatedAt    time.Time  `json:"UpdatedAt"`
	ArchivedAt   *time.Time `json:"ArchivedAt"`
	Steps        int        `json:"Steps"`
	Tokens       int64      `json:"Tokens"`
	// Added with issue 26, left out when zero: a record without them
	// reads as it always did, and an older reader ignores them.
	InputTokens      int64      `json:"InputTokens,omitzero"`
	OutputTokens     int64      `json:"OutputTokens,omitzero"`
	CachedTokens     int64      `json:"CachedTokens,omitzero"`
	CacheWriteTokens int64      `json:"CacheWriteTokens,omitzero"`
	CostMicros       *int64     `json:"CostMicros,omitempty"`
	Summary          *string    `json:"Summary"`
	Problems         string     `json:"Problems"` // the JSON array, as a string
	MergedAt         *time.Time `json:"MergedAt"`
	MergeCommit      string     `json:"MergeCommit"`
	StatusChanges    int        `json:"StatusChanges"`
}

// Record is j as it is written down (JobRecord).
func (j Job) Record() JobRecord { return JobRecord(j) }

// Job is the job the record holds.
func (r JobRecord) Job() Job { return Job(r) }
