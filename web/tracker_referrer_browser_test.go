package main

import (
	"net/url"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/folio-docs/folio/analytics"
)

// The tracker in a real browser keeps where a reader came from: a page
// opened from ChatGPT's link (utm_source=chatgpt.com, no referrer) counts
// as ChatGPT's, and the page is stored without its query.
func TestTrackerKeepsWhereReadersCameFromInBrowser(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	site := docsHost(t, s.URL, s.project.ID)
	ctx := newBrowser(t, chromedp.UserAgent(browserUA))
	do(t, ctx, "open a page from ChatGPT's link", chromedp.Navigate(site+"/guide/keys?utm_source=chatgpt.com&session=s3cret"),
		chromedp.WaitVisible(chromedp.CSS("main h1")))
	var got analytics.Referrers
	waitFor(t, 10*time.Second, "the view counted as ChatGPT's", func() bool {
		if code := s.export(t, s.project.ID, s.key, "referrers", url.Values{}, &got); code != 200 {
			t.Fatalf("referrers export: %d", code)
		}
		return len(got.Referrers) > 0
	})
	if r := got.Referrers; len(r) != 1 || r[0].Source == nil || *r[0].Source != "chatgpt.com" || r[0].Channel != "aiAssistant" || r[0].Visitors != 1 {
		t.Errorf("the referrers export says %+v, want one visitor from chatgpt.com", r)
	}
	var visitors analytics.Visitors
	if code := s.export(t, s.project.ID, s.key, "visitors", url.Values{}, &visitors); code != 200 || len(visitors.Visitors) != 1 || visitors.Visitors[0].Path != "/guide/keys" {
		t.Errorf("the visitors export says %d %+v, want /guide/keys alone", code, visitors.Visitors)
	}
}
