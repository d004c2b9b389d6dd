package jobs

import (
	"context"
	"fmt"
	"time"

	"github.com/folio-docs/folio/model"
	"github.com/redis/go-redis/v9"
)

// Quota is the state of a rate limit after a request.
type Quota struct {
	Limit     int
	Remaining int
	Reset     time.Duration // until the oldest counted request leaves the window
	Allowed   bool
	member    string
}

// Limiter is a rolling-window limit kept in Redis, exact across processes:
// each key is a sorted set of request ids scored by Redis's own clock, and
// one Lua script trims, counts and adds atomically.
type Limiter struct {
	rdb    redis.UniversalClient
	prefix string
	limit  int
	window time.Duration
}

// NewLimiter allows limit requests per key per window.
func NewLimiter(rdb redis.UniversalClient, prefix string, limit int, window time.Duration) *Limiter {
	return &Limiter{rdb: rdb, prefix: prefix, limit: limit, window: window}
}

// ARGV: window ms, limit, member to add ("" only looks).
var slidingWindow = redis.NewScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local window = tonumber(ARGV[1])
local limit = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
local n = redis.call('ZCARD', KEYS[1])
local allowed = 0
if ARGV[3] ~= '' and n < limit then
	redis.call('ZADD', KEYS[1], now, ARGV[3])
	redis.call('PEXPIRE', KEYS[1], window)
	n = n + 1
	allowed = 1
end
local reset = 0
local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
if oldest[2] then reset = tonumber(oldest[2]) + window - now end
return {allowed, limit - n, reset}
`)

// Take counts one request for key if the quota allows it.
func (l *Limiter) Take(ctx context.Context, key string) (Quota, error) {
	return l.run(ctx, key, model.NewID())
}

// Peek reports the quota of key without counting a request.
func (l *Limiter) Peek(ctx context.Context, key string) (Quota, error) {
	return l.run(ctx, key, "")
}

func (l *Limiter) run(ctx context.Context, key, member string) (Quota, error) {
	res, err := slidingWindow.Run(ctx, l.rdb, []string{l.prefix + key}, l.window.Milliseconds(), l.limit, member).Int64Slice()
	if err != nil {
		return Quota{}, fmt.Errorf("jobs: unable to check the rate limit: %w", err)
	}
	q := Quota{Limit: l.limit, Remaining: int(res[1]), Reset: time.Duration(res[2]) * time.Millisecond, Allowed: res[0] == 1}
	if q.Allowed {
		q.member = member
	}
	return q, nil
}

// Refund gives back a request that Take counted but that did not happen.
func (l *Limiter) Refund(ctx context.Context, key string, q Quota) {
	if q.member != "" {
		l.rdb.ZRem(context.WithoutCancel(ctx), l.prefix+key, q.member)
	}
}
