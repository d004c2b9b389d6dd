package api

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/gorilla/mux"

	"github.com/folio-docs/folio/analytics"
	"github.com/folio-docs/folio/handlers/httpx"
	"github.com/folio-docs/folio/model"
)

// DrainRecorder stores the page views of the request logs hosting
// platforms push.
type DrainRecorder interface {
	DrainSettings(ctx context.Context, projectID string) (model.DrainSettings, error)
	RecordDrain(ctx context.Context, projectID, provider string, body []byte) (analytics.DrainResult, error)
}

// DrainAccepted is the answer of POST /drains/{provider}.
type DrainAccepted struct {
	Accepted   int            `json:"accepted"`
	Skipped    int            `json:"skipped"`
	Duplicates int            `json:"duplicates"`
	SkippedBy  map[string]int `json:"skippedBy,omitempty"`
}

// Vercel's headers: the signature of a delivery, and the code its endpoint
// verification expects back.
const (
	vercelSignature = "X-Vercel-Signature"
	vercelVerify    = "X-Vercel-Verify"
)

// AnalyticsDrain serves POST /v1/analytics/{projectId}/drains/{provider}
// for one provider (analytics.DrainVercel…): a delivery of Vercel's,
// Netlify's or Cloudflare Logpush's request logs,
// in their own formats, stored whole or not at all, once however often it
// is delivered. A Vercel delivery must be signed with the project's drain
// secret (x-vercel-signature); every Vercel answer carries the project's
// verification code (x-vercel-verify), and an empty delivery, as the
// verification sends, stores nothing.
func AnalyticsDrain(svc DrainRecorder, provider string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		project := mux.Vars(r)["projectId"]
		body, e := httpx.ReadBody(r, analytics.MaxDrainBody)
		if e != nil {
			httpx.WriteError(w, r, e)
			return
		}
		if provider == analytics.DrainVercel {
			settings, err := svc.DrainSettings(r.Context(), project)
			if err != nil {
				httpx.WriteInternal(w, r, err)
				return
			}
			if code := settings.VercelVerify; code != "" {
				w.Header().Set(vercelVerify, code)
			} else if code := r.Header.Get(vercelVerify); code != "" && len(code) <= 256 {
				w.Header().Set(vercelVerify, code) // a verification that sends its code
			}
			if len(bytes.TrimSpace(body)) == 0 {
				httpx.WriteJSON(w, http.StatusOK, DrainAccepted{})
				return
			}
			switch {
			case settings.Secret == "":
				httpx.WriteError(w, r, httpx.NewError(http.StatusUnauthorized, httpx.CodeUnauthorized,
					"This project has no drain secret to check x-vercel-signature with: set it in the project's settings or with folio project update --drain-secret-stdin."))
				return
			case !analytics.VerifyVercelSignature(settings.Secret, body, r.Header.Get(vercelSignature)):
				httpx.WriteError(w, r, httpx.NewError(http.StatusUnauthorized, httpx.CodeUnauthorized,
					"The delivery's x-vercel-signature does not match its body signed with the project's drain secret."))
				return
			}
		}
		res, err := svc.RecordDrain(r.Context(), project, provider, body)
		switch {
		case errors.Is(err, model.ErrDrainTooLarge):
			e := httpx.ErrorOf(err)
			e.Message = fmt.Sprintf("The delivery is over a drain's limits (%d bytes as sent, %d once decompressed, %d entries), so nothing of it was stored.",
				analytics.MaxDrainBody, analytics.MaxDrainDecoded, analytics.MaxDrainEntries) // the limits are analytics'
			httpx.WriteError(w, r, e)
			return
		case err != nil:
			httpx.WriteDomainError(w, r, err) // a delivery not in the provider's format: 400
			return
		}
		httpx.WriteJSON(w, http.StatusOK, DrainAccepted{Accepted: res.Accepted, Skipped: res.Skipped, Duplicates: res.Duplicates, SkippedBy: res.SkippedBy})
	}
}
