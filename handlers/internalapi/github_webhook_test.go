package internalapi

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/folio-docs/folio/codehost"
	"github.com/folio-docs/folio/model"
)

type archiverFunc func(ctx context.Context, pr codehost.ClosedPullRequest) error

func (f archiverFunc) ArchiveForPullRequest(ctx context.Context, pr codehost.ClosedPullRequest) error {
	return f(ctx, pr)
}

func sign(secret, body string) string {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(body))
	return "sha256=" + hex.EncodeToString(m.Sum(nil))
}

func TestGitHubWebhook(t *testing.T) {
	const secret = "whsec"
	closedPR := func(ref string, merged bool) string {
		m := "false"
		if merged {
			m = "true"
		}
		return `{"action":"closed","number":7,"pull_request":{"number":7,"merged":` + m + `,"head":{"ref":"` + ref + `"}},"repository":{"full_name":"acme/docs"}}`
	}
	cases := []struct {
		name, event, body, sig string
		wantCode               int
		wantBody, wantArchived string
	}{
		{"merged archives the job", "pull_request", closedPR("folio/job1", true), "", 200, `"archived":"job1"`, "job1"},
		{"closed archives the job", "pull_request", closedPR("folio/job2", false), "", 200, `"merged":false`, "job2"},
		{"other branch ignored", "pull_request", closedPR("feature/x", true), "", 200, `"ignored":true`, ""},
		{"opened ignored", "pull_request", `{"action":"opened","pull_request":{"head":{"ref":"folio/job1"}}}`, "", 200, `"ignored":true`, ""},
		{"ping ignored", "ping", `{"zen":"hi"}`, "", 200, `"ignored":true`, ""},
		{"unknown job ignored", "pull_request", closedPR("folio/gone", true), "", 200, `"ignored":true`, "gone"},
		{"bad signature", "pull_request", closedPR("folio/job1", true), "sha256=00", 401, `"code":"unauthorized"`, ""},
		{"no signature", "pull_request", closedPR("folio/job1", true), "-", 401, `"code":"unauthorized"`, ""},
		{"malformed payload", "pull_request", `{"action":`, "", 400, `"code":"invalid_request"`, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var archived, repo string
			h := GitHubWebhook(secret, archiverFunc(func(_ context.Context, pr codehost.ClosedPullRequest) error {
				archived, repo = pr.JobID, pr.Repository
				if pr.JobID == "gone" {
					return model.ErrNotFound
				}
				return nil
			}))
			r := httptest.NewRequest("POST", "/webhooks/github", strings.NewReader(tc.body))
			r.Header.Set("Content-Type", "application/json")
			r.Header.Set("X-GitHub-Event", tc.event)
			switch tc.sig {
			case "":
				r.Header.Set("X-Hub-Signature-256", sign(secret, tc.body))
			case "-":
			default:
				r.Header.Set("X-Hub-Signature-256", tc.sig)
			}
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			if w.Code != tc.wantCode || !strings.Contains(w.Body.String(), tc.wantBody) {
				t.Fatalf("got %d %s, want %d with %s", w.Code, w.Body, tc.wantCode, tc.wantBody)
			}
			if archived != tc.wantArchived || (archived != "" && repo != "acme/docs") {
				t.Fatalf("archived %q of %q, want %q of acme/docs", archived, repo, tc.wantArchived)
			}
		})
	}
	t.Run("not configured", func(t *testing.T) {
		w := httptest.NewRecorder()
		GitHubWebhook("", nil).ServeHTTP(w, httptest.NewRequest("POST", "/webhooks/github", strings.NewReader("{}")))
		if w.Code != http.StatusNotFound {
			t.Fatalf("got %d, want 404", w.Code)
		}
	})
}
