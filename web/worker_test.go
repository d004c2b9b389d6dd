package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// oneLine fails the test unless a command exited non-zero with one line
// of stderr holding want.
func oneLine(t *testing.T, code int, stderr, want string) {
	t.Helper()
	msg := strings.TrimSpace(stderr)
	if code == 0 || strings.Contains(msg, "\n") || !strings.Contains(msg, want) {
		t.Fatalf("exit %d, stderr %q: want non-zero and one line with %q", code, msg, want)
	}
}

func TestWorkerWithoutDatabaseOrServerRefusesToStart(t *testing.T) {
	t.Parallel()
	te := newTestEnv(t)
	code, _, errs := te.folio(t, "", "worker")
	oneLine(t, code, errs, "FOLIO_SERVER_URL")
	if _, err := os.Stat(filepath.Join(te["FOLIO_DATA_DIR"], "folio.db")); err == nil {
		t.Fatal("the worker created a database of its own")
	}
}

func TestWorkerWithUnreachableServerRefusesToStart(t *testing.T) {
	t.Parallel()
	te := newTestEnv(t)
	te["FOLIO_SERVER_URL"] = "http://" + freeAddr(t)
	te["FOLIO_WORKER_TOKEN"] = strings.Repeat("t", 40)
	code, _, errs := te.folio(t, "", "worker")
	oneLine(t, code, errs, "cannot reach serve at FOLIO_SERVER_URL")
	if strings.Contains(errs, te["FOLIO_WORKER_TOKEN"]) {
		t.Fatal("the token was printed")
	}
}

func TestWorkerOfAnotherReleaseRefusesToStart(t *testing.T) {
	t.Parallel()
	serve := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `{"baseUrl":"http://folio.test","workerApi":2}`)
	}))
	defer serve.Close()
	te := newTestEnv(t)
	te["FOLIO_SERVER_URL"] = serve.URL
	te["FOLIO_WORKER_TOKEN"] = strings.Repeat("t", 40)
	code, _, errs := te.folio(t, "", "worker")
	oneLine(t, code, errs, "is of another Folio release: worker API versions differ: serve speaks version 2, this worker 1; run the same release on serve and its workers")
}

func TestWorkerWithServerURLNeedsAToken(t *testing.T) {
	t.Parallel()
	te := newTestEnv(t)
	te["FOLIO_SERVER_URL"] = "http://" + freeAddr(t)
	code, _, errs := te.folio(t, "", "worker")
	oneLine(t, code, errs, "FOLIO_WORKER_TOKEN")
	te["FOLIO_WORKER_TOKEN"] = "short-secret"
	code, _, errs = te.folio(t, "", "worker")
	oneLine(t, code, errs, "at least 32")
	if strings.Contains(errs, "short-secret") {
		t.Fatal("the token was printed")
	}
}

func TestWorkerAPINeedsTheToken(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	s.app.cfg.WorkerToken = strings.Repeat("k", 40)
	srv := s.Config
	srv.Handler = s.app.routes()
	post := func(auth string) int {
		req, _ := http.NewRequest("POST", s.URL+"/internal/worker/hello", strings.NewReader("{}"))
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
		return res.StatusCode
	}
	for _, auth := range []string{"", "Bearer " + s.key, "Bearer " + strings.Repeat("k", 39)} {
		if code := post(auth); code != 401 {
			t.Fatalf("hello with %q: %d, want 401", auth, code)
		}
	}
	if code := post("Bearer " + strings.Repeat("k", 40)); code != 200 {
		t.Fatalf("hello with the token: %d, want 200", code)
	}
	res, err := http.Get(s.URL + "/openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Paths map[string]any `json:"paths"`
	}
	err = json.NewDecoder(res.Body).Decode(&doc)
	res.Body.Close()
	if err != nil || len(doc.Paths) == 0 {
		t.Fatalf("/openapi.json: %v, %d paths", err, len(doc.Paths))
	}
	// (A job's source.repository names the clone URL /git/{projectId}.git
	// in prose; the paths are what a client is offered.)
	for path := range doc.Paths {
		if strings.Contains(path, "/internal/") || strings.Contains(path, "/git/") {
			t.Fatalf("/openapi.json documents the internal path %s", path)
		}
	}
}

func TestWorkerAPIIsRefusedWithoutAConfiguredToken(t *testing.T) {
	t.Parallel()
	s := newTestServer(t) // FOLIO_WORKER_TOKEN unset
	req, _ := http.NewRequest("POST", s.URL+"/internal/worker/hello", strings.NewReader("{}"))
	req.Header.Set("Authorization", "Bearer ")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 401 {
		t.Fatalf("hello with an empty token on a serve without one: %d, want 401", res.StatusCode)
	}
}
