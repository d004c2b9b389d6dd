package internalapi

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"github.com/folio-docs/folio/agent"
	"github.com/folio-docs/folio/handlers/httpx"
	"github.com/folio-docs/folio/jobs"
	"github.com/folio-docs/folio/model"
)

// WorkerToken is FOLIO_WORKER_TOKEN as serve holds it: only a digest, so
// comparisons take the same time whatever is sent. The zero value accepts
// no one (serve without a token takes no remote worker).
type WorkerToken struct {
	sum [32]byte
	set bool
}

// NewWorkerToken keeps secret's digest; "" accepts no one.
func NewWorkerToken(secret string) WorkerToken {
	if secret == "" {
		return WorkerToken{}
	}
	return WorkerToken{sum: sha256.Sum256([]byte(secret)), set: true}
}

// Matches says, in constant time, whether secret is the token.
func (t WorkerToken) Matches(secret string) bool {
	got := sha256.Sum256([]byte(secret))
	return subtle.ConstantTimeCompare(got[:], t.sum[:]) == 1 && t.set
}

// workerLimiter bounds what one address may ask of the internal API: a
// generous request rate for a busy worker host, and few failed tokens.
type workerLimiter struct {
	mu       sync.Mutex
	perIP    map[string]*rate.Limiter
	failures *httpx.SignInLimiter
}

func newWorkerLimiter() *workerLimiter {
	return &workerLimiter{perIP: map[string]*rate.Limiter{}, failures: httpx.NewSignInLimiter(20, time.Minute)}
}

func (l *workerLimiter) allow(ip string) (bool, time.Duration) {
	if ok, wait := l.failures.Allow(ip); !ok {
		return false, wait
	}
	l.mu.Lock()
	lim, ok := l.perIP[ip]
	if !ok {
		if len(l.perIP) > 10000 {
			clear(l.perIP)
		}
		lim = rate.NewLimiter(500, 1000)
		l.perIP[ip] = lim
	}
	l.mu.Unlock()
	if !lim.Allow() {
		return false, time.Second
	}
	return true, 0
}

// RequireWorkerToken guards what only remote workers may use: the request
// must carry the worker token, as a Bearer token or as the password of
// Basic auth (git's way). Many failures from one address are refused for a
// while, and every address is rate-limited.
func RequireWorkerToken(token WorkerToken, next http.Handler) http.Handler {
	lim := newWorkerLimiter()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ip := httpx.ClientIP(r)
		if ok, wait := lim.allow(ip); !ok {
			httpx.SetRetryAfter(w, wait)
			httpx.WriteError(w, r, httpx.NewError(http.StatusTooManyRequests, httpx.CodeRateLimited, "Too many requests to the worker API; retry later."))
			return
		}
		if !token.Matches(workerSecret(r)) {
			lim.failures.Fail(ip)
			httpx.WriteError(w, r, httpx.NewError(http.StatusUnauthorized, httpx.CodeUnauthorized, "A valid worker token (FOLIO_WORKER_TOKEN) is required."))
			return
		}
		next.ServeHTTP(w, r)
	})
}

// workerSecret is what the request offers as the worker token.
func workerSecret(r *http.Request) string {
	if _, pass, ok := r.BasicAuth(); ok {
		return pass
	}
	h := r.Header.Get("Authorization")
	if len(h) > 7 && strings.EqualFold(h[:7], "Bearer ") {
		return h[7:]
	}
	return ""
}

// maxWorkerBody caps a worker's request: a message may carry a whole file
// the agent wrote, so more than the public API's 1 MiB.
const maxWorkerBody = 32 << 20

