package agent

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strconv"
	"time"
)

// provider is a model API: one call, the conversation in, the next
// assistant message out.
type provider interface {
	complete(ctx context.Context, req modelRequest) (modelReply, error)
}

// CodeContextExceeded is a provider refusing a request longer than the
// model's context window.
const CodeContextExceeded = "context_length_exceeded"

type modelRequest struct {
	Model     string
	System    string
	Messages  []Message
	Tools     []toolSpec
	MaxTokens int64 // for the reply
}

type modelReply struct {
	Content   string
	ToolCalls []ToolCall
	Tokens    int64 // prompt + completion
	// Input is every prompt token, as the provider reported them: those
	// read from its cache (Cached) and written to it (CacheWrite) included.
	// Anthropic reports the three apart; OpenAI's prompt_tokens holds them.
	Input      int64
	Cached     int64
	CacheWrite int64
	Output     int64 // completion tokens
	Truncated  bool  // the reply hit MaxTokens
}

// statusError is a provider's HTTP refusal, with what it said.
type statusError struct {
	Status     int
	Message    string
	RetryAfter time.Duration // from Retry-After / retry-after-ms, if sent
}

func (e *statusError) Error() string {
	return fmt.Sprintf("the model provider answered %d: %s", e.Status, e.Message)
}

// retryable: rate limits, overload and server errors; not a 4xx that will
// say the same next time (bad key, unknown model, malformed request).
func (e *statusError) retryable() bool {
	return e.Status == http.StatusTooManyRequests || e.Status == http.StatusRequestTimeout ||
		e.Status == http.StatusConflict || e.Status >= 500
}

func retryAfter(h http.Header) time.Duration {
	if h == nil {
		return 0
	}
	if ms, err := strconv.ParseFloat(h.Get("Retry-After-Ms"), 64); err == nil && ms >= 0 {
		return time.Duration(ms * float64(time.Millisecond))
	}
	v := h.Get("Retry-After")
	if secs, err := strconv.ParseFloat(v, 64); err == nil && secs >= 0 {
		return time.Duration(secs * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(time.Until(t), 0)
	}
	return 0
}

// retryPolicy says how often and how long to wait between attempts.
type retryPolicy struct {
	Attempts int
	Base     time.Duration // first backoff, doubled each time, with jitter
	Max      time.Duration // longest single wait, Retry-After included
	sleep    func(ctx context.Context, d time.Duration) error
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// completeWithRetry calls p, retrying what may pass on a later attempt. A
// refusal that will not change is a permanent model_error with the
// provider's own message; running out of attempts is a transient error, so
// the queue may try the turn again later.
func completeWithRetry(ctx context.Context, p provider, pol retryPolicy, req modelRequest) (modelReply, error) {
	sleep := pol.sleep
	if sleep == nil {
		sleep = sleepCtx
	}
	var last error
	for attempt := 0; attempt < max(pol.Attempts, 1); attempt++ {
		if attempt > 0 {
			wait := pol.Base << (attempt - 1)
			wait += time.Duration(rand.Int64N(int64(wait)/4 + 1)) // #nosec G404 -- jitter only spreads retries apart; nothing depends on guessing it
			var se *statusError
			if errors.As(last, &se) && se.RetryAfter > 0 {
				wait = se.RetryAfter
			}
			if pol.Max > 0 && wait > pol.Max {
				wait = pol.Max
			}
			if deadline, ok := ctx.Deadline(); ok && time.Until(deadline) < wait {
				break // waiting would outlive the run
			}
			if err := sleep(ctx, wait); err != nil {
				return modelReply{}, err
			}
		}
		reply, err := p.complete(ctx, req)
		if err == nil {
			return reply, nil
		}
		if ctx.Err() != nil {
			return modelReply{}, ctx.Err()
		}
		var se *statusError
		if errors.As(err, &se) && !se.retryable() {
			code := "model_error"
			if contextExceeded(se) {
				code = CodeContextExceeded
			}
			return modelReply{}, &Error{Code: code, Message: fmt.Sprintf("The model provider refused the request (%d): %s", se.Status, se.Message), Permanent: true}
		}
		last = err
	}
	return modelReply{}, &Error{Code: "model_unavailable", Message: "The model provider did not answer successfully after retrying.", Err: last}
}

// usage is what the call used, as a message records it.
func (r modelReply) usage() Usage {
	return Usage{Input: r.Input, Cached: r.Cached, CacheWrite: r.CacheWrite, Output: r.Output}
}
