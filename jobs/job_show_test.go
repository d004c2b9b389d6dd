package jobs_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/folio-docs/folio/agent"
	"github.com/folio-docs/folio/codehost/hosts"
	"github.com/folio-docs/folio/jobs"
	"github.com/folio-docs/folio/model"
)

// Show reads fewer columns than Get; what the API shows must not differ.
func TestShowIsTheViewOfTheStoredJob(t *testing.T) {
	w := newWorld(t, jobs.Config{Hosts: hosts.Config{BaseURL: "https://folio.example", GitHubAPIURL: "https://ghe.example.com/api/v3/"}})
	w.startWorker()
	ctx := context.Background()
	same := func(id, step string) {
		t.Helper()
		full, err := w.svc.Get(ctx, w.project.ID, id)
		if err != nil {
			t.Fatal(err)
		}
		shown, err := w.svc.Show(ctx, w.project.ID, id)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := json.Marshal(w.svc.View(full))
		got, _ := json.Marshal(shown)
		// source.repository is the repository's URL, on the Enterprise host the API names.
		if shown.Source.Repository != "https://ghe.example.com/acme/docs" {
			t.Errorf("%s: source.repository = %q, want the repository's URL", step, shown.Source.Repository)
		}
		if string(got) != string(want) {
			t.Errorf("%s: Show = %s\nwant View(Get) = %s", step, got, want)
		}
	}
	j := w.create("Fix the typo in README")
	same(j.ID, "active")
	w.runner.waitRun(t)
	w.runner.then(reply("Fixed.", "https://github.com/acme/docs/pull/1"))
	w.waitStatus(j.ID, model.JobCompleted)
	same(j.ID, "completed with a PR")
	if _, err := w.svc.Archive(ctx, w.project.ID, j.ID); err != nil {
		t.Fatal(err)
	}
	same(j.ID, "archived")

	f := w.create("do it")
	w.runner.waitRun(t)
	w.runner.then(failWith("trying", &agent.Error{Code: "config_missing", Message: "FOLIO_OPENAI_API_KEY <is> \"not\" set.", Permanent: true}))
	w.waitStatus(f.ID, model.JobFailed)
	same(f.ID, "failed")

	if _, err := w.svc.Show(ctx, "another-project", j.ID); !errors.Is(err, model.ErrNotFound) {
		t.Errorf("Show in another project: %v, want ErrNotFound", err)
	}
	if _, err := w.svc.Show(ctx, w.project.ID, "nope"); !errors.Is(err, model.ErrNotFound) {
		t.Errorf("Show of an unknown job: %v, want ErrNotFound", err)
	}
}

// ShowJSON is the job Show gives, as json.Marshal encodes it: when it is
// read, when it is served from memory, and once a write has changed it.
func TestShowJSONIsTheShownJobEncoded(t *testing.T) {
	w := newWorld(t, jobs.Config{})
	ctx := context.Background()
	j := w.create("Fix the <typo> & \"quotes\"")
	check := func(step string, steps int) {
		t.Helper()
		for range 2 { // read, then kept
			shown, err := w.svc.Show(ctx, w.project.ID, j.ID)
			if err != nil {
				t.Fatal(err)
			}
			got, err := w.svc.ShowJSON(ctx, w.project.ID, j.ID)
			if err != nil {
				t.Fatal(err)
			}
			want, _ := json.Marshal(shown)
			if string(got) != string(want) || shown.Usage.Steps != steps {
				t.Fatalf("%s: ShowJSON = %s\nwant json.Marshal(Show) = %s (%d steps)", step, got, want, steps)
			}
		}
	}
	check("active", 0)
	if err := w.db.AddJobUsage(ctx, j.ID, model.RunUsage{Steps: 3, Tokens: 10}); err != nil {
		t.Fatal(err)
	}
	check("after a write", 3)
	if _, err := w.svc.ShowJSON(ctx, w.project.ID, "nope"); !errors.Is(err, model.ErrNotFound) {
		t.Errorf("ShowJSON of an unknown job: %v, want ErrNotFound", err)
	}
}
