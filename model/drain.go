package model

import "time"

// DrainSettings are a project's settings for the drains that push request
// logs to it (CONTRACT §3, "Ingest", 4). Secret is the drain secret, set
// by the project's admins and shown once; Vercel signs each delivery with
// it. VercelVerify is the code Vercel's endpoint verification expects back.
type DrainSettings struct {
	ProjectID    string
	Secret       string
	VercelVerify string
	UpdatedAt    time.Time
}
