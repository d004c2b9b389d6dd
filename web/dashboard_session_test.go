package main

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/alexedwards/scs/sqlite3store"
)

// expireOnServer deletes c's session from the store, as its idle timeout
// does: the browser still sends a cookie that names nothing.
func (s *testServer) expireOnServer(t *testing.T, c *http.Client) {
	t.Helper()
	u, _ := url.Parse(s.URL)
	for _, ck := range c.Jar.Cookies(u) {
		if ck.Name == "folio_session" {
			if err := sqlite3store.NewWithCleanupInterval(s.app.db.SessionStore(), 0).Delete(ck.Value); err != nil {
				t.Fatal(err)
			}
			return
		}
	}
	t.Fatal("the client has no session cookie")
}

func TestExpiredSessionKeepsTheFollowUp(t *testing.T) {
	t.Parallel()
	s := newTestServer(t) // no worker: the job stays queued
	c := s.signedIn(t)
	created, err := s.app.jobs.Create(context.Background(), s.project.ID, "Write the install guide.", "")
	if err != nil {
		t.Fatal(err)
	}
	page := "/projects/" + s.project.ID + "/jobs/" + created.Job.ID
	followUp := "Mention the ARM64 builds & the checksum file."

	s.expireOnServer(t, c)
	// No Referer (a privacy setting may drop it): the page is the action's.
	res, _ := s.postPage(t, c, page+"/message", url.Values{"prompt": {followUp}})
	if want := "/login?next=" + url.QueryEscape(page); res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != want {
		t.Fatalf("follow-up without a session: %d to %q, want 303 to %s", res.StatusCode, res.Header.Get("Location"), want)
	}
	if _, body := s.get(t, c, "/login?next="+url.QueryEscape(page)); !strings.Contains(body, "Your session expired") {
		t.Error("the sign-in page does not say the session expired")
	}
	res, _ = s.postPage(t, c, "/login", url.Values{"email": {"ada@example.com"}, "password": {"correct horse"}, "next": {page}})
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != page {
		t.Fatalf("sign-in: %d to %q, want 303 to %s", res.StatusCode, res.Header.Get("Location"), page)
	}
	// The job's own polling asks for the page too; it must not use up the text.
	req, _ := http.NewRequest(http.MethodGet, s.URL+page, nil)
	req.Header.Set("HX-Request", "true")
	req.Header.Set("HX-Target", "job-live")
	if res, err := c.Do(req); err != nil {
		t.Fatal(err)
	} else {
		res.Body.Close()
	}
	_, body := s.get(t, c, page)
	if !strings.Contains(body, ">Mention the ARM64 builds &amp; the checksum file.</textarea>") {
		t.Errorf("the job page does not hold the follow-up typed before the session expired:\n%s", body)
	}
	if ms, _ := s.app.jobs.Messages(context.Background(), s.project.ID, created.Job.ID); len(ms) != 1 {
		t.Errorf("the conversation has %d messages; the expired post must send nothing", len(ms))
	}
	if _, body := s.get(t, c, page); strings.Contains(body, "ARM64") {
		t.Error("the kept text comes back twice")
	}
}

func TestExpiredSessionKeepsNothingFromAnotherSite(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	c := s.signedIn(t)
	s.expireOnServer(t, c)
	jobs := "/projects/" + s.project.ID + "/jobs"
	res, _ := postForm(t, c, s.URL+jobs, url.Values{"prompt": {"Planted by evil.example"}},
		map[string]string{"Sec-Fetch-Site": "cross-site", "Origin": "https://evil.example"})
	if res.StatusCode != http.StatusForbidden {
		t.Fatalf("a cross-site post without a session: %d, want 403", res.StatusCode)
	}
	if _, body := s.get(t, c, "/login"); strings.Contains(body, "Your session expired") {
		t.Error("a cross-site post left a form waiting for sign-in")
	}
	s.postPage(t, c, "/login", url.Values{"email": {"ada@example.com"}, "password": {"correct horse"}})
	if _, body := s.get(t, c, jobs); strings.Contains(body, "Planted") {
		t.Error("text posted from another site appears in the launch form")
	}
}
