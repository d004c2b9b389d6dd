package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/folio-docs/folio/analytics"
)

// A person's browser: headless Chromium says HeadlessChrome, which the
// tracker's door rightly takes for a bot.
const browserUA = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Safari/537.36"

// docsHost serves a documentation site on another origin than Folio's,
// its pages embedding the tracker with the feedback widget; the site sets
// the widget's accent through its CSS variable.
func docsHost(t *testing.T, folioURL, projectID string) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>%[3]s · Acme docs</title>
<style>:root{--folio-feedback-accent:#6d28d9}</style></head>
<body><header><p>Acme docs</p></header><main><h1>%[3]s</h1><p>How to rotate the API keys of a project.</p></main>
<script defer src="%[1]s/js/folio.js" data-project="%[2]s" data-feedback></script></body></html>`, folioURL, projectID, r.URL.Path)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// deepFocus describes the element with the keyboard focus, inside the
// widget's shadow root too.
const deepFocus = `(() => { let a = document.activeElement; while (a && a.shadowRoot && a.shadowRoot.activeElement) a = a.shadowRoot.activeElement;
	return a ? a.tagName.toLowerCase() + ":" + (a.getAttribute("aria-pressed") || a.name || a.textContent.trim()) : "" })()`

// inWidget evaluates an expression over the widget's shadow root, w.
func inWidget(expr string) string {
	return `(() => { const w = document.querySelector("folio-feedback").shadowRoot; return ` + expr + ` })()`
}

// TestFeedbackWidgetInBrowser: a reader rates a page, writes a comment and
// leaves an address with the keyboard alone, as a screen reader's user
// would, and the feedback export has it; the widget is axe-core clean
// before and after, at desktop and phone widths, and takes the site's
// colour. A site's own search box reports through folio.search and
// folio.searchClick; a rating left open is sent as the reader leaves; a
// crawler's is not stored.
func TestFeedbackWidgetInBrowser(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	site := docsHost(t, s.URL, s.project.ID)
	// The browser's own user agent, not the page's override, so that what
	// it sends for a page gone (a beacon) says it too.
	ctx := newBrowser(t, chromedp.UserAgent(browserUA))
	dir := screenshotDir(t)
	eval := func(expr string) string {
		t.Helper()
		v, err := chromedp.Run(ctx, chromedp.Evaluate[string](expr))
		if err != nil {
			t.Fatalf("%s: %v", expr, err)
		}
		return v
	}
	waitEval := func(what, expr, want string) {
		t.Helper()
		waitFor(t, 10*time.Second, what, func() bool { return eval(expr) == want })
	}
	feedback := func(params url.Values) analytics.FeedbackExport {
		t.Helper()
		var out analytics.FeedbackExport
		if code := s.export(t, s.project.ID, s.key, "feedback", params, &out); code != 200 {
			t.Fatalf("feedback export: %d", code)
		}
		return out
	}

	do(t, ctx, "open a docs page", chromedp.Navigate(site+"/docs/keys"), chromedp.WaitVisible(chromedp.CSS("folio-feedback")))
	if got := eval(inWidget(`w.querySelector("h2").textContent + "|" + w.querySelector("section").getAttribute("aria-labelledby")`)); !strings.HasPrefix(got, "Was this page helpful?|folio-feedback-") {
		t.Errorf("the widget's question reads %q", got)
	}
	axeClean(t, ctx, "feedback widget")
	shoot(t, ctx, dir, "60-feedback-widget")

	// The keyboard alone: Tab to Yes, to No; Space presses No, and the
	// comment box, labelled for a No, takes the focus.
	do(t, ctx, "tab to Yes", chromedp.KeyEvent("\t"))
	if got := eval(deepFocus); got != "button:false" || eval(inWidget(`w.activeElement.textContent`)) != "Yes" {
		t.Fatalf("after one Tab the focus is on %q, want the Yes button", got)
	}
	do(t, ctx, "tab to No, press Space", chromedp.KeyEvent("\t"), chromedp.KeyEvent(" "))
	waitEval("the No button pressed", inWidget(`w.querySelector("[data-helpful=false]").getAttribute("aria-pressed")`), "true")
	if got := eval(deepFocus); got != "textarea:comment" {
		t.Errorf("after No the focus is on %q, want the comment box", got)
	}
	if got := eval(inWidget(`w.querySelector("textarea").labels[0].textContent`)); got != "What could be better? (optional)" {
		t.Errorf("the comment box is labelled %q", got)
	}
	if got := eval(inWidget(`getComputedStyle(w.querySelector("[aria-pressed=true]")).backgroundColor`)); got != "rgb(109, 40, 217)" {
		t.Errorf("the pressed button is %s, want the site's --folio-feedback-accent rgb(109, 40, 217)", got)
	}
	axeClean(t, ctx, "feedback widget (form open)")
	do(t, ctx, "type a comment and an address, send with Enter",
		chromedp.KeyEvent("The example uses an old key."), chromedp.KeyEvent("\t"),
		chromedp.KeyEvent("ada at example.com"), chromedp.KeyEvent("\t"), chromedp.KeyEvent("\r"))
	// An address that is not one is explained, and the focus goes back to it.
	waitEval("the address refused", inWidget(`w.querySelector("input").getAttribute("aria-invalid")`), "true")
	if got := eval(deepFocus); got != "input:contact" {
		t.Errorf("after a bad address the focus is on %q, want the address", got)
	}
	eval(inWidget(`(w.querySelector("input").select(), "")`))
	do(t, ctx, "correct the address, send", chromedp.KeyEvent("ada@example.com"), chromedp.KeyEvent("\t"), chromedp.KeyEvent("\r"))
	waitEval("thanks", inWidget(`w.querySelector("[role=status]").textContent`), "Thank you for your feedback.")
	if got := eval(deepFocus); !strings.HasPrefix(got, "p:") {
		t.Errorf("after sending the focus is on %q, want the widget's status", got)
	}
	axeClean(t, ctx, "feedback widget (sent)")
	shoot(t, ctx, dir, "61-feedback-sent")
	fb := feedback(nil)
	if len(fb.Feedback) != 1 {
		t.Fatalf("feedback export holds %d, want 1", len(fb.Feedback))
	}
	f := fb.Feedback[0]
	if f.Path != "/docs/keys" || f.Source != "contextual" || f.Helpful == nil || *f.Helpful || deref(f.Comment) != "The example uses an old key." || deref(f.Contact) != "ada@example.com" || f.Status != "pending" {
		t.Errorf("stored %+v (comment %q, contact %q)", f, deref(f.Comment), deref(f.Contact))
	}

	// The site's own search box.
	eval(`folio.search("rot", 9); folio.search("  Rotate keys ", 2); folio.searchClick("Rotate keys", "https://docs.example/docs/rotate#step-2"); ""`)
	waitFor(t, 10*time.Second, "the search exported", func() bool {
		var out analytics.Searches
		s.export(t, s.project.ID, s.key, "searches", nil, &out)
		return len(out.Searches) == 1 && out.TotalSearches == 1 && out.Searches[0].SearchQuery == "rotate keys" && out.Searches[0].CTR == 1 &&
			deref(out.Searches[0].TopClickedPage) == "/docs/rotate"
	})

	// A rating neither sent nor skipped goes as the reader leaves.
	do(t, ctx, "phone width, another page", chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile),
		chromedp.Navigate(site+"/docs/webhooks"), chromedp.WaitVisible(chromedp.CSS("folio-feedback")))
	axeClean(t, ctx, "feedback widget (phone)")
	eval(inWidget(`(w.querySelector("[data-helpful=true]").click(), "")`))
	axeClean(t, ctx, "feedback widget (phone, form open)")
	shoot(t, ctx, dir, "62-feedback-phone")
	do(t, ctx, "leave the page", chromedp.Navigate(site+"/docs/next"), chromedp.WaitVisible(chromedp.CSS("folio-feedback")))
	waitFor(t, 10*time.Second, "the rating sent on leaving", func() bool {
		out := feedback(url.Values{"source": {"thumbs_only"}})
		return len(out.Feedback) == 1 && out.Feedback[0].Path == "/docs/webhooks" && *out.Feedback[0].Helpful
	})

	// A crawler's rating is accepted and not stored.
	if _, err := chromedp.Call(ctx, emulation.SetUserAgentOverride, emulation.SetUserAgentOverrideParams{UserAgent: "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)"}); err != nil {
		t.Fatal(err)
	}
	do(t, ctx, "a crawler's page", chromedp.Navigate(site+"/docs/crawled"), chromedp.WaitVisible(chromedp.CSS("folio-feedback")))
	eval(inWidget(`(w.querySelector("[data-helpful=true]").click(), w.querySelector(".skip").click(), "")`))
	waitEval("the crawler thanked", inWidget(`w.querySelector("[role=status]").textContent`), "Thank you for your feedback.")
	if n := len(feedback(nil).Feedback); n != 2 {
		t.Errorf("after a crawler's rating the export holds %d, want the 2 people's", n)
	}
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

// TestFeedbackPageInBrowser: an admin reviews feedback on the dashboard's
// Feedback page with the keyboard: a status chosen and saved is swapped in
// place by htmx, the focus stays on Save and the status line says what
// changed; the page is axe-core clean at desktop and phone widths.
func TestFeedbackPageInBrowser(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	s.signedIn(t)
	ids := s.withFeedback(t, feedbackEvents...)
	keys := ids[1]
	ctx := newBrowser(t)
	dir := screenshotDir(t)
	s.signInBrowser(t, ctx, "ada@example.com")
	do(t, ctx, "open the Feedback tab", chromedp.Navigate(s.URL+"/projects/"+s.project.ID),
		chromedp.Click(chromedp.CSS(`.tabs a[href$="/feedback"]`)), chromedp.WaitVisible(chromedp.ID("feedback-list")))
	axeClean(t, ctx, "feedback page")
	shoot(t, ctx, dir, "63-feedback-page")

	do(t, ctx, "choose In progress with the keyboard and save",
		chromedp.Focus(chromedp.ID("status-"+keys)), chromedp.KeyEvent(kb.ArrowDown), chromedp.KeyEvent("\t"), chromedp.KeyEvent("\r"),
		chromedp.WaitVisible(chromedp.CSS(`#feedback-`+keys+`[data-status=in_progress]`)))
	eval := func(expr string) string {
		t.Helper()
		v, err := chromedp.Run(ctx, chromedp.Evaluate[string](expr))
		if err != nil {
			t.Fatalf("%s: %v", expr, err)
		}
		return v
	}
	waitFor(t, 5*time.Second, "the status line", func() bool {
		return eval(`document.getElementById("feedback-live").textContent`) == "Feedback on /docs/keys is now In progress."
	})
	if got := eval(`document.activeElement.id`); got != "save-"+keys {
		t.Errorf("after saving the focus is on %q, want save-%s", got, keys)
	}
	if got := eval(`location.pathname`); got != "/projects/"+s.project.ID+"/feedback" {
		t.Errorf("saving moved the page to %s", got)
	}
	axeClean(t, ctx, "feedback page (status saved)")
	do(t, ctx, "filter: in progress", chromedp.Click(chromedp.CSS(`a[data-status=in_progress]`)), chromedp.WaitVisible(chromedp.CSS(`.preset.active[data-status=in_progress]`)))
	if n := eval(`String(document.querySelectorAll(".feedback-item").length)`); n != "1" {
		t.Errorf("in progress lists %s feedback, want 1", n)
	}
	do(t, ctx, "phone", chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile), chromedp.Navigate(s.URL+"/projects/"+s.project.ID+"/feedback"),
		chromedp.WaitVisible(chromedp.ID("feedback-list")))
	axeClean(t, ctx, "feedback page (phone)")
	shoot(t, ctx, dir, "64-feedback-page-phone")
}
