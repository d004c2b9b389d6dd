package jobs

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"strings"

	"github.com/folio-docs/folio/model"
)

// Created is the outcome of a create: the job, the caller's quota after
// it, and whether an Idempotency-Key replayed an earlier create.
type Created struct {
	Job      model.Job
	Quota    Quota
	Replayed bool
}

// NewJob is what a create asks for: the prompt, and optionally the ref to
// start from and the model, instead of the project's.
type NewJob struct {
	Prompt string
	Ref    string
	Model  string
}

// bodyHash identifies a request body for its Idempotency-Key: the parts
// joined by NUL, so a prompt alone hashes as it always did.
func bodyHash(parts ...string) []byte {
	for len(parts) > 1 && parts[len(parts)-1] == "" {
		parts = parts[:len(parts)-1]
	}
	sum := sha256.Sum256([]byte(strings.Join(parts, "\x00")))
	return sum[:]
}

// Create starts a job with the project's ref and model (see Start).
func (s *Service) Create(ctx context.Context, projectID, prompt, idemKey string) (Created, error) {
	return s.Start(ctx, projectID, NewJob{Prompt: prompt}, idemKey)
}

// Start starts a job on a project with its first prompt and enqueues its
// first run. A ref must exist in the project's repository and a model must
// be one the provider lists (where it lists them): otherwise model.FieldErrors
// naming the field.
// With an idempotency key, the same key and body within 24 hours give the
// job created the first time, without counting against the rate limit. If
// the queue is unreachable nothing is stored (model.ErrQueueUnavailable).
func (s *Service) Start(ctx context.Context, projectID string, req NewJob, idemKey string) (c Created, err error) {
	defer s.fillQuota(ctx, s.creates, projectID, &c, &err)
	prompt := req.Prompt
	if err := checkPrompt(prompt); err != nil {
		return Created{}, err
	}
	project, err := s.db.ProjectByID(ctx, projectID)
	if err != nil {
		return Created{}, err
	}
	var idem *model.IdempotencyKey
	if idemKey != "" {
		idem = &model.IdempotencyKey{ProjectID: projectID, Key: idemKey, BodyHash: bodyHash(prompt, req.Ref, req.Model)}
		if c, err := s.replay(ctx, idem); !errors.Is(err, model.ErrNotFound) {
			return c, err
		}
	}
	if req.Ref != "" {
		if err := s.checkRef(ctx, project.Repository, req.Ref); err != nil {
			return Created{}, err
		}
		project.Ref = req.Ref
	}
	if req.Model != "" {
		if err := s.checkModel(ctx, req.Model); err != nil {
			return Created{}, err
		}
		project.Model = req.Model
	}

	quota, err := s.creates.Take(ctx, projectID)
	if err != nil {
		s.log.Warn("rate limiter unavailable", "err", err)
		return Created{}, model.ErrQueueUnavailable
	}
	if !quota.Allowed {
		return Created{Quota: quota}, &model.RateLimitedError{Limit: quota.Limit, Reset: quota.Reset}
	}
	modelName := project.Model
	if modelName == "" {
		modelName = s.cfg.DefaultModel
	}
	j, err := s.db.CreateJob(ctx, model.Job{ProjectID: projectID, Repository: project.Repository, Ref: project.Ref, Model: modelName}, prompt, idem)
	if errors.Is(err, model.ErrConflict) && idem != nil {
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
		return Created{}, model.ErrQueueUnavailable
	}
	s.changed(ctx, j.ID)
	s.notify(ctx, j)
	return Created{Job: j, Quota: quota}, nil
}

// replay answers a create whose Idempotency-Key is already stored.
func (s *Service) replay(ctx context.Context, idem *model.IdempotencyKey) (Created, error) {
	k, err := s.db.IdempotencyKeyByKey(ctx, idem.ProjectID, idem.Key)
	if err != nil {
		return Created{}, err
	}
	if !bytes.Equal(k.BodyHash, idem.BodyHash) {
		return Created{}, model.ErrIdempotencyConflict
	}
	j, err := s.db.JobByID(ctx, idem.ProjectID, k.JobID)
	return Created{Job: j, Replayed: true}, err
}

// fillQuota gives an answer that did not count a request the quota as it
// stands, so every answer carries the rate-limit headers; Redis being away
// leaves it empty.
func (s *Service) fillQuota(ctx context.Context, l *Limiter, projectID string, c *Created, err *error) {
	if c.Quota.Limit != 0 || errors.Is(*err, model.ErrQueueUnavailable) {
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

// Message adds a follow-up prompt (see FollowUp).
func (s *Service) Message(ctx context.Context, projectID, id, prompt string) (Created, error) {
	return s.FollowUp(ctx, projectID, id, prompt, "")
}

// FollowUp adds a follow-up prompt. On a completed or failed job it starts a
// new turn on the same branch with the whole conversation; on an active job
// it waits for the current run to end; on an archived job it is model.ErrJobArchived.
// With an idempotency key, the same key and prompt on the same job within
// 24 hours add the prompt once and answer the job as it stands, without
// counting against the rate limit; another prompt is model.ErrIdempotencyConflict.
func (s *Service) FollowUp(ctx context.Context, projectID, id, prompt, idemKey string) (c Created, err error) {
	defer s.fillQuota(ctx, s.followUps, projectID, &c, &err)
	if err := checkPrompt(prompt); err != nil {
		return Created{}, err
	}
	j, err := s.db.JobByID(ctx, projectID, id)
	if err != nil {
		return Created{}, err
	}
	var idem *model.IdempotencyKey
	if idemKey != "" {
		// Keys of follow-ups live apart from creates', one space per job.
		idem = &model.IdempotencyKey{ProjectID: projectID, Key: "message:" + j.ID + ":" + idemKey, BodyHash: bodyHash(prompt)}
		if c, err := s.replay(ctx, idem); !errors.Is(err, model.ErrNotFound) {
			return c, err
		}
	}
	if _, err := j.Status.FollowUp(); err != nil {
		return Created{}, err
	}
	quota, err := s.followUps.Take(ctx, projectID)
	if err != nil {
		s.log.Warn("rate limiter unavailable", "err", err)
		return Created{}, model.ErrQueueUnavailable
	}
	if !quota.Allowed {
		return Created{Quota: quota}, &model.RateLimitedError{Limit: quota.Limit, Reset: quota.Reset}
	}
	j, started, err := s.db.AddJobPrompt(ctx, projectID, id, prompt, idem)
	if errors.Is(err, model.ErrConflict) && idem != nil {
		// A concurrent request with the same key won the race.
		s.followUps.Refund(ctx, projectID, quota)
		return s.replay(ctx, idem)
	}
	if err != nil {
		s.followUps.Refund(ctx, projectID, quota)
		return Created{}, err
	}
	s.changed(ctx, j.ID) // the prompt, and the status if a turn starts
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
