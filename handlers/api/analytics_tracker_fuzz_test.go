package api

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/folio-docs/folio/analytics"
	"github.com/folio-docs/folio/handlers/httpx"
	"github.com/folio-docs/folio/internal/testenv"
	"github.com/folio-docs/folio/model"
)

// FuzzTrackerEvent sends the tracker's payload to POST /api/event backed by
// the real analytics service on a real database. Whatever the body, the
// answer is 202 exactly when it is one JSON object naming the project with a
// usable path, and otherwise an error of the contract's shape, never a 5xx.
func FuzzTrackerEvent(f *testing.F) {
	ctx := context.Background()
	d := testenv.NewDB(f)
	p, err := d.CreateProject(ctx, model.Project{Name: "docs", Repository: "/tmp/docs", AllowedDomains: "docs.example.com"})
	if err != nil {
		f.Fatal(err)
	}
	cls, err := analytics.NewClassifier()
	if err != nil {
		f.Fatal(err)
	}
	h := TrackerEvent(analytics.NewService(d, cls), TrackerLimits{PerSecond: 1e9, Burst: 1 << 30})

	for _, s := range []string{
		`{"project":"PROJECT","path":"/docs/intro","referrer":"https://www.google.com/"}`,
		`{"project":"PROJECT","path":"/docs/intro?utm_source=x#top","referrer":""}`,
		`{"project":"PROJECT","path":"/llms.txt"}`,
		`{"project":"PROJECT","path":"docs/no-slash"}`,
		`{"project":"PROJECT","path":"/../../etc/passwd"}`,
		`{"project":"nope","path":"/a"}`,
		`{"project":"","path":"/a"}`,
		`{"project":"PROJECT","path":"/a","zz":1}`,
		`{"project":"PROJECT","path":"/a"}{}`,
		`{"project":"PROJECT","path":`,
		`{"project":1}`,
	} {
		body := bytes.ReplaceAll([]byte(s), []byte("PROJECT"), []byte(p.ID))
		f.Add(body, "https://docs.example.com", "Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0")
		f.Add(body, "", "ChatGPT-User/1.0; +https://openai.com/bot")
		f.Add(body, "https://evil.example", "Googlebot/2.1 (+http://www.google.com/bot.html)")
	}
	f.Fuzz(func(t *testing.T, body []byte, origin, userAgent string) {
		r := httptest.NewRequest(http.MethodPost, "/api/event", bytes.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("Origin", origin)
		r.Header.Set("User-Agent", userAgent)
		w := httptest.NewRecorder()
		h(w, r)

		var ev trackerEvent
		dec := json.NewDecoder(bytes.NewReader(body))
		dec.DisallowUnknownFields()
		decoded := dec.Decode(&ev) == nil
		if _, err := dec.Token(); err != io.EOF {
			decoded = false
		}
		switch w.Code {
		case http.StatusAccepted:
			if !decoded || ev.Project != p.ID {
				t.Fatalf("202 for %q, which is not an event of the project", body)
			}
			if _, err := analytics.NormalizePath(ev.Path); err != nil {
				t.Fatalf("202 for %q, whose path is unusable: %v", body, err)
			}
			if !analytics.OriginAllowed(p.AllowedDomains, origin) {
				t.Fatalf("202 for origin %q, which the project does not allow", origin)
			}
		case http.StatusBadRequest, http.StatusNotFound, http.StatusForbidden, http.StatusRequestEntityTooLarge:
			var e httpx.Error
			if err := json.Unmarshal(w.Body.Bytes(), &e); err != nil || e.Message == "" || e.Code == "" {
				t.Fatalf("%d for %q with body %q: not the contract's error shape (%v)", w.Code, body, w.Body.Bytes(), err)
			}
			if w.Code == http.StatusNotFound && decoded && ev.Project == p.ID {
				t.Fatalf("404 for %q, which names the project", body)
			}
		default:
			t.Fatalf("status %d for %q (origin %q, user agent %q): %s", w.Code, body, origin, userAgent, w.Body.Bytes())
		}
	})
}
