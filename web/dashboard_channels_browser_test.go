package main

import (
	"context"
	"fmt"
	"net/url"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/folio-docs/folio/analytics"
	"github.com/folio-docs/folio/model"
)

// channelRow is a row of the "Where people come from" panel as the browser
// shows it.
type channelRow struct {
	ID       string `json:"id"`
	Name     string `json:"name"`
	Text     string `json:"text"`
	Visitors int    `json:"visitors"`
	Views    int    `json:"views"`
}

const readChannels = `Array.from(document.querySelectorAll("#channels-table tbody tr")).map(tr => ({
	id: tr.id, name: tr.dataset.name || "", text: tr.innerText.replace(/\s+/g, " ").trim(),
	visitors: +tr.dataset.visitors, views: +tr.dataset.views}))`

// The analytics page shows people's visitors by channel, the AI assistants
// among them named, loaded after the page: the numbers are the referrers
// export's, readable without hovering, and the page stays axe-core clean
// at desktop and phone widths.
func TestChannelsPanelInBrowser(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	ctx := newBrowser(t)
	dir := screenshotDir(t)

	s.signUpInBrowser(t, ctx, "ada@example.com")
	projectID := createProjectInBrowser(t, ctx, "Acme handbook", "acme/handbook")

	// People from ChatGPT (two of its hosts), Perplexity, Google, Hacker
	// News, a blog and nowhere; an agent from chatgpt.com is no person.
	const firefox = "Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0"
	const chatGPTUser = "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; ChatGPT-User/1.0; +https://openai.com/bot"
	at := time.Now().UTC().Add(-2 * time.Hour)
	var events []analytics.Event
	view := func(visitor, path, referrer string) {
		events = append(events, analytics.Event{Path: path, At: at.Add(time.Duration(len(events)) * time.Second), UserAgent: firefox,
			VisitorID: visitor, Referrer: referrer})
	}
	view("v1", "/a", "https://chatgpt.com/")
	view("v1", "/b", "https://chat.openai.com/c/6f1e?token=s3cret")
	view("v1", "/c", "")
	view("v2", "/a", "https://chatgpt.com/")
	view("v3", "/a", "https://www.perplexity.ai/search/x")
	view("v4", "/b", "https://www.google.com/")
	view("v5", "/b", "https://www.google.de/search?q=acme")
	view("v6", "/a", "https://news.ycombinator.com/item?id=1")
	view("v7", "/c", "https://blog.example.org/post")
	view("v8", "/a", "")
	events = append(events, analytics.Event{Path: "/a", At: at, UserAgent: chatGPTUser, IP: "192.0.2.9", Referrer: "https://chatgpt.com/"})
	if n, err := s.app.analytics.Record(context.Background(), projectID, events); err != nil || n != len(events) {
		t.Fatalf("record: %d, %v", n, err)
	}

	do(t, ctx, "open analytics", chromedp.Navigate(s.URL+"/projects/"+projectID+"/analytics"), chromedp.WaitVisible(chromedp.ID("channels-table")))
	rows, err := chromedp.Run(ctx, chromedp.Evaluate[[]channelRow](readChannels))
	if err != nil {
		t.Fatal(err)
	}
	want := []channelRow{
		{ID: "channel-aiAssistant", Visitors: 3, Views: 4},
		{Name: "ChatGPT", Visitors: 2, Views: 3},
		{Name: "Perplexity", Visitors: 1, Views: 1},
		{ID: "channel-search", Visitors: 2, Views: 2},
		{ID: "channel-social", Visitors: 1, Views: 1},
		{ID: "channel-other", Visitors: 1, Views: 1},
		{ID: "channel-direct", Visitors: 2, Views: 2},
	}
	if len(rows) != len(want) {
		t.Fatalf("the panel has rows %+v, want %+v", rows, want)
	}
	for i, w := range want {
		r := rows[i]
		// The numbers are in the text, not only in attributes or on hover.
		shown := fmt.Sprintf("%d %d", w.Visitors, w.Views)
		if r.ID != w.ID || r.Name != w.Name || r.Visitors != w.Visitors || r.Views != w.Views || len(r.Text) < len(shown) || r.Text[len(r.Text)-len(shown):] != shown {
			t.Errorf("row %d is %+v, want %+v reading %q at its end", i, r, w, shown)
		}
	}
	if got := text(t, ctx, "#channel-aiAssistant .channel-label"); got != "AI assistants" {
		t.Errorf("the AI assistants' row is labelled %q", got)
	}
	// The same people as the referrers export counts, source by source.
	key, _, err := s.app.keys.Issue(context.Background(), projectID, "export", model.ScopeRead, "7d")
	if err != nil {
		t.Fatal(err)
	}
	var export analytics.Referrers
	if code := s.export(t, projectID, key, "referrers", url.Values{}, &export); code != 200 {
		t.Fatalf("referrers export: %d", code)
	}
	perSource := map[string]int{}
	for _, r := range export.Referrers {
		if r.Channel == "search" {
			perSource[r.Channel] += r.Visitors // google.com and google.de: two people, one each
		}
		if r.Source != nil && *r.Source == "perplexity.ai" {
			perSource["perplexity.ai"] = r.Visitors
		}
	}
	if perSource["search"] != 2 || perSource["perplexity.ai"] != 1 {
		t.Errorf("the referrers export says %+v", export.Referrers)
	}
	if busy, _ := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.getElementById("channels").hasAttribute("aria-busy")`)); busy {
		t.Error("the loaded panel still says it is busy")
	}
	axeCheck(t, ctx, "analytics with channels")
	shoot(t, ctx, dir, "26-analytics-channels")

	do(t, ctx, "phone", chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile),
		chromedp.Navigate(s.URL+"/projects/"+projectID+"/analytics"), chromedp.WaitVisible(chromedp.ID("channels-table")))
	axeCheck(t, ctx, "analytics with channels, phone")
	shoot(t, ctx, dir, "27-analytics-channels-phone")
	if w, _ := chromedp.Run(ctx, chromedp.Evaluate[int](`document.documentElement.scrollWidth`)); w > 390 {
		t.Errorf("on a phone the page is %dpx wide, wider than the screen", w)
	}

	// A range without people: the panel says so.
	do(t, ctx, "an empty range", chromedp.EmulateViewport(1280, 900),
		chromedp.Navigate(s.URL+"/projects/"+projectID+"/analytics?from=2020-01-01&to=2020-01-31"), chromedp.WaitVisible(chromedp.ID("channels-empty")))
	axeCheck(t, ctx, "analytics, a range without people")
}
