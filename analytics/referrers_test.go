package analytics

import (
	"cmp"
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/folio-docs/folio/model"
)

// The referrers export agrees with a brute-force count over generated
// traffic whose views came from AI assistants, search engines, social
// networks, other sites, the site itself and nowhere: each person's view is
// in its source's row (direct for none or the site itself), each agent's
// and crawler's in none, and the views and distinct visitors per source
// are counted from the stored views, on day, week and month ranges (whole
// calendar months, and days and part-days about them), instants inside a
// day and one page, through every page size. The index counts them (it
// loaded half-way through the views and merged the rest, its referrers'
// days and months with them); a second service whose index tells only 3
// referrers apart counts in SQL, and answers the same.
func TestReferrersExportEqualsBruteForce(t *testing.T) {
	s, d, _ := newTestService(t)
	ctx := context.Background()
	const domains = "docs.example.com, *.docs.example.com"
	p, err := d.CreateProject(ctx, model.Project{Name: "referred", Repository: "/tmp/docs", AllowedDomains: domains})
	if err != nil {
		t.Fatal(err)
	}
	project := p.ID
	referrers := []string{
		"", "", "", "https://chatgpt.com/", "https://chat.openai.com/c/6f1e?token=s3cret", "https://www.perplexity.ai/search/abc",
		"https://claude.ai/chat/1", "https://gemini.google.com/app", "https://copilot.microsoft.com/", "https://x.com/i/grok",
		"https://www.google.com/", "https://www.google.de/search?q=folio", "https://www.bing.com/search?q=x", "https://duckduckgo.com/",
		"https://news.ycombinator.com/item?id=3", "https://old.reddit.com/r/golang", "https://t.co/abc", "https://x.com/someone",
		"https://blog.example.org/post?session=1", "https://docs.example.com/guide", "https://v2.docs.example.com/", "not a url",
	}
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	g := NewGenerator(GenConfig{Views: 12000, Paths: 60, Visitors: 1500, From: start, To: start.AddDate(0, 2, 0), Seed: 11})
	rnd := rand.New(rand.NewPCG(3, 5))
	events := generated(g)
	for i := range events {
		events[i].Referrer = referrers[rnd.IntN(len(referrers))]
		if rnd.IntN(3) == 0 {
			events[i].Host = "www.docs.example.com" // a door that knows the page's host
		}
	}
	few := NewService(d, s.cls)
	few.maxReferrers = 3
	recordInBatches(t, s, project, events, func(svc *Service) error {
		_, err := svc.Referrers(ctx, project, Query{Limit: 1}, "")
		return err
	}, s, few)
	views := storedInOrder(t, d, project, len(events))
	refs, err := EmbeddedReferrerClassifier()
	if err != nil {
		t.Fatal(err)
	}
	channels := map[Channel]int{}
	for i, e := range events {
		if views[i].At != e.At.UnixMilli() {
			t.Fatalf("view %d is not event %d's", views[i].ID, i)
		}
		views[i].referral = refs.Classify(e.Referrer, e.Host, strings.Split(domains, ","))
		if views[i].Class == uint8(Human) {
			channels[views[i].referral.Channel]++
		}
	}
	for c := Direct; c <= OtherReferrer; c++ {
		if channels[c] < 100 {
			t.Fatalf("only %d people's views of channel %s in generated traffic; the test would prove little", channels[c], c)
		}
	}
	in := func(from, to int64, path string) []storedView {
		var out []storedView
		for _, v := range views {
			if v.Class == uint8(Human) && v.At >= from && v.At < to && (path == "" || v.path == path) {
				out = append(out, v)
			}
		}
		return out
	}
	brute := func(views []storedView) []ReferrerRow {
		n := map[Referral]int{}
		visitors := map[Referral]map[int64]bool{}
		for _, v := range views {
			k := v.referral
			n[k]++
			if visitors[k] == nil {
				visitors[k] = map[int64]bool{}
			}
			visitors[k][v.VisitorID] = true
		}
		rows := []ReferrerRow{}
		for k, views := range n {
			r := ReferrerRow{Channel: k.Channel.String(), Views: views, Visitors: len(visitors[k])}
			if k.Source != "" {
				r.Source = &k.Source
			}
			if k.Name != "" {
				r.Name = &k.Name
			}
			rows = append(rows, r)
		}
		slices.SortFunc(rows, compareReferrerRows)
		return rows
	}
	top := views[0].path
	at := func(days int, d time.Duration) *time.Time { return ptr(start.AddDate(0, 0, days).Add(d)) }
	for _, r := range []struct {
		name     string
		from, to *time.Time
		path     string
	}{
		{"unbounded", nil, nil, ""},
		{"one day", at(10, 0), at(11, 0), ""},
		{"one week", at(14, 0), at(21, 0), ""},
		{"one month", at(5, 0), ptr(start.AddDate(0, 1, 5)), ""},
		{"a calendar month", at(0, 0), ptr(start.AddDate(0, 1, 0)), ""},
		{"weeks and part-days about a month", at(2, 5*time.Hour+13*time.Minute), at(44, 13*time.Hour+1), ""},
		{"instants inside a day", at(20, 3*time.Hour+17*time.Minute+250*time.Millisecond), at(20, 15*time.Hour+999*time.Millisecond), ""},
		{"one page, one month", at(0, 0), ptr(start.AddDate(0, 1, 0)), top},
		{"one page, one day", at(3, 0), at(4, 0), top},
		{"unknown page", nil, nil, "/no/such/page"},
		{"empty", ptr(start.AddDate(1, 0, 0)), nil, ""},
	} {
		q := Query{From: r.from, To: r.to}
		from, to := q.bounds()
		want := brute(in(from, to, r.path))
		if r.name == "unbounded" && len(want) < 15 {
			t.Fatalf("only %d sources in generated traffic", len(want))
		}
		for _, svc := range []struct {
			name string
			*Service
		}{{"index", s}, {"SQL", few}} {
			for _, limit := range []int{1, 3, MaxLimit} {
				got := everyPage(t, svc.name+", "+r.name, q, limit, len(want), func(q Query) ([]ReferrerRow, bool, error) {
					a, err := svc.Referrers(ctx, project, q, r.path)
					return a.Referrers, a.HasMore, err
				})
				if !slices.EqualFunc(got, want, func(a, b ReferrerRow) bool { return compareReferrerRows(a, b) == 0 }) {
					t.Fatalf("%s, %s: limit %d: %s, brute force %s", svc.name, r.name, limit, rowsString(got), rowsString(want))
				}
			}
		}
		if r.path != "" {
			continue
		}
		// The analytics page's channels: each channel's people counted once,
		// however many of its sources they came from, and each AI
		// assistant's by its name, whichever of its hosts.
		views := in(from, to, "")
		wantChannels := make([]ChannelRow, len(channelOrder))
		for i, c := range channelOrder {
			seen := map[int64]bool{}
			wantChannels[i].Channel = c
			for _, v := range views {
				if v.referral.Channel == c {
					wantChannels[i].Views++
					seen[v.VisitorID] = true
				}
			}
			wantChannels[i].Visitors = len(seen)
		}
		byName := map[string]map[int64]bool{}
		viewsOf := map[string]int{}
		for _, v := range views {
			if v.referral.Channel == AIAssistant {
				if byName[v.referral.Name] == nil {
					byName[v.referral.Name] = map[int64]bool{}
				}
				byName[v.referral.Name][v.VisitorID] = true
				viewsOf[v.referral.Name]++
			}
		}
		wantAssistants := []AssistantRow{}
		for name, visitors := range byName {
			wantAssistants = append(wantAssistants, AssistantRow{Name: name, Views: viewsOf[name], Visitors: len(visitors)})
		}
		slices.SortFunc(wantAssistants, func(a, b AssistantRow) int {
			return cmp.Or(b.Visitors-a.Visitors, b.Views-a.Views, strings.Compare(a.Name, b.Name))
		})
		for _, svc := range []struct {
			name string
			*Service
		}{{"index", s}, {"SQL", few}} {
			ch, err := svc.Channels(ctx, project, Query{From: r.from, To: r.to})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(ch.Channels, wantChannels) || !slices.Equal(ch.Assistants, wantAssistants) {
				t.Fatalf("%s, %s: channels %+v %+v, brute force %+v %+v", svc.name, r.name, ch.Channels, ch.Assistants, wantChannels, wantAssistants)
			}
		}
		if r.name == "unbounded" && (len(wantAssistants) < 6 || wantAssistants[0].Name != "ChatGPT") {
			t.Fatalf("the assistants in generated traffic are %+v; want ChatGPT (two hosts) first among six", wantAssistants)
		}
	}
	if got := referrersCountedBy(t, project, s, few); !slices.Equal(got, []string{"index", "SQL"}) {
		t.Fatalf("the services counted by %v, want index and SQL", got)
	}
}

// referrersCountedBy is which way each of TestReferrersExportEqualsBruteForce's services
// counted: from the index, or in SQL.
func referrersCountedBy(t *testing.T, project string, svcs ...*Service) []string {
	t.Helper()
	var out []string
	for _, svc := range svcs {
		st, err := svc.site(context.Background(), project, false)
		if err != nil || st == nil {
			t.Fatalf("no site: %v", err)
		}
		st.idx.mu.RLock()
		lost, agg := st.idx.referrers.lost, st.idx.originAgg
		st.idx.mu.RUnlock()
		switch {
		case lost > 0:
			out = append(out, "SQL")
		case agg != nil:
			out = append(out, "index")
		default:
			out = append(out, "index without its days")
		}
	}
	return out
}

func rowsString(rows []ReferrerRow) string {
	var b strings.Builder
	for _, r := range rows {
		src, name := "null", "null"
		if r.Source != nil {
			src = *r.Source
		}
		if r.Name != nil {
			name = *r.Name
		}
		fmt.Fprintf(&b, "%s %s %s %d/%d; ", src, r.Channel, name, r.Views, r.Visitors)
	}
	return b.String()
}
