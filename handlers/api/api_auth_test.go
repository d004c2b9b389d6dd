package api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/mux"

	"github.com/folio-docs/folio/auth"
	"github.com/folio-docs/folio/db"
	"github.com/folio-docs/folio/handlers/api"
	"github.com/folio-docs/folio/handlers/httpx"
	"github.com/folio-docs/folio/internal/testenv"
	"github.com/folio-docs/folio/model"
)

// apiWorld is a router with one guarded endpoint per method, two projects
// and keys for them, over a real SQLite file.
type apiWorld struct {
	srv                        *httptest.Server
	d                          *db.DB
	keys                       *auth.Keys
	p, other                   model.Project
	write, read, expired, gone string
	logs                       *bytes.Buffer
}

func newAPIWorld(t testing.TB) *apiWorld {
	t.Helper()
	ctx := context.Background()
	w := &apiWorld{d: testenv.NewDB(t), logs: &bytes.Buffer{}}
	w.keys = auth.NewKeys(w.d)
	w.p, _ = w.d.CreateProject(ctx, model.Project{Name: "Docs", Repository: "/tmp/docs"})
	w.other, _ = w.d.CreateProject(ctx, model.Project{Name: "Other", Repository: "/tmp/other"})
	w.write, _, _ = w.keys.Issue(ctx, w.p.ID, "w", model.ScopeWrite, "never")
	w.read, _, _ = w.keys.Issue(ctx, w.p.ID, "r", model.ScopeRead, "never")
	w.expired, _, _ = w.keys.Issue(ctx, w.p.ID, "e", model.ScopeWrite, "7d")
	var rec model.APIKey
	w.gone, rec, _ = w.keys.Issue(ctx, w.p.ID, "g", model.ScopeWrite, "never")
	w.d.RevokeAPIKey(ctx, w.p.ID, rec.ID)

	r := mux.NewRouter()
	r.NotFoundHandler = httpx.Unmatched(r)
	r.MethodNotAllowedHandler = r.NotFoundHandler
	keyed := r.PathPrefix("/v2/agent/{projectId}").Subrouter()
	keyed.Use(httpx.LimitBody, api.RequireAPIKey(w.keys))
	echo := func(rw http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		rw.Header().Set("Content-Type", "application/json")
		json.NewEncoder(rw).Encode(map[string]string{"project": mux.Vars(r)["projectId"]})
	}
	keyed.HandleFunc("/probe", echo).Methods(http.MethodGet, http.MethodPost)
	keyed.HandleFunc("/boom", func(http.ResponseWriter, *http.Request) { panic("secret internals") }).Methods(http.MethodGet)
	log := slog.New(slog.NewTextHandler(w.logs, nil))
	w.srv = httptest.NewServer(httpx.Observe(log)(r))
	t.Cleanup(w.srv.Close)
	return w
}

func (w *apiWorld) do(t testing.TB, method, path, key string, body io.Reader) (*http.Response, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest(method, w.srv.URL+path, body)
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var out map[string]any
	json.NewDecoder(res.Body).Decode(&out)
	if res.Header.Get("X-Request-Id") == "" {
		t.Errorf("%s %s: no X-Request-Id", method, path)
	}
	return res, out
}

