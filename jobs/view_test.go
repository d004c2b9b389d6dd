package jobs

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/folio-docs/folio/model"
)

func TestViewTimesKeepTheirWidth(t *testing.T) {
	at := time.Date(2026, 11, 21, 20, 39, 13, 570_000_000, time.FixedZone("CET", 3600))
	b, err := json.Marshal(view(model.Job{ID: "j", Status: model.JobArchived, CreatedAt: at, UpdatedAt: at, ArchivedAt: &at}, ""))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"createdAt":"2026-11-21T19:39:13.570Z"`, `"updatedAt":"2026-11-21T19:39:13.570Z"`, `"archivedAt":"2026-11-21T19:39:13.570Z"`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("%s lacks %s", b, want)
		}
	}
	b, _ = json.Marshal(view(model.Job{ID: "j", Status: model.JobActive, CreatedAt: at, UpdatedAt: at}, ""))
	if !strings.Contains(string(b), `"archivedAt":null`) || !strings.Contains(string(b), `"prLink":null`) {
		t.Errorf("empty fields not null: %s", b)
	}
	if strings.Count(string(b), `"createdAt"`) != 1 {
		t.Errorf("createdAt written twice: %s", b)
	}
}
