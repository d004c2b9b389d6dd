package api

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
)

type pingFunc func(ctx context.Context) error

func (f pingFunc) Ping(ctx context.Context) error { return f(ctx) }

// A dependency that spends the whole timeout refusing must not take the
// others down with it: each is pinged with a time of its own.
func TestReadyzReportsEachDependencyOnItsOwn(t *testing.T) {
	hang := pingFunc(func(ctx context.Context) error { <-ctx.Done(); return ctx.Err() })
	ok := pingFunc(func(ctx context.Context) error { return ctx.Err() })
	for range 3 { // map order varies: the hanging one comes first in some runs
		rec := httptest.NewRecorder()
		Readyz(map[string]Pinger{"redis": hang, "database": ok, "other": ok})(rec, httptest.NewRequest("GET", "/readyz", nil))
		var body NotReady
		if err := json.NewDecoder(rec.Body).Decode(&body); err != nil {
			t.Fatal(err)
		}
		want := map[string]string{"redis": "unavailable", "database": "ok", "other": "ok"}
		if rec.Code != http.StatusServiceUnavailable || body.Code != "unavailable" || len(body.Checks) != 3 {
			t.Fatalf("readyz: %d %+v, want 503 unavailable with %v", rec.Code, body, want)
		}
		for k, v := range want {
			if body.Checks[k] != v {
				t.Fatalf("readyz checks %v, want %v", body.Checks, want)
			}
		}
	}
}