func TestRequireAPIKey(t *testing.T) {
	w := newAPIWorld(t)
	w.keys.Now = time.Now
	// The expired key: a clock 8 days on makes its 7-day expiry pass.
	typo := w.write[:10] + string(w.write[10]^1) + w.write[11:]
	cases := []struct {
		name, method, project, key string
		wantStatus                 int
		wantCode                   string
	}{
		{"no key", "GET", w.p.ID, "", 401, "unauthorized"},
		{"one character changed", "GET", w.p.ID, typo, 401, "unauthorized"},
		{"not a folio key", "GET", w.p.ID, "sk-abcdef", 401, "unauthorized"},
		{"revoked key", "GET", w.p.ID, w.gone, 401, "unauthorized"},
		{"another project's id", "GET", w.other.ID, w.write, 404, "not_found"},
		{"unknown project", "GET", "doesnotexist", w.write, 404, "not_found"},
		{"read key on POST", "POST", w.p.ID, w.read, 403, "forbidden"},
		{"read key on another project's POST", "POST", w.other.ID, w.read, 404, "not_found"},
		{"read key on GET", "GET", w.p.ID, w.read, 200, ""},
		{"write key on POST", "POST", w.p.ID, w.write, 200, ""},
		{"write key on GET", "GET", w.p.ID, w.write, 200, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, body := w.do(t, c.method, "/v2/agent/"+c.project+"/probe", c.key, strings.NewReader("{}"))
			if res.StatusCode != c.wantStatus {
				t.Fatalf("status %d, want %d (body %v)", res.StatusCode, c.wantStatus, body)
			}
			if c.wantCode == "" {
				if body["project"] != w.p.ID {
					t.Errorf("handler saw project %v, want %s", body["project"], w.p.ID)
				}
				return
			}
			if body["code"] != c.wantCode || body["error"] == "" {
				t.Errorf("body %v, want code %q and an error sentence", body, c.wantCode)
			}
			if c.wantStatus == 401 && !strings.HasPrefix(res.Header.Get("WWW-Authenticate"), "Bearer") {
				t.Errorf("WWW-Authenticate %q, want Bearer", res.Header.Get("WWW-Authenticate"))
			}
		})
	}
	t.Run("expired key", func(t *testing.T) {
		w.keys.Now = func() time.Time { return time.Now().Add(8 * 24 * time.Hour) }
		defer func() { w.keys.Now = time.Now }()
		res, body := w.do(t, "GET", "/v2/agent/"+w.p.ID+"/probe", w.expired, nil)
		if res.StatusCode != 401 || body["code"] != "unauthorized" {
			t.Fatalf("expired key: %d %v, want 401 unauthorized", res.StatusCode, body)
		}
	})
	t.Run("revocation takes effect at once", func(t *testing.T) {
		plain, rec, _ := w.keys.Issue(context.Background(), w.p.ID, "now", model.ScopeWrite, "never")
		if res, _ := w.do(t, "GET", "/v2/agent/"+w.p.ID+"/probe", plain, nil); res.StatusCode != 200 {
			t.Fatalf("fresh key: %d", res.StatusCode)
		}
		w.d.RevokeAPIKey(context.Background(), w.p.ID, rec.ID)
		if res, _ := w.do(t, "GET", "/v2/agent/"+w.p.ID+"/probe", plain, nil); res.StatusCode != 401 {
			t.Fatalf("revoked key: %d, want 401", res.StatusCode)
		}
	})
	if strings.Contains(w.logs.String(), w.write[6:]) || strings.Contains(w.logs.String(), w.read[6:]) {
		t.Fatal("a key appears in the logs")
	}
}

func TestErrorsAreJSON(t *testing.T) {
	w := newAPIWorld(t)
	t.Run("unknown route", func(t *testing.T) {
		res, body := w.do(t, "GET", "/v2/nothing/here", w.write, nil)
		if res.StatusCode != 404 || body["code"] != "not_found" {
			t.Fatalf("%d %v, want 404 not_found", res.StatusCode, body)
		}
	})
	t.Run("wrong method", func(t *testing.T) {
		res, body := w.do(t, "DELETE", "/v2/agent/"+w.p.ID+"/probe", w.write, nil)
		if res.StatusCode != 405 || body["code"] != "method_not_allowed" {
			t.Fatalf("%d %v, want 405 method_not_allowed", res.StatusCode, body)
		}
		if got := res.Header.Get("Allow"); got != "GET, POST" {
			t.Errorf("Allow %q, want \"GET, POST\"", got)
		}
	})
	t.Run("body over 1 MiB", func(t *testing.T) {
		big := bytes.Repeat([]byte("a"), httpx.MaxBodyBytes+1)
		res, body := w.do(t, "POST", "/v2/agent/"+w.p.ID+"/probe", w.write, bytes.NewReader(big))
		if res.StatusCode != 413 || body["code"] != "payload_too_large" {
			t.Fatalf("%d %v, want 413 payload_too_large", res.StatusCode, body)
		}
	})
	t.Run("panic", func(t *testing.T) {
		res, body := w.do(t, "GET", "/v2/agent/"+w.p.ID+"/boom", w.write, nil)
		if res.StatusCode != 500 || body["code"] != "internal" {
			t.Fatalf("%d %v, want 500 internal", res.StatusCode, body)
		}
		if body["requestId"] != res.Header.Get("X-Request-Id") {
			t.Errorf("body request id %v, header %q", body["requestId"], res.Header.Get("X-Request-Id"))
		}
		if strings.Contains(body["error"].(string), "secret internals") {
			t.Error("the panic value leaked into the response")
		}
	})
	t.Run("caller's request id is kept", func(t *testing.T) {
		req, _ := http.NewRequest("GET", w.srv.URL+"/healthz-nope", nil)
		req.Header.Set("X-Request-Id", "trace-123")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if got := res.Header.Get("X-Request-Id"); got != "trace-123" {
			t.Errorf("X-Request-Id %q, want trace-123", got)
		}
	})
}