// WorkerAPI is serve's internal API for remote workers: each route is one
// method of the jobs.Store that serve holds (the SQLite one), so a worker
// elsewhere runs turns exactly as one beside the database. Mount it under
// jobs.WorkerAPIPath behind RequireWorkerToken.
func WorkerAPI(store jobs.Store, info jobs.ServerInfo) http.Handler {
	mux := http.NewServeMux()
	handle := func(op string, f func(ctx context.Context, dec *json.Decoder) (any, error)) {
		mux.HandleFunc("POST "+jobs.WorkerAPIPath+op, func(w http.ResponseWriter, r *http.Request) {
			// No version: a worker from before versions were named, which
			// speaks version 1.
			if v := r.Header.Get(jobs.WorkerAPIHeader); v != "" && v != strconv.Itoa(jobs.WorkerAPIVersion) {
				httpx.WriteError(w, r, httpx.Invalid(jobs.WorkerAPIVersionError(v)))
				return
			}
			dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxWorkerBody))
			out, err := f(r.Context(), dec)
			var syntax *json.SyntaxError
			var typ *json.UnmarshalTypeError
			var tooBig *http.MaxBytesError
			switch {
			case err == nil:
				if out == nil {
					out = jobs.OKResponse{OK: true}
				}
				httpx.WriteJSON(w, http.StatusOK, out)
			case errors.As(err, &tooBig):
				httpx.WriteError(w, r, httpx.NewError(http.StatusRequestEntityTooLarge, httpx.CodePayloadTooLarge, "The request body is over %d bytes.", maxWorkerBody))
			case errors.As(err, &syntax), errors.As(err, &typ), errors.Is(err, errBadWorkerRequest):
				httpx.WriteError(w, r, httpx.Invalid("The request body is not what "+op+" takes: "+err.Error()))
			case errors.Is(err, model.ErrNotFound):
				httpx.WriteError(w, r, httpx.NewError(http.StatusNotFound, httpx.CodeNotFound, "Not found."))
			default:
				httpx.WriteInternal(w, r, err)
			}
		})
	}
	decode := func(dec *json.Decoder, v any) error {
		if err := dec.Decode(v); err != nil {
			return errors.Join(errBadWorkerRequest, err)
		}
		return nil
	}
	info.WorkerAPI = jobs.WorkerAPIVersion
	handle("hello", func(ctx context.Context, dec *json.Decoder) (any, error) {
		return info, nil
	})
	handle("claim", func(ctx context.Context, dec *json.Decoder) (any, error) {
		var in jobs.ClaimRequest
		if err := decode(dec, &in); err != nil {
			return nil, err
		}
		if in.Owner == "" || in.LeaseMs <= 0 {
			return nil, errors.Join(errBadWorkerRequest, errors.New("owner and leaseMs are required"))
		}
		j, ok, err := store.ClaimRun(ctx, in.Run, in.Owner, time.Duration(in.LeaseMs)*time.Millisecond)
		if err != nil || !ok {
			return jobs.ClaimResponse{OK: ok, Job: j.Record()}, err
		}
		// What the run reads next comes with the claim: one round trip.
		p, err := store.Project(ctx, j.ProjectID)
		var h []agent.Message
		if err == nil {
			h, err = store.History(ctx, j.ID, j.Turn)
		}
		if err != nil {
			// Give the turn back rather than leave it held by a worker that
			// hears only an error.
			_, _ = store.ReleaseRun(context.WithoutCancel(ctx), j.ID, in.Owner) // if this fails too, the lease runs out and the sweep gives the turn back
			return nil, err
		}
		rec := jobs.ForWorker(p)
		return jobs.ClaimResponse{OK: true, Job: j.Record(), Project: &rec, History: h}, nil
	})
	handle("extend", func(ctx context.Context, dec *json.Decoder) (any, error) {
		var in jobs.LeaseRequest
		if err := decode(dec, &in); err != nil {
			return nil, err
		}
		if in.Owner == "" || in.LeaseMs <= 0 {
			return nil, errors.Join(errBadWorkerRequest, errors.New("owner and leaseMs are required"))
		}
		ok, err := store.ExtendLease(ctx, in.JobID, in.Owner, time.Duration(in.LeaseMs)*time.Millisecond)
		return jobs.OKResponse{OK: ok}, err
	})
	handle("release", func(ctx context.Context, dec *json.Decoder) (any, error) {
		var in jobs.LeaseRequest
		if err := decode(dec, &in); err != nil {
			return nil, err
		}
		ok, err := store.ReleaseRun(ctx, in.JobID, in.Owner)
		return jobs.OKResponse{OK: ok}, err
	})
	handle("project", func(ctx context.Context, dec *json.Decoder) (any, error) {
		var in jobs.ProjectRequest
		if err := decode(dec, &in); err != nil {
			return nil, err
		}
		p, err := store.Project(ctx, in.ProjectID)
		return jobs.ForWorker(p), err
	})
	handle("history", func(ctx context.Context, dec *json.Decoder) (any, error) {
		var in jobs.HistoryRequest
		if err := decode(dec, &in); err != nil {
			return nil, err
		}
		h, err := store.History(ctx, in.JobID, in.Turn)
		if h == nil {
			h = []agent.Message{}
		}
		return h, err
	})
	handle("message", func(ctx context.Context, dec *json.Decoder) (any, error) {
		var in jobs.MessageRequest
		if err := decode(dec, &in); err != nil {
			return nil, err
		}
		return nil, store.AddMessage(ctx, in.JobID, in.Turn, in.Owner, in.Message)
	})
	handle("usage", func(ctx context.Context, dec *json.Decoder) (any, error) {
		var in jobs.UsageRequest
		if err := decode(dec, &in); err != nil {
			return nil, err
		}
		return nil, store.AddUsage(ctx, in.JobID, in.Usage())
	})
	handle("finish", func(ctx context.Context, dec *json.Decoder) (any, error) {
		var in jobs.FinishRequest
		if err := decode(dec, &in); err != nil {
			return nil, err
		}
		// What follows a turn (next turn, webhook) must happen even if the
		// worker hangs up now.
		return nil, store.FinishRun(context.WithoutCancel(ctx), in.JobID, in.Owner, in.Result.Result())
	})
	handle("fail", func(ctx context.Context, dec *json.Decoder) (any, error) {
		var in jobs.FailRequest
		if err := decode(dec, &in); err != nil {
			return nil, err
		}
		if in.Code == "" {
			return nil, errors.Join(errBadWorkerRequest, errors.New("code is required"))
		}
		return nil, store.FailRun(context.WithoutCancel(ctx), in.JobID, in.Owner, in.Code, in.Message)
	})
	return mux
}

var errBadWorkerRequest = errors.New("bad worker request")
