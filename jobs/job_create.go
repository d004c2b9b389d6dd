package jobs

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"

	"github.com/folio-docs/folio/db"
)

// Created is the outcome of a create: the job, the caller's quota after
// it, and whether an Idempotency-Key replayed an earlier create.
type Created struct {
	Job      db.Job
	Quota    Quota
	Replayed bool
}

// Create starts a job on a project with its first prompt and enqueues its
// first run. With an idempotency key, the same key and prompt within 24
// hours give the job created the first time, without counting against the
// rate limit. If the queue is unreachable nothing is stored (ErrUnavailable).
func (s *Service) Create(ctx context.Context, projectID, prompt, idemKey string) (c Created, err error) {
	defer s.fillQuota(ctx, s.creates, projectID, &c, &err)
	if err := checkPrompt(prompt); err != nil {
		return Created{}, err
	}
	project, err := s.db.ProjectByID(ctx, projectID)
	if err != nil {
		return Created{}, err
	}
	var idem *db.IdempotencyKey
	if idemKey != "" {
		sum := sha256.Sum256([]byte(prompt))
		idem = &db.IdempotencyKey{ProjectID: projectID, Key: idemKey, BodyHash: sum[:]}
		if c, err := s.replay(ctx, idem); !errors.Is(err, db.ErrNotFound) {
			return c, err
		}
	}

	quota, err := s.creates.Take(ctx, projectID)
	if err != nil {
		s.log.Warn("rate limiter unavailable", "err", err)
		return Created{}, ErrUnavailable
	}
	if !quota.Allowed {
		return Created{Quota: quota}, &RateLimitedError{quota}
	}
	model := project.Model
	if model == "" {
		model = s.cfg.DefaultModel
	}
	j, err := s.db.CreateJob(ctx, db.Job{ProjectID: projectID, Repository: project.Repository, Ref: project.Ref, Model: model}, prompt, idem)
	if errors.Is(err, db.ErrConflict) && idem != nil {
		// A concurrent request with the same key won the race.
		s.creates.Refund(ctx, projectID, quota)
		return s.replay(ctx, idem)
	}
	if err != nil {
		s.creates.Refund(ctx, projectID, quota)
		return Created{}, err
	}
	if err := s.enqueueRun(ctx, j); err != nil {
		s.log.Warn("unable to enqueue a new job; removing it", "job_id", j.ID, "err", err)
		s.creates.Refund(ctx, projectID, quota)
		if derr := s.db.DeleteJob(context.WithoutCancel(ctx), j.ID); derr != nil {
			return Created{}, fmt.Errorf("jobs: unable to undo job %s after the queue failed: %w", j.ID, derr)
		}
		return Created{}, ErrUnavailable
	}
	s.notify(ctx, j)
	return Created{Job: j, Quota: quota}, nil
}

// replay answers a create whose Idempotency-Key is already stored.
func (s *Service) replay(ctx context.Context, idem *db.IdempotencyKey) (Created, error) {
	k, err := s.db.IdempotencyKeyByKey(ctx, idem.ProjectID, idem.Key)
	if err != nil {
		return Created{}, err
	}
	if !bytes.Equal(k.BodyHash, idem.BodyHash) {
		return Created{}, ErrIdempotencyConflict
	}
	j, err := s.db.JobByID(ctx, idem.ProjectID, k.JobID)
	return Created{Job: j, Replayed: true}, err
}

// fillQuota gives an answer that did not count a request the quota as it
// stands, so every answer carries the rate-limit headers; Redis being away
// leaves it empty.
func (s *Service) fillQuota(ctx context.Context, l *Limiter, projectID string, c *Created, err *error) {
	if c.Quota.Limit != 0 || errors.Is(*err, ErrUnavailable) {
		return
	}
	if q, perr := l.Peek(ctx, projectID); perr == nil {
		c.Quota = q
	}
}

// Limits a Quota can be asked of.
const (
	LimitCreate   = "create"
	LimitFollowUp = "message"
)

// Quota reports a project's quota of one limit without counting a request.
func (s *Service) Quota(ctx context.Context, projectID, limit string) Quota {
	l := s.creates
	if limit == LimitFollowUp {
		l = s.followUps
	}
	var c Created
	var err error
	s.fillQuota(ctx, l, projectID, &c, &err)
	return c.Quota
}

// Message adds a follow-up prompt. On a completed or failed job it starts a
// new turn on the same branch with the whole conversation; on an active job
// it waits for the current run to end; on an archived job it is ErrArchived.
func (s *Service) Message(ctx context.Context, projectID, id, prompt string) (c Created, err error) {
	defer s.fillQuota(ctx, s.followUps, projectID, &c, &err)
	if err := checkPrompt(prompt); err != nil {
		return Created{}, err
	}
	j, err := s.db.JobByID(ctx, projectID, id)
	if err != nil {
		return Created{}, err
	}
	if j.Status == db.JobArchived {
		return Created{}, ErrArchived
	}
	quota, err := s.followUps.Take(ctx, projectID)
	if err != nil {
		s.log.Warn("rate limiter unavailable", "err", err)
		return Created{}, ErrUnavailable
	}
	if !quota.Allowed {
		return Created{Quota: quota}, &RateLimitedError{quota}
	}
	j, started, err := s.db.AddJobPrompt(ctx, projectID, id, prompt)
	if err != nil {
		s.followUps.Refund(ctx, projectID, quota)
		return Created{}, err
	}
	if started {
		// The job is active in SQLite either way; if Redis failed here the
		// sweep enqueues the run once RecoveryGrace has passed.
		if err := s.enqueueRun(ctx, j); err != nil {
			s.log.Warn("unable to enqueue a follow-up run; the sweep will", "job_id", j.ID, "err", err)
		}
		s.notify(ctx, j)
	}
	return Created{Job: j, Quota: quota}, nil
}
