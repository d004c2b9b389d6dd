package github

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func githubSignature(secret string, body []byte) string {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write(body)
	return "sha256=" + hex.EncodeToString(m.Sum(nil))
}

func delivery(event, signature string, body []byte) *http.Request {
	r := httptest.NewRequest(http.MethodPost, "/webhooks/github", bytes.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("X-GitHub-Event", event)
	r.Header.Set("X-Hub-Signature-256", signature)
	return r
}

// FuzzParseWebhook: a delivery signed with the secret is never refused for
// its signature, and a closed pull request it reports names a folio/ job;
// any one byte changed in the body or the signature is refused as unsigned.
func FuzzParseWebhook(f *testing.F) {
	closed := `{"action":"closed","number":7,"pull_request":{"number":7,"merged":true,"head":{"ref":"folio/job1"}},"repository":{"full_name":"acme/docs"}}`
	f.Add("whsec", "pull_request", []byte(closed), uint(40), byte('2'))
	f.Add("whsec", "pull_request", []byte(strings.Replace(closed, "folio/job1", "feature/x", 1)), uint(0), byte(' '))
	f.Add("whsec", "pull_request", []byte(`{"action":"opened","pull_request":{"head":{"ref":"folio/job1"}}}`), uint(3), byte('x'))
	f.Add("s", "ping", []byte(`{"zen":"Design for failure.","hook_id":1}`), uint(9), byte(0))
	f.Add("whsec", "pull_request", []byte(`{"action":`), uint(1), byte('{'))
	f.Fuzz(func(t *testing.T, secret, event string, body []byte, at uint, b byte) {
		if secret == "" {
			return // refused before anything else; covered by the handler's tests
		}
		sig := githubSignature(secret, body)
		pr, err := ParseWebhook(delivery(event, sig, body), secret)
		if errors.Is(err, ErrBadSignature) {
			t.Fatalf("correctly signed %q (event %q) refused as unsigned", body, event)
		}
		if pr != nil && (pr.JobID == "" || strings.Contains(pr.JobID, "/")) {
			t.Fatalf("%q reports job %q", body, pr.JobID)
		}
		if len(body) > 0 && body[at%uint(len(body))] != b {
			changed := bytes.Clone(body)
			changed[at%uint(len(body))] = b
			if _, err := ParseWebhook(delivery(event, sig, changed), secret); !errors.Is(err, ErrBadSignature) {
				t.Fatalf("%q with a byte changed to %q accepted under the original signature (err %v)", body, changed, err)
			}
		}
		i := at % uint(len(sig))
		changedSig := sig[:i] + string([]byte{b}) + sig[i+1:]
		if strings.EqualFold(changedSig, sig) {
			return // hex is read in either case: the same signature
		}
		if _, err := ParseWebhook(delivery(event, changedSig, body), secret); !errors.Is(err, ErrBadSignature) {
			t.Fatalf("signature %q changed to %q accepted (err %v)", sig, changedSig, err)
		}
	})
}
