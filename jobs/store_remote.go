package jobs

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/folio-docs/folio/agent"
	"github.com/folio-docs/folio/model"
	"github.com/folio-docs/folio/tasks"
)

// RemoteStore is the Store of a worker on another machine: each call is a
// request to serve's internal API. The token is sent, never logged.
type RemoteStore struct {
	base   string
	token  string
	client *http.Client

	mu      sync.Mutex
	claimed map[string]ClaimResponse // by job id: what the claim brought, until read
}

var _ Store = (*RemoteStore)(nil)

// NewRemoteStore talks to the serve at serverURL (FOLIO_SERVER_URL) with
// token (FOLIO_WORKER_TOKEN); client nil means a 30 s timeout client.
func NewRemoteStore(serverURL, token string, client *http.Client) *RemoteStore {
	if client == nil {
		client = &http.Client{Timeout: 30 * time.Second}
	}
	return &RemoteStore{base: strings.TrimRight(serverURL, "/") + WorkerAPIPath, token: token, client: client, claimed: map[string]ClaimResponse{}}
}

// Hello checks that serve answers, takes the token and speaks this worker's
// version of the worker API (ErrWorkerAPIVersion otherwise), and returns
// what the worker needs to know of it. A worker calls it before taking any task.
func (r *RemoteStore) Hello(ctx context.Context) (ServerInfo, error) {
	var info ServerInfo
	if err := r.call(ctx, "hello", struct{}{}, &info); err != nil {
		return info, err
	}
	if info.WorkerAPI == 0 {
		info.WorkerAPI = 1 // a serve from before versions were named
	}
	if info.WorkerAPI != WorkerAPIVersion {
		return info, fmt.Errorf("%w: serve speaks version %d, this worker %d", ErrWorkerAPIVersion, info.WorkerAPI, WorkerAPIVersion)
	}
	return info, nil
}

func (r *RemoteStore) ClaimRun(ctx context.Context, run tasks.AgentRun, owner string, lease time.Duration) (model.Job, bool, error) {
	var out ClaimResponse
	err := r.call(ctx, "claim", ClaimRequest{Run: run, Owner: owner, LeaseMs: lease.Milliseconds()}, &out)
	if err == nil && out.OK && out.Project != nil {
		r.mu.Lock()
		r.claimed[out.Job.ID] = out
		r.mu.Unlock()
	}
	return out.Job.Job(), out.OK, err
}

// prefetched takes what the claim of job brought, if it is still there.
func (r *RemoteStore) prefetched(jobID string) (ClaimResponse, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	c, ok := r.claimed[jobID]
	return c, ok
}

// forget drops what the claim of job brought, once the run no longer needs it.
func (r *RemoteStore) forget(jobID string) {
	r.mu.Lock()
	delete(r.claimed, jobID)
	r.mu.Unlock()
}

func (r *RemoteStore) ExtendLease(ctx context.Context, jobID, owner string, lease time.Duration) (bool, error) {
	var out OKResponse
	err := r.call(ctx, "extend", LeaseRequest{JobID: jobID, Owner: owner, LeaseMs: lease.Milliseconds()}, &out)
	return out.OK, err
}

func (r *RemoteStore) ReleaseRun(ctx context.Context, jobID, owner string) (bool, error) {
	r.forget(jobID)
	var out OKResponse
	err := r.retry(ctx, "release", LeaseRequest{JobID: jobID, Owner: owner}, &out)
	return out.OK, err
}

func (r *RemoteStore) Project(ctx context.Context, projectID string) (model.Project, error) {
	r.mu.Lock()
	for _, c := range r.claimed {
		if c.Project.ID == projectID {
			r.mu.Unlock()
			return c.Project.Project(), nil
		}
	}
	r.mu.Unlock()
	var out model.ProjectRecord
	err := r.call(ctx, "project", ProjectRequest{ProjectID: projectID}, &out)
	return out.Project(), err
}

