package github

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"

	"github.com/folio-docs/folio/codehost"

	gh "github.com/google/go-github/v62/github"
)

// ErrBadSignature means a webhook delivery is not signed with our secret.
var ErrBadSignature = errors.New("github: webhook signature does not match")

// ParseWebhook verifies a delivery's X-Hub-Signature-256 against secret
// (in constant time) and, if it reports a closed pull request whose head
// branch is folio/<job id>, returns it; other events give nil.
func ParseWebhook(r *http.Request, secret string) (*codehost.ClosedPullRequest, error) {
	if secret == "" {
		return nil, ErrBadSignature
	}
	signature := r.Header.Get(gh.SHA256SignatureHeader) // never the SHA-1 header
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return nil, fmt.Errorf("github: unable to read the webhook delivery: %w", err)
	}
	if signature == "" || gh.ValidateSignature(signature, body, []byte(secret)) != nil {
		return nil, ErrBadSignature
	}
	contentType, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	payload, err := gh.ValidatePayloadFromBody(contentType, bytes.NewReader(body), signature, []byte(secret))
	if err != nil {
		return nil, fmt.Errorf("github: unable to read the webhook delivery: %w", err)
	}
	if gh.WebHookType(r) != "pull_request" {
		return nil, nil
	}
	event, err := gh.ParseWebHook("pull_request", payload)
	if err != nil {
		return nil, fmt.Errorf("github: unable to parse the pull_request event: %w", err)
	}
	pr, ok := event.(*gh.PullRequestEvent)
	if !ok || pr.GetAction() != "closed" {
		return nil, nil
	}
	jobID, ok := strings.CutPrefix(pr.GetPullRequest().GetHead().GetRef(), "folio/")
	if !ok || jobID == "" || strings.Contains(jobID, "/") {
		return nil, nil
	}
	closed := &codehost.ClosedPullRequest{JobID: jobID, Repository: pr.GetRepo().GetFullName(), Number: pr.GetPullRequest().GetNumber(), Merged: pr.GetPullRequest().GetMerged()}
	if closed.Number == 0 {
		closed.Number = pr.GetNumber()
	}
	if closed.Merged {
		closed.MergeCommit = pr.GetPullRequest().GetMergeCommitSHA()
	}
	return closed, nil
}
