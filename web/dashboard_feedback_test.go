package main

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/folio-docs/folio/analytics"
	"github.com/folio-docs/folio/model"
)

// withFeedback posts feedback to the test server's project through the
// events API and returns the ids the feedback export gives them, newest
// first.
func (s *testServer) withFeedback(t *testing.T, events ...string) []string {
	t.Helper()
	var out map[string]any
	s.expect(http.StatusOK, http.MethodPost, "/v1/analytics/"+s.project.ID+"/events", `{"events":[`+strings.Join(events, ",")+`]}`, &out)
	var fb analytics.FeedbackExport
	if code := s.export(t, s.project.ID, s.key, "feedback", nil, &fb); code != 200 {
		t.Fatalf("feedback export: %d", code)
	}
	var ids []string
	for _, f := range fb.Feedback {
		ids = append(ids, f.ID)
	}
	return ids
}

// feedbackEvents are three feedback on the docs, oldest first: a page
// rating, a comment with an address, a code snippet's.
var feedbackEvents = []string{
	`{"type":"feedback","timestamp":"2026-03-01T10:00:00Z","path":"/docs/intro","helpful":true,"source":"thumbs_only"}`,
	`{"type":"feedback","timestamp":"2026-03-02T10:00:00Z","path":"/docs/keys","helpful":false,"source":"contextual","comment":"The <b>example</b> uses an old key.","contact":"ada@example.com"}`,
	`{"type":"feedback","timestamp":"2026-03-03T10:00:00Z","path":"/docs/cli","source":"code_snippet","code":"folio key create --project $P","filename":"rotate.sh","lang":"sh","comment":"Fails."}`,
}