func (r *RemoteStore) History(ctx context.Context, jobID string, turn int) ([]agent.Message, error) {
	if c, ok := r.prefetched(jobID); ok && c.Job.Turn == turn {
		r.forget(jobID) // read once: the run is now under way
		return c.History, nil
	}
	var out []agent.Message
	err := r.call(ctx, "history", HistoryRequest{JobID: jobID, Turn: turn}, &out)
	return out, err
}

func (r *RemoteStore) AddMessage(ctx context.Context, jobID string, turn int, owner string, m agent.Message) error {
	if m.CreatedAt.IsZero() {
		m.CreatedAt = time.Now()
	}
	return r.call(ctx, "message", MessageRequest{JobID: jobID, Turn: turn, Owner: owner, Message: m}, nil)
}

func (r *RemoteStore) AddUsage(ctx context.Context, jobID string, u model.RunUsage) error {
	return r.call(ctx, "usage", UsageRequestOf(jobID, u), nil)
}

func (r *RemoteStore) FinishRun(ctx context.Context, jobID, owner string, res agent.Result) error {
	r.forget(jobID)
	return r.retry(ctx, "finish", FinishRequest{JobID: jobID, Owner: owner, Result: RecordOf(res)}, nil)
}

func (r *RemoteStore) FailRun(ctx context.Context, jobID, owner, code, message string) error {
	r.forget(jobID)
	return r.retry(ctx, "fail", FailRequest{JobID: jobID, Owner: owner, Code: code, Message: message}, nil)
}

// retry calls an operation that is safe to repeat (it only acts while
// owner holds the job) a few times, so a blip on the network does not cost
// a finished turn: without it the lease would lapse and the turn run again.
func (r *RemoteStore) retry(ctx context.Context, op string, in, out any) error {
	var err error
	for i, wait := range []time.Duration{0, 200 * time.Millisecond, time.Second, 3 * time.Second} {
		if i > 0 {
			select {
			case <-ctx.Done():
				return err
			case <-time.After(wait):
			}
		}
		if err = r.call(ctx, op, in, out); err == nil || !transient(err) {
			return err
		}
	}
	return err
}

// statusError is serve's refusal of a call.
type statusError struct {
	op     string
	status int
	msg    string
}

func (e *statusError) Error() string {
	return fmt.Sprintf("jobs: serve answered %s with %d: %s", e.op, e.status, e.msg)
}

func (e *statusError) Is(target error) bool {
	switch target {
	case ErrWorkerToken:
		return e.status == http.StatusUnauthorized
	case model.ErrNotFound:
		return e.status == http.StatusNotFound
	}
	return false
}

func transient(err error) bool {
	var se *statusError
	if errors.As(err, &se) {
		return se.status >= 500 || se.status == http.StatusTooManyRequests
	}
	return true // not answered at all
}

func (r *RemoteStore) call(ctx context.Context, op string, in, out any) error {
	body, err := json.Marshal(in)
	if err != nil {
		return fmt.Errorf("jobs: unable to encode %s: %w", op, err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, r.base+op, bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("jobs: unable to ask serve (%s): %w", op, err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+r.token)
	req.Header.Set(WorkerAPIHeader, strconv.Itoa(WorkerAPIVersion))
	resp, err := r.client.Do(req)
	if err != nil {
		return fmt.Errorf("jobs: unable to reach serve (%s): %w", op, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return fmt.Errorf("jobs: unable to read serve's answer to %s: %w", op, err)
	}
	if resp.StatusCode != http.StatusOK {
		var e struct {
			Error string `json:"error"`
		}
		if json.Unmarshal(data, &e) != nil || e.Error == "" {
			e.Error = http.StatusText(resp.StatusCode)
		}
		return &statusError{op: op, status: resp.StatusCode, msg: e.Error}
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(data, out); err != nil {
		return fmt.Errorf("jobs: unable to decode serve's answer to %s: %w", op, err)
	}
	return nil
}
