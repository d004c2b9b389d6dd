package handlers

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"net/http"
	"regexp"
	"runtime/debug"
	"time"
)

type ctxKey int

const (
	requestIDKey ctxKey = iota
	loggerKey
	apiKeyKey
)

var validRequestID = regexp.MustCompile(`^[A-Za-z0-9._-]{1,64}$`)

// RequestID is the id of the request being served.
func RequestID(ctx context.Context) string {
	id, _ := ctx.Value(requestIDKey).(string)
	return id
}

func logger(ctx context.Context) *slog.Logger {
	if l, ok := ctx.Value(loggerKey).(*slog.Logger); ok {
		return l
	}
	return slog.Default()
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
			if !validRequestID.MatchString(id) {
				var b [8]byte
				rand.Read(b[:])
				id = hex.EncodeToString(b[:])
			}
			ctx := context.WithValue(r.Context(), requestIDKey, id)
			ctx = context.WithValue(ctx, loggerKey, log)
			r = r.WithContext(ctx)
			w.Header().Set("X-Request-Id", id)
			rec := &statusRecorder{ResponseWriter: w}

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
				log.LogAttrs(ctx, slog.LevelInfo, "request",
					slog.String("request_id", id),
					slog.String("method", r.Method),
					slog.String("path", r.URL.Path),
					slog.Int("status", rec.status()),
					slog.Int64("bytes", rec.bytes),
					slog.Duration("duration", time.Since(start)),
					slog.String("remote", r.RemoteAddr),
				)
			}()
			next.ServeHTTP(rec, r)
		})
	}
}

// LimitBody refuses bodies declared larger than MaxBodyBytes with 413 and
// caps the rest as they are read.
func LimitBody(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ContentLength > MaxBodyBytes {
			WriteError(w, r, NewError(http.StatusRequestEntityTooLarge, CodePayloadTooLarge, "The request body is larger than %d bytes.", MaxBodyBytes))
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, MaxBodyBytes)
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