// The Feedback page lists the project's feedback newest first, filters it
// by status and source, and sets a review status, by htmx in place or by
// a plain form; other sites' forms and non-members are refused.
func TestFeedbackPage(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	c := s.signedIn(t)
	ids := s.withFeedback(t, feedbackEvents...)
	if len(ids) != 3 {
		t.Fatalf("feedback ids %v", ids)
	}
	cli, keys, intro := ids[0], ids[1], ids[2]
	items := regexp.MustCompile(`<li class="feedback-item" id="feedback-([0-9a-z]+)" data-status="([a-z_]+)"`)
	list := func(page string) string {
		var got []string
		for _, m := range items.FindAllStringSubmatch(page, -1) {
			got = append(got, map[string]string{cli: "cli", keys: "keys", intro: "intro"}[m[1]]+":"+m[2])
		}
		return strings.Join(got, " ")
	}
	base := "/projects/" + s.project.ID + "/feedback"
	res, page := s.get(t, c, base)
	if res.StatusCode != 200 || list(page) != "cli:pending keys:pending intro:pending" {
		t.Fatalf("GET %s: %d, lists %q", base, res.StatusCode, list(page))
	}
	for _, want := range []string{
		`aria-current="page" href="/projects/` + s.project.ID + `/feedback">Feedback</a>`,
		`The &lt;b&gt;example&lt;/b&gt; uses an old key.`, `href="mailto:ada@example.com"`,
		`<figcaption class="muted small"><code>rotate.sh</code> · sh</figcaption>`, `folio key create --project $P`,
		`<span class="badge rating-down">Not helpful</span>`, `<span class="badge rating-up">Helpful</span>`,
		`<span class="badge rating-none">No rating</span>`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %s", want)
		}
	}

	// htmx: the item comes back with its new status, and the status line.
	res, body := postForm(t, c, s.URL+base+"/"+keys+"/status", url.Values{"status": {"in_progress"}, "back": {"status=pending"}},
		map[string]string{"Sec-Fetch-Site": "same-origin", "Origin": s.URL, "HX-Request": "true", "HX-Target": "feedback-" + keys})
	if res.StatusCode != 200 || list(body) != "keys:in_progress" || !strings.Contains(body, `hx-swap-oob="true">Feedback on /docs/keys is now In progress.</p>`) ||
		!strings.Contains(body, `name="back" value="status=pending"`) {
		t.Errorf("htmx status change: %d\n%s", res.StatusCode, body)
	}
	// A plain form: back to the list, its filters kept, with a notice.
	res, _ = s.postPage(t, c, base+"/"+intro+"/status", url.Values{"status": {"dismissed"}, "back": {"source=thumbs_only"}})
	if to := res.Header.Get("Location"); res.StatusCode != http.StatusSeeOther || to != base+"?source=thumbs_only#feedback-"+intro {
		t.Errorf("form status change: %d to %q", res.StatusCode, to)
	}
	if _, page := s.get(t, c, base+"?source=thumbs_only"); !strings.Contains(page, "Feedback on /docs/intro is now Dismissed.") || list(page) != "intro:dismissed" {
		t.Errorf("after the change, the page lists %q and says %q", list(page), between(page, `role="status">`, "<"))
	}

	for _, tc := range []struct{ query, want string }{
		{"?status=pending", "cli:pending"},
		{"?status=in_progress,dismissed", "keys:in_progress intro:dismissed"},
		{"?source=code_snippet", "cli:pending"},
		{"?status=resolved", ""},
	} {
		if res, page := s.get(t, c, base+tc.query); res.StatusCode != 200 || list(page) != tc.want {
			t.Errorf("%s: %d lists %q, want %q", tc.query, res.StatusCode, list(page), tc.want)
		}
	}
	_, page = s.get(t, c, base+"?status=pending")
	for _, want := range []string{`aria-current="page" data-status="pending">\s*New <span class="count">1</span>`, `data-status="in_progress">\s*In progress <span class="count">1</span>`,
		`data-status="dismissed">\s*Dismissed <span class="count">1</span>`, `All <span class="count">3</span>`} {
		if !regexp.MustCompile(want).MatchString(page) {
			t.Errorf("the status filter lacks %s:\n%s", want, between(page, `aria-label="Status"`, "</nav>"))
		}
	}
	if res, page := s.get(t, c, base+"?status=open"); res.StatusCode != 400 || !strings.Contains(page, `status &#34;open&#34; is not a feedback status`) {
		t.Errorf("?status=open: %d, want 400 explaining it", res.StatusCode)
	}

	// Refusals: a status that is not one, feedback that is not the
	// project's, another site's form, someone not a member.
	if res, _ := s.postPage(t, c, base+"/"+cli+"/status", url.Values{"status": {"done"}}); res.StatusCode != 400 {
		t.Errorf("status done: %d, want 400", res.StatusCode)
	}
	if res, _ := s.postPage(t, c, base+"/nope/status", url.Values{"status": {"resolved"}}); res.StatusCode != 404 {
		t.Errorf("unknown feedback: %d, want 404", res.StatusCode)
	}
	if res := s.post(t, c, base+"/"+cli+"/status", url.Values{"status": {"resolved"}}, map[string]string{"Sec-Fetch-Site": "cross-site", "Origin": "https://evil.example"}); res.StatusCode != 403 {
		t.Errorf("a cross-site post: %d, want 403", res.StatusCode)
	}
	stranger := s.client(t)
	s.addUser(t, "mallory@example.com")
	s.login(t, stranger, "mallory@example.com", "correct horse")
	if res, _ := s.get(t, stranger, base); res.StatusCode != 404 {
		t.Errorf("a non-member's GET: %d, want 404", res.StatusCode)
	}
	if res, _ := s.postPage(t, stranger, base+"/"+cli+"/status", url.Values{"status": {"resolved"}}); res.StatusCode != 404 {
		t.Errorf("a non-member's post: %d, want 404", res.StatusCode)
	}
	var fb analytics.FeedbackExport
	s.export(t, s.project.ID, s.key, "feedback", url.Values{"status": {"pending"}}, &fb)
	if len(fb.Feedback) != 1 || fb.Feedback[0].ID != cli {
		t.Errorf("after the refusals, pending feedback is %+v, want the snippet's alone", fb.Feedback)
	}

	// The empty page says how to collect feedback.
	other, err := s.app.db.CreateProject(context.Background(), model.Project{Name: "Empty", Repository: "acme/empty"})
	if err != nil {
		t.Fatal(err)
	}
	u, _ := s.app.db.UserByEmail(context.Background(), "ada@example.com")
	s.app.db.AddProjectMember(context.Background(), other.ID, u.ID)
	if _, page := s.get(t, c, "/projects/"+other.ID+"/feedback"); !strings.Contains(page, fmt.Sprintf(`data-project=&#34;%s&#34; data-feedback&gt;`, other.ID)) {
		t.Errorf("the empty page does not give the widget's snippet:\n%s", between(page, `id="feedback-empty"`, "</section>"))
	}
}
