package httpx

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"net/http"
	"runtime/debug"
	"time"

	"github.com/gorilla/mux"

	"github.com/folio-docs/folio/metrics"
)

type ctxKey int

const (
	requestKey ctxKey = iota
)

// request is what Observe knows of the request it serves. It is one
// allocation per request: the response recorder, the id and the logger
// travel together under one context key.
type request struct {
	statusRecorder
	id    string
	log   *slog.Logger
	route string // the matched route's template, set by NoteRoute
	start time.Time
	// openedIn is, for a stream (a job's events), how long it took to
	// open: what the duration metric records of it (StreamOpened).
	openedIn time.Duration
}

func requestOf(ctx context.Context) *request {
	rq, _ := ctx.Value(requestKey).(*request)
	return rq
}

// RequestID is the id of the request being served.
func RequestID(ctx context.Context) string {
	if rq := requestOf(ctx); rq != nil {
		return rq.id
	}
	return ""
}

func Logger(ctx context.Context) *slog.Logger {
	if rq := requestOf(ctx); rq != nil && rq.log != nil {
		return rq.log
	}
	return slog.Default()
}

// validRequestID reports whether a caller's request id may be used as ours:
// 1 to 64 characters of [A-Za-z0-9._-], so it is safe in logs and headers.
func validRequestID(id string) bool {
	if len(id) == 0 || len(id) > 64 {
		return false
	}
	for i := 0; i < len(id); i++ {
		switch c := id[i]; {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '.', c == '_', c == '-':
		default:
			return false
		}
	}
	return true
}

// newRequestID is 64 random bits in hex.
func newRequestID() string {
	var b [8]byte
	rand.Read(b[:])
	var out [16]byte
	hex.Encode(out[:], b[:])
	return string(out[:])
}

// Observe gives every request an id (the caller's X-Request-Id when sane),
// answers it in X-Request-Id, turns a panic into a JSON 500, and writes one
// access-log line. It never logs headers, bodies or query strings, which may
// carry secrets.
func Observe(log *slog.Logger) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			start := time.Now()
			id := r.Header.Get("X-Request-Id")
			if !validRequestID(id) {
				id = newRequestID()
			}
			rq := &request{statusRecorder: statusRecorder{ResponseWriter: w}, id: id, log: log, start: start}
			ctx := context.WithValue(r.Context(), requestKey, rq)
			r = r.WithContext(ctx)
			w.Header()["X-Request-Id"] = []string{id} // canonical already; skips Set's re-canonicalising
			rec := &rq.statusRecorder

			defer func() {
				if p := recover(); p != nil {
					if p == http.ErrAbortHandler {
						panic(p)
					}
					log.Error("panic", "request_id", id, "method", r.Method, "path", r.URL.Path, "panic", p, "stack", string(debug.Stack()))
					if !rec.wroteHeader {
						WriteError(rec, r, NewError(http.StatusInternalServerError, CodeInternal, "Internal server error; quote request id %s when reporting it.", id))
					}
				}
				took := time.Since(start)
				observed := took
				if rq.openedIn > 0 {
					observed = rq.openedIn // a stream: the time to open it, not how long the client stayed
				}
				metrics.HTTP(rq.route, r.Method, rec.status(), observed)
				log.LogAttrs(ctx, slog.LevelInfo, "request",
					slog.String("request_id", id),
					slog.String("method", r.Method),
					slog.String("path", r.URL.Path),
					slog.Int("status", rec.status()),
					slog.Int64("bytes", rec.bytes),
					slog.Duration("duration", took),
					slog.String("remote", r.RemoteAddr),
				)
			}()
			next.ServeHTTP(rec, r)
		})
	}
}

// StreamOpened tells Observe that r's response is a stream, open from now
// on: folio_http_request_duration_seconds then records the time it took to
// open (headers and first events written), so that streams held open for
// hours do not swamp the histogram of the route; the access log still
// says how long the stream lasted.
func StreamOpened(r *http.Request) {
	if rq := requestOf(r.Context()); rq != nil {
		rq.openedIn = max(time.Since(rq.start), time.Nanosecond)
	}
}

// NoteRoute, a router middleware, tells Observe the matched route's
// template ("/v2/agent/{projectId}/job/{id}"), which labels the request's
// metrics: never the raw path, whose ids would grow the label set.
func NoteRoute(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if rq, route := requestOf(r.Context()), mux.CurrentRoute(r); rq != nil && route != nil {
			rq.route, _ = route.GetPathTemplate()
		}
		next.ServeHTTP(w, r)
	})
}

// LimitBody refuses bodies declared larger than MaxBodyBytes with 413 and
// caps the rest as they are read.
func LimitBody(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ContentLength > MaxBodyBytes {
			WriteError(w, r, NewError(http.StatusRequestEntityTooLarge, CodePayloadTooLarge, "The request body is larger than %d bytes.", MaxBodyBytes))
			return
		}
		if r.Body != http.NoBody { // a GET's empty body needs no cap, nor the allocation
			r.Body = http.MaxBytesReader(w, r.Body, MaxBodyBytes)
		}
		next.ServeHTTP(w, r)
	})
}

type statusRecorder struct {
	http.ResponseWriter
	code        int
	bytes       int64
	wroteHeader bool
}

func (s *statusRecorder) WriteHeader(code int) {
	if !s.wroteHeader {
		s.code, s.wroteHeader = code, true
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusRecorder) Write(b []byte) (int, error) {
	if !s.wroteHeader {
		s.WriteHeader(http.StatusOK)
	}
	n, err := s.ResponseWriter.Write(b)
	s.bytes += int64(n)
	return n, err
}

func (s *statusRecorder) status() int {
	if s.code == 0 {
		return http.StatusOK
	}
	return s.code
}

// Unwrap lets http.ResponseController reach Flush and deadlines underneath.
func (s *statusRecorder) Unwrap() http.ResponseWriter { return s.ResponseWriter }
