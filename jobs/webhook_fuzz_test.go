package jobs_test

import (
	"regexp"
	"testing"
	"time"

	"github.com/folio-docs/folio/jobs"
)

var signatureShape = regexp.MustCompile(`^t=[0-9]+,v1=[0-9a-f]{64}$`)

// FuzzSign: a Folio-Signature has the documented shape, verifies as a
// receiver checks it from the scheme alone, and stops verifying when any
// one byte of the body, the secret or the signature changes.
func FuzzSign(f *testing.F) {
	f.Add("s3cret", []byte(`{"id":"evt_1","type":"job.status_changed","sequence":1,"job":{"id":"j1","status":"completed"}}`), uint(10), byte('x'))
	f.Add("", []byte{}, uint(0), byte(0))
	f.Add("a-much-longer-webhook-secret-with-unicode-é", []byte("\x00\xff."), uint(3), byte('.'))
	f.Fuzz(func(t *testing.T, secret string, body []byte, at uint, b byte) {
		now := time.Now()
		sig := jobs.Sign(secret, now, body)
		if !signatureShape.MatchString(sig) {
			t.Fatalf("signature %q is not t=<unix>,v1=<64 hex>", sig)
		}
		if !verify(secret, sig, body) {
			t.Fatalf("signature %q of %q does not verify", sig, body)
		}
		if again := jobs.Sign(secret, now, body); again != sig {
			t.Fatalf("signing twice gave %q and %q", sig, again)
		}
		if len(body) > 0 && body[at%uint(len(body))] != b {
			changed := append([]byte(nil), body...)
			changed[at%uint(len(body))] = b
			if verify(secret, sig, changed) {
				t.Fatalf("signature of %q verifies the changed body %q", body, changed)
			}
		}
		if len(secret) > 0 && secret[at%uint(len(secret))] != b {
			i := at % uint(len(secret))
			if verify(secret[:i]+string([]byte{b})+secret[i+1:], sig, body) {
				t.Fatalf("signature verifies under a changed secret")
			}
		}
		// Only the hex of v1 can change and still parse: the timestamp is checked too.
		i := uint(len("t=")) + at%uint(len(sig)-len("t="))
		if sig[i] != b {
			changed := sig[:i] + string([]byte{b}) + sig[i+1:]
			if verify(secret, changed, body) && changed != sig {
				t.Fatalf("changed signature %q verifies (was %q)", changed, sig)
			}
		}
	})
}
