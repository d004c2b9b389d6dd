// Package analytics counts who reads a project's docs, people and AI agents
// apart (CONTRACT §3): it classifies traffic from the user agent, turns page
// views from the tracker, the events API and access logs into stored views,
// and answers the visitors and views exports exactly from an in-memory index
// over the stored views.
package analytics
