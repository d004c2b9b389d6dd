package agent

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
)

// Settings that cannot work fail the turn for good at once, with a code the
// client can act on, before the model is called.
func TestRunFailsFastOnMissingRepositoryOrRef(t *testing.T) {
	repo := newTestRepo(t, nil)
	for _, tc := range []struct {
		name, repo, ref, code string
	}{
		{"missing ref", repo, "no-such-branch", CodeRefNotFound},
		{"missing repository", filepath.Join(t.TempDir(), "gone"), "main", CodeRepositoryNotFound},
	} {
		t.Run(tc.name, func(t *testing.T) {
			model := newOpenAIServer(t, step{text: "should not be asked"})
			a := newTestAgent(t, openAIConfig(model))
			run := localRun(tc.repo, "job1", "Do something")
			run.Project.Ref = tc.ref
			_, err := a.Run(context.Background(), run, (&recorder{}).record)
			var ae *Error
			if !errors.As(err, &ae) || ae.Code != tc.code || !ae.Permanent {
				t.Fatalf("err = %v, want a permanent %s", err, tc.code)
			}
			if n := len(model.requests); n != 0 {
				t.Fatalf("the model was called %d times before the settings were checked", n)
			}
		})
	}
}
