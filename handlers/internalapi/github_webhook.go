package internalapi

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"

	"github.com/folio-docs/folio/codehost"
	"github.com/folio-docs/folio/codehost/github"
	"github.com/folio-docs/folio/handlers/httpx"
	"github.com/folio-docs/folio/model"
)

// maxWebhookBytes is GitHub's own cap on a delivery.
const maxWebhookBytes = 25 << 20

// JobArchiver archives a job whose pull request was merged or closed on
// GitHub, recording a merge. The pull request names the delivery's
// owner/name, so the implementation can check the job's project really is
// that repository. A job that does not exist is model.ErrNotFound.
type JobArchiver interface {
	ArchiveForPullRequest(ctx context.Context, pr codehost.ClosedPullRequest) error
}

// GitHubWebhook serves POST /webhooks/github: deliveries signed with secret
// (X-Hub-Signature-256); a closed or merged pull request of a folio/<job id>
// branch archives that job, and a merged one is recorded as merged. Other
// events are acknowledged and ignored, as GitHub expects a 2xx for every
// delivery it should not retry.
func GitHubWebhook(secret string, jobs JobArchiver) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if secret == "" {
			httpx.WriteError(w, r, httpx.NewError(http.StatusNotFound, httpx.CodeNotFound, "GitHub webhooks are not configured (FOLIO_GITHUB_WEBHOOK_SECRET)."))
			return
		}
		body, e := httpx.ReadBody(r, maxWebhookBytes)
		if e != nil {
			httpx.WriteError(w, r, e)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		closed, err := github.ParseWebhook(r, secret)
		switch {
		case errors.Is(err, github.ErrBadSignature):
			httpx.WriteError(w, r, httpx.NewError(http.StatusUnauthorized, httpx.CodeUnauthorized, "The delivery's X-Hub-Signature-256 does not match the webhook secret."))
			return
		case err != nil:
			httpx.WriteError(w, r, httpx.Invalid(err.Error()))
			return
		case closed == nil:
			httpx.WriteJSON(w, http.StatusOK, map[string]any{"ignored": true})
			return
		}
		if err := jobs.ArchiveForPullRequest(r.Context(), *closed); err != nil {
			if errors.Is(err, model.ErrNotFound) {
				httpx.WriteJSON(w, http.StatusOK, map[string]any{"ignored": true})
				return
			}
			httpx.WriteInternal(w, r, err)
			return
		}
		httpx.WriteJSON(w, http.StatusOK, map[string]any{"archived": closed.JobID, "merged": closed.Merged})
	})
}
